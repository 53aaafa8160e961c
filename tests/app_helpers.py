"""Helpers for pilot tests of the whole app on the offline model."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_tui.runtime import Options
from agent_tui.ui.app import AgentApp


def make_app(tmp_path: Path, *, record: bool = False, **kwargs) -> AgentApp:  # type: ignore[no-untyped-def]
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "README.md").write_text("# demo\n\nA small project.\n")
    return AgentApp(Options(cwd=work, **kwargs), record=record)


async def wait_for(pilot, condition, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    """Let the app run until `condition()` holds (a bound on waiting, not a timing assertion)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("condition not reached")
        await pilot.pause(0.02)


async def type_prompt(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    for ch in text:
        await pilot.press("space" if ch == " " else ch)
    await pilot.press("enter")
