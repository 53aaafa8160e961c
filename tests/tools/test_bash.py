from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from agent_tui.tools.base import ToolContext, ToolInputError, ToolOutput
from agent_tui.tools.builtin.bash import MAX_TIMEOUT_MS, OUTPUT_LIMIT, BashTool, OutputCollector

WAIT = 10.0  # generous bound for anything we wait on; never a timing assertion


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A killed process whose parent (init here) hasn't reaped it yet still answers kill(0).
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def _wait_dead(pid: int) -> bool:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        await asyncio.sleep(0.02)
    return False


async def _wait_for_file(path: Path) -> str:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if path.exists() and (text := path.read_text().strip()):
            return text
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} never appeared")


@pytest.fixture
def progress() -> list[dict[str, str]]:
    return []


@pytest.fixture
def ctx(tmp_path: Path, progress: list[dict[str, str]]) -> ToolContext:
    return ToolContext(cwd=tmp_path, data_dir=tmp_path, progress=lambda **kw: progress.append(kw))


@pytest.fixture
def tool() -> BashTool:
    t = BashTool()
    t.kill_grace_s = 0.5
    return t


async def run(tool: BashTool, ctx: ToolContext, **raw: object) -> ToolOutput:
    return await asyncio.wait_for(tool.run(tool.validate(raw), ctx), WAIT)


async def test_exit_zero(tool: BashTool, ctx: ToolContext) -> None:
    out = await run(tool, ctx, command="echo hello")
    assert not out.is_error
    assert out.exit_code == 0
    assert out.content.startswith("hello\n")
    assert "[exit code 0]" in out.content
    assert out.summary.startswith("exit 0 · 1 line · ")
    assert out.summary.endswith("s")


async def test_nonzero_exit_is_error_and_stderr_merged(tool: BashTool, ctx: ToolContext) -> None:
    out = await run(tool, ctx, command="echo out; echo err >&2; exit 3")
    assert out.is_error
    assert out.exit_code == 3
    assert "out\nerr\n" in out.content
    assert "[exit code 3]" in out.content
    assert out.summary.startswith("exit 3 · 2 lines")


async def test_no_output(tool: BashTool, ctx: ToolContext) -> None:
    out = await run(tool, ctx, command="true")
    assert out.content.startswith("(no output)")
    assert "0 lines" in out.summary


async def test_killed_by_signal(tool: BashTool, ctx: ToolContext) -> None:
    out = await run(tool, ctx, command="kill -KILL $$")
    assert out.is_error
    assert out.exit_code == 137
    assert "SIGKILL" in out.content


async def test_cwd_respected(tool: BashTool, ctx: ToolContext, tmp_path: Path) -> None:
    out = await run(tool, ctx, command="pwd -P")
    assert out.content.splitlines()[0] == str(tmp_path.resolve())


async def test_missing_cwd(tool: BashTool, tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path / "nope", data_dir=tmp_path)
    out = await run(tool, ctx, command="true")
    assert out.is_error
    assert "does not exist" in out.content


async def test_stdin_is_closed(tool: BashTool, ctx: ToolContext) -> None:
    # Would hang until the timeout if stdin were inherited from the test runner's terminal.
    out = await run(tool, ctx, command="cat; read -r x; echo rc=$?")
    assert "rc=1" in out.content
    assert not out.is_error


async def test_non_utf8_output_is_replaced(tool: BashTool, ctx: ToolContext) -> None:
    out = await run(tool, ctx, command=r"printf 'a\377b\n'; printf '\xc3'; printf '\xa9\n'")
    # invalid byte replaced; a UTF-8 sequence split across writes still decodes
    assert out.content.startswith("a\ufffdb\né\n")


async def test_output_streams_before_exit(
    tool: BashTool, ctx: ToolContext, tmp_path: Path, progress: list[dict[str, str]]
) -> None:
    gate = tmp_path / "gate"
    cmd = f"echo first; while [ ! -e {gate} ]; do sleep 0.01; done; echo second"
    task = asyncio.create_task(tool.run(tool.validate({"command": cmd}), ctx))
    deadline = time.monotonic() + WAIT
    while not any("first" in p.get("output", "") for p in progress):
        assert time.monotonic() < deadline, "no progress while the command ran"
        assert not task.done()
        await asyncio.sleep(0.01)
    assert not task.done()  # the command is still blocked on the gate
    gate.touch()
    out = await asyncio.wait_for(task, WAIT)
    streamed = "".join(p.get("output", "") for p in progress)
    assert streamed == "first\nsecond\n"
    assert out.content.startswith("first\nsecond\n")


async def test_streamed_output_is_coalesced(
    tool: BashTool, ctx: ToolContext, progress: list[dict[str, str]]
) -> None:
    out = await run(tool, ctx, command="for i in $(seq 1 500); do echo line $i; done")
    streamed = "".join(p.get("output", "") for p in progress)
    assert streamed == "".join(f"line {i}\n" for i in range(1, 501))
    assert len(progress) < 500
    assert "500 lines" in out.summary


async def test_streamed_flood_is_bounded_per_message(
    tool: BashTool, ctx: ToolContext, progress: list[dict[str, str]]
) -> None:
    out = await run(tool, ctx, command="head -c 3000000 /dev/zero | tr '\\0' x")
    assert out.meta["output_chars"] == 3_000_000
    sizes = [len(p["output"]) for p in progress if "output" in p]
    assert max(sizes) < 20_000
    assert progress[-1]["output"].endswith("x")
    assert any("output skipped" in p["output"] for p in progress)


async def test_output_cap_keeps_head_and_tail(tool: BashTool, ctx: ToolContext) -> None:
    out = await run(tool, ctx, command="seq 1 200000")
    body = out.content
    assert body.startswith("1\n2\n3\n")
    assert "200000\n[exit code 0]" in body
    assert "characters cut …]" in body
    assert len(body) < OUTPUT_LIMIT + 500
    total = sum(len(f"{i}\n") for i in range(1, 200001))
    assert out.meta["output_chars"] == total
    assert out.meta["truncated"]
    # no number is split by the cut: every kept line is a whole number
    kept = [ln for ln in body.splitlines() if not ln.startswith("[")]
    assert all(ln.isdigit() for ln in kept)
    assert "200,000 lines" in out.summary or "200000 lines" in out.summary


def test_collector_memory_is_bounded() -> None:
    c = OutputCollector(limit=100)
    for _ in range(10_000):
        c.add("x" * 37 + "\n")
    assert c.total_chars == 380_000
    assert len(c._tail) <= 2 * c.tail_limit
    assert sum(len(h) for h in c._head) == c.head_limit
    text = c.text()
    cut = int(text.split("[… ")[1].split(" characters")[0].replace(",", ""))
    kept = len(text.replace(f"[… {cut:,} characters cut …]\n", ""))
    assert cut + kept == c.total_chars
    assert c.lines == 10_000


def test_collector_short_output_kept_whole() -> None:
    c = OutputCollector(limit=100)
    data = "abc\n" * 25  # exactly 100 chars
    for ch in data:
        c.add(ch)
    assert c.text() == data


async def _pid_after(tmp_path: Path, name: str) -> int:
    return int(await _wait_for_file(tmp_path / name))


async def test_timeout_kills_process_group(
    tool: BashTool, ctx: ToolContext, tmp_path: Path
) -> None:
    # A grandchild that ignores SIGTERM needs the SIGKILL after the grace period.
    cmd = "bash -c 'trap \"\" TERM; echo $$ > gc.pid; while :; do sleep 0.05; done' & wait"
    out = await run(tool, ctx, command=cmd, timeout_ms=300)
    assert out.is_error
    assert out.meta["timed_out"]
    assert "timed out after 0.3s" in out.content
    assert out.summary.startswith("timed out")
    pid = await _pid_after(tmp_path, "gc.pid")
    assert await _wait_dead(pid)


async def test_cancel_kills_process_group(tool: BashTool, ctx: ToolContext, tmp_path: Path) -> None:
    cmd = "sleep 100 & echo $! > a.pid; sleep 100 & echo $! > b.pid; wait"
    task = asyncio.create_task(tool.run(tool.validate({"command": cmd}), ctx))
    a = await _pid_after(tmp_path, "a.pid")
    b = await _pid_after(tmp_path, "b.pid")
    assert _alive(a)
    assert _alive(b)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, WAIT)
    assert await _wait_dead(a)
    assert await _wait_dead(b)


async def test_background_job_holding_output_does_not_hang(
    tool: BashTool, ctx: ToolContext, tmp_path: Path
) -> None:
    tool.drain_s = 0.1
    out = await run(tool, ctx, command="sleep 100 & echo $! > bg.pid; echo done")
    pid = int((tmp_path / "bg.pid").read_text())
    try:
        assert out.content.startswith("done\n")
        assert "background processes" in out.content
        assert not out.is_error
    finally:
        os.kill(pid, 9)


async def test_timeout_clamped_and_said(tool: BashTool, ctx: ToolContext) -> None:
    out = await run(tool, ctx, command="echo ok", timeout_ms=MAX_TIMEOUT_MS * 3)
    assert out.meta["timeout_ms"] == MAX_TIMEOUT_MS
    assert "clamped" in out.content
    out = await run(tool, ctx, command="echo ok")
    assert out.meta["timeout_ms"] == 120_000
    assert "clamped" not in out.content


def test_validation(tool: BashTool) -> None:
    with pytest.raises(ToolInputError, match="command"):
        tool.validate({})
    with pytest.raises(ToolInputError, match="command"):
        tool.validate({"command": ""})
    with pytest.raises(ToolInputError, match="timeout"):
        tool.validate({"command": "ls", "timeout_ms": 0})
    with pytest.raises(ToolInputError):
        tool.validate({"command": 3})
    params = tool.validate({"command": "ls -la", "description": "list"})
    assert tool.subject(params) == "ls -la"


def test_schema(tool: BashTool) -> None:
    schema = tool.schema()
    assert schema["name"] == "Bash"
    props = schema["input_schema"]["properties"]
    assert set(props) == {
        "command",
        "timeout",
        "description",
        "run_in_background",
        "dangerouslyDisableSandbox",
    }
    assert schema["input_schema"]["required"] == ["command"]
    assert not tool.read_only


async def test_binary_output_is_said_to_be_binary(ctx: ToolContext) -> None:
    tool = BashTool()
    out = await run(tool, ctx, command=r"printf 'ok\n\x89PNG\xff\xfe\x00 end\n'")
    assert "ok" in out.content and "\ufffd" in out.content
    assert "not UTF-8 text (binary output?)" in out.content
    plain = await run(tool, ctx, command="echo plain")
    assert "UTF-8" not in plain.content
