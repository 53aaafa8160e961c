from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from agent_tui.tools.base import ToolContext, ToolInputError, ToolOutput
from agent_tui.tools.diffs import diff_stats, unified_diff
from agent_tui.tools.files import (
    MAX_LINE_CHARS,
    EditTool,
    ReadTool,
    WriteTool,
    atomic_write,
    builtin_file_tools,
)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, data_dir=tmp_path / ".data")


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
    (tmp_path / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 2000)
    out = await call(ReadTool(), ctx, path="img.png")
    assert out.is_error
    assert "binary" in out.content
    assert "PNG image" in out.content
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


# ---------------------------------------------------------------------------------------- Write


async def test_write_new_file_creates_parents(ctx: ToolContext, tmp_path: Path) -> None:
    tool = WriteTool()
    params = tool.validate({"path": "a/b/new.txt", "content": "hi\nthere\n"})
    preview = tool.preview(params, ctx)
    assert preview is not None
    assert preview.startswith("--- /dev/null\n+++ b/a/b/new.txt\n@@ -0,0 +1,2 @@\n+hi\n+there")
    assert not (tmp_path / "a").exists()  # preview writes nothing
    out = await tool.run(params, ctx)
    assert not out.is_error
    assert (tmp_path / "a/b/new.txt").read_text() == "hi\nthere\n"
    assert out.content.startswith("Created ")
    assert "9 bytes, 2 lines" in out.content
    assert out.meta["created"]
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / "a/b/new.txt").stat().st_mode) == 0o666 & ~umask


async def test_write_overwrite_keeps_mode(ctx: ToolContext, tmp_path: Path) -> None:
    f = tmp_path / "run.sh"
    f.write_text("echo old\n")
    f.chmod(0o751)
    tool = WriteTool()
    params = tool.validate({"path": "run.sh", "content": "echo new\n"})
    preview = tool.preview(params, ctx)
    assert preview is not None
    assert "--- a/run.sh\n+++ b/run.sh" in preview
    assert "-echo old\n+echo new" in preview
    out = await tool.run(params, ctx)
    assert out.content.startswith("Overwrote ")
    assert "it had 9 bytes" in out.content
    assert not out.meta["created"]
    assert f.read_text() == "echo new\n"
    assert stat.S_IMODE(f.stat().st_mode) == 0o751
    assert [p.name for p in tmp_path.iterdir()] == ["run.sh"]  # no temp file left


async def test_write_is_atomic(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "keep.txt"
    f.write_text("original\n")
    inode = f.stat().st_ino

    def boom(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    out = await call(WriteTool(), ctx, path="keep.txt", content="new content\n")
    assert out.is_error
    assert "No space left" in out.content
    assert f.read_text() == "original\n"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]
    monkeypatch.undo()
    atomic_write(f, b"replaced\n")
    assert f.read_text() == "replaced\n"
    assert f.stat().st_ino != inode  # a new file renamed over the old one, not rewritten in place


async def test_write_through_symlink_keeps_link(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("a\n")
    (tmp_path / "link.txt").symlink_to(target)
    await call(WriteTool(), ctx, path="link.txt", content="b\n")
    assert (tmp_path / "link.txt").is_symlink()
    assert target.read_text() == "b\n"


async def test_write_errors(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    out = await call(WriteTool(), ctx, path="d", content="x")
    assert out.is_error
    assert "directory" in out.content
    (tmp_path / "file").write_text("x")
    out = await call(WriteTool(), ctx, path="file/child.txt", content="x")
    assert out.is_error
    assert "not a directory" in out.content


async def test_write_refuses_read_only_file(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "ro.txt"
    f.write_text("keep\n")
    f.chmod(0o444)
    if os.geteuid() == 0:  # access() says yes to root: simulate an ordinary user
        monkeypatch.setattr(os, "access", lambda *_a, **_k: False)
    out = await call(WriteTool(), ctx, path="ro.txt", content="x")
    assert out.is_error
    assert "Permission denied" in out.content
    assert f.read_text() == "keep\n"


def test_write_preview_of_binary_and_large(ctx: ToolContext, tmp_path: Path) -> None:
    tool = WriteTool()
    (tmp_path / "blob").write_bytes(b"\x00\x01\x02")
    preview = tool.preview(tool.validate({"path": "blob", "content": "text\n"}), ctx)
    assert preview is not None
    assert preview.startswith("(replaces a file that is not text, 3 bytes)")
    big = "".join(f"{i}\n" for i in range(10_000))
    preview = tool.preview(tool.validate({"path": "big", "content": big}), ctx)
    assert preview is not None
    assert preview.count("\n") < 500
    assert preview.endswith("more lines …]")


def test_write_validation() -> None:
    tool = WriteTool()
    with pytest.raises(ToolInputError, match="content"):
        tool.validate({"path": "a"})
    assert not tool.read_only


# ----------------------------------------------------------------------------------------- Edit


async def test_edit_unique(ctx: ToolContext, tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    tool = EditTool()
    params = tool.validate(
        {"path": "m.py", "old_string": "    return 2\n", "new_string": "    return 3\n"}
    )
    preview = tool.preview(params, ctx)
    assert preview is not None
    assert preview.startswith("--- a/m.py\n+++ b/m.py\n@@ -3,4 +3,4 @@")
    assert "-    return 2\n+    return 3" in preview
    assert "return 2" in f.read_text()  # preview writes nothing
    out = await tool.run(params, ctx)
    assert not out.is_error
    assert f.read_text() == "def f():\n    return 1\n\n\ndef g():\n    return 3\n"
    assert "replaced 1 occurrence (line 6)" in out.content
    assert "     6\t    return 3" in out.content  # snippet of the result
    assert out.summary.endswith("+1 −1")


async def test_edit_not_unique(ctx: ToolContext, tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text("x = 1\ny = 2\nx = 1\nx = 1\n")
    out = await call(EditTool(), ctx, path="a.txt", old_string="x = 1", new_string="x = 9")
    assert out.is_error
    assert "occurs 3 times" in out.content
    assert "lines 1, 3, 4" in out.content
    assert "replace_all" in out.content
    assert f.read_text() == "x = 1\ny = 2\nx = 1\nx = 1\n"

    out = await call(
        EditTool(), ctx, path="a.txt", old_string="x = 1", new_string="x = 9", replace_all=True
    )
    assert not out.is_error
    assert f.read_text() == "x = 9\ny = 2\nx = 9\nx = 9\n"
    assert "replaced 3 occurrences (lines 1, 3, 4)" in out.content


async def test_edit_overlapping_matches_are_not_unique(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("aaa\n")
    out = await call(EditTool(), ctx, path="a.txt", old_string="aa", new_string="b")
    assert out.is_error
    assert "occurs 2 times" in out.content


async def test_edit_failures(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    tool = EditTool()
    out = await call(tool, ctx, path="gone.txt", old_string="a", new_string="b")
    assert out.is_error
    assert "File not found" in out.content
    assert "Write" in out.content

    out = await call(tool, ctx, path="a.txt", old_string="", new_string="b")
    assert out.is_error
    assert "old_string is empty" in out.content

    out = await call(tool, ctx, path="a.txt", old_string="hello", new_string="hello")
    assert out.is_error
    assert "identical" in out.content

    out = await call(tool, ctx, path="a.txt", old_string="goodbye", new_string="x")
    assert out.is_error
    assert "not found" in out.content

    out = await call(tool, ctx, path="a.txt", old_string="     1\thello", new_string="x")
    assert "line-number prefixes" in out.content

    params = tool.validate({"path": "a.txt", "old_string": "nope", "new_string": "x"})
    preview = tool.preview(params, ctx)
    assert preview is not None
    assert preview.startswith("(This edit will fail: old_string was not found")

    (tmp_path / "bin").write_bytes(b"\x00\x01hello")
    out = await call(tool, ctx, path="bin", old_string="hello", new_string="x")
    assert out.is_error
    assert "binary" in out.content
    assert (tmp_path / "a.txt").read_text() == "hello\n"


async def test_edit_preserves_crlf(ctx: ToolContext, tmp_path: Path) -> None:
    f = tmp_path / "win.txt"
    f.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    tool = EditTool()
    params = tool.validate({"path": "win.txt", "old_string": "two\nthree", "new_string": "2\n3\n4"})
    preview = tool.preview(params, ctx)
    assert preview is not None
    assert "\r" not in preview
    assert "-two\n-three\n+2\n+3\n+4" in preview
    out = await tool.run(params, ctx)
    assert not out.is_error
    assert f.read_bytes() == b"one\r\n2\r\n3\r\n4\r\n"


async def test_edit_preserves_encoding_and_mode(ctx: ToolContext, tmp_path: Path) -> None:
    f = tmp_path / "u16.txt"
    f.write_bytes(b"\xff\xfe" + "naïve\ncafé\n".encode("utf-16-le"))
    f.chmod(0o640)
    out = await call(EditTool(), ctx, path="u16.txt", old_string="café", new_string="thé")
    assert not out.is_error
    assert f.read_bytes() == b"\xff\xfe" + "naïve\nthé\n".encode("utf-16-le")
    assert stat.S_IMODE(f.stat().st_mode) == 0o640

    g = tmp_path / "bom.txt"
    g.write_bytes(b"\xef\xbb\xbfa\nb\n")
    await call(EditTool(), ctx, path="bom.txt", old_string="b", new_string="c")
    assert g.read_bytes() == b"\xef\xbb\xbfa\nc\n"


def test_edit_validation() -> None:
    tool = EditTool()
    with pytest.raises(ToolInputError, match="old_string"):
        tool.validate({"path": "a", "new_string": "b"})
    params = tool.validate({"path": "a", "old_string": "x", "new_string": "y"})
    assert params.replace_all is False
    assert tool.subject(params) == "a"


# ---------------------------------------------------------------------------------------- misc


def test_unified_diff_no_newline_at_eof() -> None:
    diff = unified_diff("a\nb", "a\nc", "f.txt")
    assert diff.endswith("-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file")
    assert unified_diff("same\n", "same\n", "f.txt") == "(no changes to f.txt)"


def test_diff_stats() -> None:
    assert str(diff_stats("a\nb\nc\n", "a\nB\nc\nd\n")) == "+2 −1"
    assert str(diff_stats(None, "+++x\n---y\n")) == "+2 −0"


def test_builtin_file_tools() -> None:
    tools = builtin_file_tools()
    assert [t.name for t in tools] == ["Read", "Write", "Edit"]
    for t in tools:
        schema = t.schema()
        assert schema["description"]
        assert "path" in schema["input_schema"]["required"]
