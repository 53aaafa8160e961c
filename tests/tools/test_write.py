"""The Write tool."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from agent_tui.tools.base import ToolContext, ToolInputError, ToolOutput
from agent_tui.tools.builtin.write import WriteTool
from agent_tui.tools.text_files import atomic_write


async def call(tool: Any, ctx: ToolContext, **raw: Any) -> ToolOutput:
    return await tool.run(tool.validate(raw), ctx)


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
