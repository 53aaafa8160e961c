"""Helpers for pilot tests of the whole app on the offline model."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_tui.runtime import Options
from agent_tui.ui.app import AgentApp


def make_app(tmp_path: Path, *, record: bool = False, **kwargs) -> AgentApp:  # type: ignore[no-untyped-def]
    """The app on the offline model in a fresh project. The sandbox in its asking mode (`on`)
    unless given: pilots of the approval flow see its dialogs (by default, `auto`, the offline
    model's command would run in the sandbox unasked)."""
    kwargs.setdefault("sandbox", "on")
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "README.md").write_text("# demo\n\nA small project.\n")
    return AgentApp(Options(cwd=work, **kwargs), record=record)


#: the length of the folder `fixed_length_dir` returns (room for long temporary roots)
FIXED_DIR_LENGTH = 200


def fixed_length_dir(tmp_path: Path, length: int = FIXED_DIR_LENGTH) -> Path:
    """A folder under `tmp_path` whose path is always `length` characters long.

    For snapshots whose screen depends on how long the project's path is: tool results name
    absolute paths ("Created /tmp/pytest-of-root/pytest-476/…/NOTES.md") and the offline model
    counts tokens from the length of what it is sent, so the status line's ↑ count would change
    with pytest's numbered temporary folder (pytest-9 → pytest-10) and the test's name."""
    pad = length - len(str(tmp_path)) - 1
    if pad < 1:
        raise AssertionError(f"temporary folder too long for a {length}-character path: {tmp_path}")
    folder = tmp_path / ("p" * pad)
    folder.mkdir()
    assert len(str(folder)) == length
    return folder


async def wait_for(pilot, condition, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    """Let the app run until `condition()` holds (a bound on waiting, not a timing assertion)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("condition not reached")
        await pilot.pause(0.02)  # which ends with a paint of the screen, from this task:
        await asyncio.sleep(0)  # what that paint left for the loop's next turn runs first


async def type_prompt(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    for ch in text:
        await pilot.press("space" if ch == " " else ch)
    await pilot.press("enter")
