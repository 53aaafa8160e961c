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


#: A child's opening lines for the TUI as a terminal starts it (`isatty`), headless, leaving
#: once its boot worker is done (`BootFlow._boot` wrapped); `App.run` and `BootFlow` bound.
UNTIL_BOOTED = r"""
import sys
sys.stdin.isatty = sys.stdout.isatty = lambda: True
from agent_tui.ui.startup.boot import BootFlow

boot = BootFlow._boot

def booted(self):
    boot(self)
    self.app.call_from_thread(self.app.exit)

BootFlow._boot = booted
from textual.app import App
run = App.run
App.run = lambda self, **kwargs: run(self, headless=True, size=(100, 30))
"""
