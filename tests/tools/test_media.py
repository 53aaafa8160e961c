"""Images and PDFs: Read returns image and document blocks (large images scaled down), a damaged
image is a clear error, and image paths pasted or dropped into a prompt are attached."""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path

from PIL import Image

from agent_tui.agent.conversation import Conversation
from agent_tui.agent.tool_runner import tool_result
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.read import ReadTool
from agent_tui.tools.media import MAX_EDGE, MAX_IMAGE_BYTES, prompt_attachments

PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"


def png(path: Path, size: tuple[int, int], noise: bool = False) -> Path:
    image = (
        Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3))
        if noise
        else (Image.new("RGB", size, (200, 30, 30)))
    )
    image.save(path, "PNG")
    return path


async def read(ctx: ToolContext, path: Path):  # type: ignore[no-untyped-def]
    tool = ReadTool()
    return await tool.run(tool.validate({"path": str(path)}), ctx)


async def test_read_returns_an_image_block(ctx: ToolContext, tmp_path: Path) -> None:
    out = await read(ctx, png(tmp_path / "red.png", (40, 20)))
    assert not out.is_error and "40×20" in out.content
    (block,) = out.blocks or []
    assert block["type"] == "image" and block["source"]["media_type"] == "image/png"
    decoded = Image.open(io.BytesIO(base64.b64decode(block["source"]["data"])))
    assert decoded.size == (40, 20)
    # and the tool_result carries it after the text
    result = tool_result("toolu_1", out)
    assert [b["type"] for b in result["content"]] == ["text", "image"]


async def test_a_large_image_is_scaled_down(ctx: ToolContext, tmp_path: Path) -> None:
    big = png(tmp_path / "photo.png", (1400, 1400), noise=True)
    assert big.stat().st_size > MAX_IMAGE_BYTES
    out = await read(ctx, big)
    (block,) = out.blocks or []
    data = base64.b64decode(block["source"]["data"])
    assert len(data) <= MAX_IMAGE_BYTES
    assert max(Image.open(io.BytesIO(data)).size) <= MAX_EDGE
    assert "sent scaled to" in out.content


async def test_a_pdf_is_a_document_and_a_damaged_image_an_error(
    ctx: ToolContext, tmp_path: Path
) -> None:
    (tmp_path / "doc.pdf").write_bytes(PDF)
    out = await read(ctx, tmp_path / "doc.pdf")
    assert out.blocks and out.blocks[0]["type"] == "document"
    assert base64.b64decode(out.blocks[0]["source"]["data"]) == PDF
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 10)
    out = await read(ctx, tmp_path / "broken.png")
    assert out.is_error and "could not be read" in out.content


def test_image_paths_in_a_prompt_are_attached(tmp_path: Path) -> None:
    folder = tmp_path / "my shots"
    folder.mkdir()
    png(folder / "screen shot.png", (10, 10))
    png(tmp_path / "b.jpg.png", (5, 5))
    prompt = f"what is wrong here? '{folder / 'screen shot.png'}' and b.jpg.png and nope.png"
    blocks, notes = prompt_attachments(prompt, tmp_path)
    assert len(blocks) == 2 and all(b["type"] == "image" for b in blocks)
    assert notes[0].startswith("attached ") and "10×10" in notes[0]
    conversation = Conversation()
    conversation.add_prompt(prompt, blocks)
    assert [b["type"] for b in conversation.messages[0]["content"]] == ["text", "image", "image"]
    assert prompt_attachments("no images here, just words.png?", tmp_path) == ([], [])
