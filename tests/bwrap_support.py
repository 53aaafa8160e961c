"""Sandbox tests run bubblewrap for real; where it can't run, they skip and say why."""

from __future__ import annotations

import pytest

from agent_tui.sandbox.bwrap import BwrapBackend


def bwrap_problem() -> str | None:
    found = BwrapBackend().availability()
    return None if found.ok else found.detail


needs_bwrap = pytest.mark.skipif(
    bwrap_problem() is not None, reason=f"bubblewrap can't run here: {bwrap_problem()}"
)
