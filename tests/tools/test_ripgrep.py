"""Running rg for Grep and Glob (issue 49): its output read in a worker thread, each piece's whole
entries told as they arrive, counted in the bytes and decoded only when taken; a cancelled search
kills rg; the byte cap stops it at a whole entry."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path

import pytest

from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.search_files import GrepTool, _Ages, _newest_first
from agent_tui.tools.ripgrep import RgResult, run_rg


def test_entries_are_counted_in_the_bytes_and_decoded_from_any_start() -> None:
    result = RgResult(b"a\0b\xff\0c\0", b"\0", 0, "", False)
    assert result.count == 3
    assert list(result.entries()) == ["a", "b\ufffd", "c"]
    assert list(result.entries(2)) == ["c"]
    assert list(result.entries(5)) == []


async def test_every_entry_is_told_once_in_order_as_it_arrives(tmp_path: Path) -> None:
    for n in range(3000):
        (tmp_path / f"f{n:04}.txt").write_text("needle\n")
    told: list[bytes] = []
    result = await run_rg(
        ["--files-with-matches", "--null", "-j1", "--sort=path", "needle", "."],
        tmp_path,
        sep=b"\0",
        on_entries=told.extend,
    )
    assert result.code == 0 and result.count == 3000 and not result.truncated
    assert told == result.raw.split(b"\0")[:-1]
    assert [t.decode() for t in told] == [f"./f{n:04}.txt" for n in range(3000)]


async def test_the_byte_cap_stops_rg_at_a_whole_entry(tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_text("".join(f"line {n} match\n" for n in range(50_000)))
    result = await run_rg(["--no-heading", "match", "many.txt"], tmp_path, max_bytes=10_000)
    assert result.truncated and result.code == 0
    assert result.raw.endswith(b"\n") and 0 < result.count < 50_000
    assert all(line.endswith(" match") for line in result.entries())


async def test_a_cancelled_search_kills_rg(tmp_path: Path) -> None:
    fifo = tmp_path / "never-ends"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"exec sleep 60 > {fifo}"])  # holds it open, silent
    try:
        task = asyncio.create_task(run_rg(["match", str(fifo)], tmp_path))
        deadline = time.monotonic() + 10
        while not _rg_reading(fifo) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert _rg_reading(fifo), "rg never opened the pipe"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        deadline = time.monotonic() + 10
        while _rg_reading(fifo) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert not _rg_reading(fifo), "rg outlived its search"
    finally:
        writer.kill()
        writer.wait()


def _rg_reading(path: Path) -> bool:
    """Some rg process has `path` open."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() != "rg":
                continue
            fds = os.listdir(f"/proc/{pid}/fd")
            if any(os.readlink(f"/proc/{pid}/fd/{fd}") == str(path) for fd in fds):
                return True
        except OSError:
            continue
    return False


async def test_a_name_with_a_newline_is_one_name(tmp_path: Path) -> None:
    for name in ["b.txt", "two\nlines.txt", "c.txt"]:
        (tmp_path / name).write_text("needle\n")
        os.utime(tmp_path / name, (1_000_000, 1_000_000))
    os.utime(tmp_path / "c.txt", (2_000_000, 2_000_000))
    ctx = ToolContext(cwd=tmp_path, data_dir=tmp_path / "data")
    tool = GrepTool()
    out = await tool.run(tool.validate({"pattern": "needle"}), ctx)
    assert out.content.startswith("c.txt\n")  # the newest first
    assert "two\nlines.txt" in out.content and out.summary == "3 files"


def test_newest_first_keeps_rg_s_order_among_equal_times(tmp_path: Path) -> None:
    result = RgResult(b"./d\0./a\0./c\0./b\0", b"\0", 0, "", False)
    with _Ages(tmp_path) as ages:
        ages.times[:] = [5.0, 7.0, 5.0, 9.0]
        names, note = _newest_first(result, ages)
    assert list(names(0)) == ["b", "a", "d", "c"] and note == ""
    assert list(names(2)) == ["d", "c"]
