"""The Edit tool."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

from agent_tui.tools.base import ToolContext, ToolInputError, ToolOutput
from agent_tui.tools.builtin.edit import EditTool


async def call(tool: Any, ctx: ToolContext, **raw: Any) -> ToolOutput:
    return await tool.run(tool.validate(raw), ctx)


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
