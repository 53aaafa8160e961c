"""The Read tool."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agent_tui.tools.base import ToolContext, ToolInputError, ToolOutput
from agent_tui.tools.builtin.read import ReadTool
from agent_tui.tools.text_files import MAX_LINE_CHARS


async def call(tool: Any, ctx: ToolContext, **raw: Any) -> ToolOutput:
    return await tool.run(tool.validate(raw), ctx)


def numbered(lines: list[str], start: int = 1) -> str:
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, start))


# ----------------------------------------------------------------------------------------- Read


async def test_read_numbers_lines(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n\tthree\n")
    out = await call(ReadTool(), ctx, path="a.txt")
    assert not out.is_error
    assert out.content == "     1\tone\n     2\ttwo\n     3\t\tthree"
    assert out.summary == "3 lines"


async def test_read_no_trailing_newline_and_crlf(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"one\r\ntwo")
    out = await call(ReadTool(), ctx, path=str(tmp_path / "a.txt"))
    assert out.content == numbered(["one", "two"])


async def test_read_offset_and_limit(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 5235)))
    out = await call(ReadTool(), ctx, path="big.txt")
    assert out.content.startswith(numbered(["line 1", "line 2"]))
    assert "  2000\tline 2000\n\n" in out.content
    assert "  2001\t" not in out.content
    assert "[lines 1–2000 of 5,234; use offset=2001 to read on]" in out.content
    assert out.summary == "lines 1–2000 of 5,234"

    out = await call(ReadTool(), ctx, path="big.txt", offset=10, limit=3)
    assert out.content.startswith(numbered(["line 10", "line 11", "line 12"], 10) + "\n\n")
    assert "[lines 10–12 of 5,234; use offset=13 to read on]" in out.content

    out = await call(ReadTool(), ctx, path="big.txt", offset=5230)
    assert out.content.startswith(numbered([f"line {i}" for i in range(5230, 5235)], 5230))
    assert "[lines 5230–5234 of 5,234]" in out.content

    out = await call(ReadTool(), ctx, path="big.txt", offset=6000)
    assert out.is_error
    assert "past the end" in out.content
    assert "5,234 lines" in out.content


async def test_read_long_line_cut(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text("x" * 5000 + "\nshort\n")
    out = await call(ReadTool(), ctx, path="long.txt")
    first = out.content.splitlines()[0]
    assert first.startswith("     1\t" + "x" * MAX_LINE_CHARS + " [… line cut: 3,000 more")
    assert "     2\tshort" in out.content
    assert "1 line longer than 2,000 characters cut" in out.content


async def test_read_huge_single_line_streams(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("é" * 300_000 + "\nend\n")
    out = await call(ReadTool(), ctx, path="min.js")
    assert not out.is_error
    assert out.content.startswith("     1\t" + "é" * MAX_LINE_CHARS + " [… line cut")
    assert "     2\tend" in out.content


async def test_read_refuses_binary(ctx: ToolContext, tmp_path: Path) -> None:
    # images and PDFs are sent as such (tests/tools/test_media.py); other binaries are refused
    (tmp_path / "data.gz").write_bytes(b"\x1f\x8b" + b"\x00" * 2006)
    out = await call(ReadTool(), ctx, path="data.gz")
    assert out.is_error
    assert "binary" in out.content
    assert "gzip archive" in out.content
    assert "2.0 KB (2,008 bytes)" in out.content


async def test_read_refuses_undecodable(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "latin1.txt").write_bytes("ok\ncafé\n".encode("latin-1"))
    out = await call(ReadTool(), ctx, path="latin1.txt")
    assert out.is_error
    assert "not UTF-8 text" in out.content
    assert "0xe9" in out.content
    assert "offset 6" in out.content
    assert "8 bytes" in out.content
    assert "text/plain" not in out.content


async def test_read_utf8_bom_and_utf16(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbfhello\n")
    out = await call(ReadTool(), ctx, path="bom.txt")
    assert out.content == numbered(["hello"])
    (tmp_path / "u16.txt").write_text("héllo\nworld\n", encoding="utf-16")
    out = await call(ReadTool(), ctx, path="u16.txt")
    assert out.content == numbered(["héllo", "world"])


async def test_read_missing_dir_empty(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    out = await call(ReadTool(), ctx, path="note.txt")
    assert out.is_error
    assert "File not found" in out.content
    assert "notes.txt" in out.content  # suggested

    out = await call(ReadTool(), ctx, path="nodir/x.txt")
    assert out.is_error
    assert "does not exist either" in out.content

    (tmp_path / "sub").mkdir()
    out = await call(ReadTool(), ctx, path="sub")
    assert out.is_error
    assert "is a directory" in out.content
    assert "ls" in out.content

    (tmp_path / "empty").write_text("")
    out = await call(ReadTool(), ctx, path="empty")
    assert not out.is_error
    assert "empty" in out.content


async def test_read_refuses_fifo(ctx: ToolContext, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    out = await call(ReadTool(), ctx, path="pipe")
    assert out.is_error
    assert "not a regular file" in out.content


async def test_read_permission_denied(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "secret"
    f.write_text("x")
    f.chmod(0)
    if os.geteuid() == 0:  # root reads anything: simulate the refusal

        def denied(*_: object, **__: object) -> None:
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(Path, "open", denied)
    out = await call(ReadTool(), ctx, path="secret")
    assert out.is_error
    assert "Permission denied" in out.content


async def test_read_expands_home(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "h.txt").write_text("home\n")
    monkeypatch.setenv("HOME", str(home))
    out = await call(ReadTool(), ctx, path="~/h.txt")
    assert out.content == numbered(["home"])


def test_read_validation() -> None:
    tool = ReadTool()
    assert tool.read_only
    with pytest.raises(ToolInputError, match="path"):
        tool.validate({})
    with pytest.raises(ToolInputError, match="offset"):
        tool.validate({"path": "a", "offset": 0})
    with pytest.raises(ToolInputError, match="limit"):
        tool.validate({"path": "a", "limit": -1})
    assert tool.subject(tool.validate({"path": "src/a.py"})) == "src/a.py"
