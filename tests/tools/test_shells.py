"""Background shells without the agent: bounded output with a marker for what was dropped, the
filter consuming what it leaves out, status words, and a kill that takes the whole group."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.shell_tools import (
    BashOutputInput,
    BashOutputTool,
    KillShellInput,
    KillShellTool,
)
from agent_tui.tools.shells import ShellOutput, ShellRegistry, describe_output


def test_output_keeps_the_newest_and_says_how_much_was_dropped() -> None:
    out = ShellOutput(limit=100)
    for i in range(1000):
        out.add(f"line {i}\n")
    dropped, text = out.read_new()
    assert len(text) == 100 and text.endswith("line 999\n")
    assert dropped == out.total - 100
    out.add("more\n")
    assert out.read_new() == (0, "more\n")
    assert out.last_line() == "more"


async def _ctx(tmp_path: Path, shells: ShellRegistry) -> ToolContext:
    return ToolContext(cwd=tmp_path, data_dir=tmp_path, shells=shells)


async def wait_for(cond, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        assert loop.time() < end, "condition never held"
        await asyncio.sleep(0.02)


async def test_read_filter_and_kill_take_the_whole_group(tmp_path: Path) -> None:
    shells = ShellRegistry()
    ctx = await _ctx(tmp_path, shells)
    cmd = "echo ready; echo noise; (sleep 300 & echo $! > child.pid; wait)"
    shell = await shells.start(cmd, ctx, outside=True)
    await wait_for(lambda: (tmp_path / "child.pid").exists() and "noise" in shell.output._text)
    out = await BashOutputTool().run(BashOutputInput(bash_id=shell.id, filter="^ready"), ctx)
    assert "<status>running</status>" in out.content
    assert "ready" in out.content and "noise" not in out.content
    again = await BashOutputTool().run(BashOutputInput(bash_id=shell.id), ctx)
    assert "noise" not in again.content  # the filter consumed it
    child = int((tmp_path / "child.pid").read_text())
    killed = await KillShellTool().run(KillShellInput(shell_id=shell.id), ctx)
    assert not killed.is_error and shell.status == "killed"
    await wait_for(lambda: not Path(f"/proc/{child}").exists() or _zombie(child))
    assert shells.running() == []
    twice = await KillShellTool().run(KillShellInput(shell_id=shell.id), ctx)
    assert twice.is_error and "not running" in twice.content


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


async def test_a_finished_shell_reports_its_exit_code(tmp_path: Path) -> None:
    shells = ShellRegistry()
    ctx = await _ctx(tmp_path, shells)
    shell = await shells.start("echo done; exit 3", ctx, outside=True)
    await shell.done.wait()
    text = describe_output(shell, None)
    assert "<status>failed</status>" in text and "<exit_code>3</exit_code>" in text
    assert "done" in text


async def test_unknown_ids_and_bad_filters_are_errors_the_model_can_act_on(tmp_path: Path) -> None:
    shells = ShellRegistry()
    ctx = await _ctx(tmp_path, shells)
    out = await BashOutputTool().run(BashOutputInput(bash_id="bash_9"), ctx)
    assert out.is_error and "bash_9" in out.content
    shell = await shells.start("echo x", ctx, outside=True)
    bad = await BashOutputTool().run(BashOutputInput(bash_id=shell.id, filter="("), ctx)
    assert bad.is_error and "Invalid filter" in bad.content
    await shells.kill_all()
    assert shells.running() == []
