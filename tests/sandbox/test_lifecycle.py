"""A sandboxed command's end, every way: timeout, cancel — nothing left running, no placeholder
left in the project, and the command itself got its SIGTERM first."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from pathlib import Path
from typing import Any

from bwrap_support import needs_bwrap

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.runner import Sandbox
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.bash import BashInput, BashTool

pytestmark = needs_bwrap


def setup(tmp_path: Path) -> tuple[Sandbox, ToolContext, Path]:
    project = tmp_path / "p"
    project.mkdir(parents=True)
    sandbox = Sandbox(
        SandboxConfig(mode="on"), project, PermissionEngine(project), data_dir=tmp_path / "d"
    )
    return sandbox, ToolContext(cwd=project, data_dir=tmp_path, sandbox=sandbox), project


async def timed_out_with_trap(tmp_path: Path, trap: str, grace_s: float) -> tuple[Any, Path, Path]:
    """Run `trap '<trap>' TERM; echo ready; sleep 100 & wait` until its timeout, in the sandbox.
    The trap has to be set before the timeout fires: on a busy machine bwrap and bash may take
    longer than the timeout to get there, so a run that never said "ready" is tried again with a
    longer one (bounded). Returns the output of the run whose trap was in place, its project and
    its data folder."""
    for attempt, timeout_ms in enumerate((1500, 6000, 24000)):
        sandbox, ctx, project = setup(tmp_path / str(attempt))
        tool = BashTool()
        tool.kill_grace_s = grace_s
        command = f"trap '{trap}' TERM; echo ready; sleep 100 & wait"
        try:
            out = await tool.run(BashInput(command=command, timeout_ms=timeout_ms), ctx)
        finally:
            sandbox.close()
        if "ready" in out.content:
            break
    assert out.meta["timed_out"] and out.meta["sandboxed"]
    assert "ready" in out.content, "the command never got to set its trap"
    return out, project, tmp_path / str(attempt) / "d"


async def test_a_timeout_stops_everything_inside_and_says_so(tmp_path: Path) -> None:
    out, project, data = await timed_out_with_trap(tmp_path, "echo got-term; exit 3", 5)
    assert "got-term" in out.content  # the command's own trap ran: SIGTERM came first
    assert list(project.iterdir()) == []  # no placeholder left behind
    assert not list((data / "running").glob("*.json"))


async def test_a_timeout_gives_the_command_its_grace_period_to_clean_up(tmp_path: Path) -> None:
    # bwrap is in the command's process group and gets the same SIGTERM: it used to die of it at
    # once, and `--die-with-parent` SIGKILLed the command mid-clean-up (its output lost, exit 143).
    # A clean-up that takes a moment (well within the grace period) must finish and be reported.
    out, project, _ = await timed_out_with_trap(tmp_path, "sleep 0.5; echo cleaned-up; exit 3", 10)
    assert "cleaned-up" in out.content, out.content
    assert "exit code 3" in out.content, out.content  # its own status, not bwrap's SIGTERM
    assert list(project.iterdir()) == []


async def test_a_cancel_stops_everything_inside(tmp_path: Path) -> None:
    sandbox, ctx, project = setup(tmp_path)
    records = tmp_path / "d" / "running"
    task = asyncio.ensure_future(
        BashTool().run(BashInput(command="sleep 100 & sleep 101; wait"), ctx)
    )
    # the command's record (its process group), once it runs; the session dir has pgid 0
    while not [r for r in records.glob("*.json") if json.loads(r.read_text())["pgid"] > 0]:
        await asyncio.sleep(0.02)
    [record] = [r for r in records.glob("*.json") if json.loads(r.read_text())["pgid"] > 0]
    pgid = json.loads(record.read_text())["pgid"]
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    sandbox.close()
    # SIGKILL is delivered, and the pid namespace torn down, a moment after the tool returns
    assert await group_gone(pgid), "processes of the cancelled command are still running"
    assert list(project.iterdir()) == [] and not list(records.glob("*.json"))


async def group_gone(pgid: int, bound: float = 10.0) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + bound
    while loop.time() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        await asyncio.sleep(0.02)
    return False
