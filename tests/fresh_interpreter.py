"""A fresh interpreter, as a start is, that imports the tree under test."""

from __future__ import annotations

import os
from pathlib import Path

import agent_tui

#: the folder holding the `agent_tui` under test
ROOT = Path(agent_tui.__file__).resolve().parents[1]


def child_env(**changes: str) -> dict[str, str]:
    """The environment of a fresh interpreter that imports this tree's `agent_tui` wherever it
    runs (a worktree may share a virtualenv whose editable install points at another tree)."""
    env = {**os.environ, **changes}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return env
