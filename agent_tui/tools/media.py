"""Images and PDFs for the model: Read on a PNG/JPEG/GIF/WebP returns an image block (downscaled
with Pillow when too large for the API), on a PDF a document block; an image path pasted or
dropped into a prompt is attached to it. Kinds are told by their first bytes, not their names."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path
from typing import Any

from agent_tui import pathutil

#: raw bytes an image may have as sent (the API takes 5 MB of base64, about 3.75 MB raw)
MAX_IMAGE_BYTES = 3_750_000
#: the long edge an oversized image is scaled down to (the API's own resize target)
MAX_EDGE = 1568
#: PDFs larger than this are refused (the API's request limit is 32 MB)
MAX_PDF_BYTES = 20_000_000
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")


def media_type(head: bytes) -> str | None:
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    return None


def _human(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 1_000_000 else f"{n / 1000:.0f} KB"


def image_block(data: bytes, kind: str) -> tuple[dict[str, Any], str]:
    """An image block for `data`, scaled down if it is too big; (block, what was sent)."""
    from PIL import Image  # deferred: only images need it

    with Image.open(io.BytesIO(data)) as image:
        width, height = image.size
        note = f"{width}×{height}, {_human(len(data))}"
        if len(data) > MAX_IMAGE_BYTES or max(width, height) > 8000:
            image.thumbnail((MAX_EDGE, MAX_EDGE))
            out = io.BytesIO()
            if kind == "image/png" and image.mode in ("RGBA", "LA", "P"):
                image.save(out, "PNG", optimize=True)
            else:
                image.convert("RGB").save(out, "JPEG", quality=85)
                kind = "image/jpeg"
            data = out.getvalue()
            note += f"; sent scaled to {image.width}×{image.height}, {_human(len(data))}"
    source = {"type": "base64", "media_type": kind, "data": base64.b64encode(data).decode()}
    return {"type": "image", "source": source}, note


def read_media(path: Path, head: bytes) -> tuple[str, list[dict[str, Any]]] | None:
    """(text, blocks) for an image or a PDF; None for anything else. Raises ValueError with a
    message for the model when the file can't be sent."""
    kind = media_type(head)
    if kind is None:
        return None
    data = path.read_bytes()
    if kind == "application/pdf":
        if len(data) > MAX_PDF_BYTES:
            raise ValueError(
                f"{path} is a PDF of {_human(len(data))}, over the {_human(MAX_PDF_BYTES)} that "
                "can be sent; extract its text with Bash (e.g. `pdftotext FILE -`)."
            )
        source = {"type": "base64", "media_type": kind, "data": base64.b64encode(data).decode()}
        return f"PDF {path} ({_human(len(data))}), attached.", [
            {"type": "document", "source": source}
        ]
    try:
        block, note = image_block(data, kind)
    except Exception as exc:  # Pillow's errors for damaged files vary by format
        raise ValueError(f"{path} looks like an image but could not be read: {exc}") from None
    return f"Image {path} ({note}), attached.", [block]


_IMAGE_WORD = re.compile(r"\.(png|jpe?g|gif|webp)$", re.IGNORECASE)


def prompt_attachments(prompt: str, cwd: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """What a prompt attaches: the files it `@`-mentions (their text) and the images whose paths
    appear in it (pasted, dropped into the terminal — quoted or with escaped spaces — or
    `@`-mentioned): (blocks, one note per attached file)."""
    from agent_tui.tools.mentions import mention_attachments

    texts, text_notes = mention_attachments(
        prompt, cwd, skip=lambda path: path.suffix.lower() in IMAGE_SUFFIXES
    )
    images, image_notes = _image_attachments(prompt, cwd)
    return texts + images, text_notes + image_notes


#: a shell word as a terminal pastes or drops a path: runs of plain characters, escaped ones
#: (`my\ file.png`) and quoted parts; an unclosed quote ends it. One pass, linear in the prompt
#: (`shlex.split` grows each word a character at a time: 18 s for 1 MB without spaces, 147 s
#: for 2 MB)
_SHELL_WORD = re.compile(r"(?:[^\s'\"\\]+|\\.|'[^']*'|\"(?:[^\"\\]|\\.)*\")+", re.DOTALL)
_QUOTED_PART = re.compile(r"\\(.)|'([^']*)'|\"((?:[^\"\\]|\\.)*)\"", re.DOTALL)
_ESCAPED = re.compile(r"\\(.)", re.DOTALL)
#: what an image's path ends with, quoted or not
_IMAGE_END = re.compile(r"\.(png|jpe?g|gif|webp)['\"]*$", re.IGNORECASE)


def _unquote(part: re.Match[str]) -> str:
    escaped, single, double = part.groups()
    if escaped is not None:
        return escaped
    if single is not None:
        return single
    return _ESCAPED.sub(r"\1", double)


def image_words(prompt: str) -> list[str]:
    """The words of `prompt` that name an image, unquoted as bash would (`'a b.png'`,
    `a\\ b.png`, `"a b.png"` -> `a b.png`)."""
    return [
        _QUOTED_PART.sub(_unquote, match.group())
        for match in _SHELL_WORD.finditer(prompt)
        if _IMAGE_END.search(match.group())
    ]


def _image_attachments(prompt: str, cwd: Path) -> tuple[list[dict[str, Any]], list[str]]:
    words = image_words(prompt)
    blocks: list[dict[str, Any]] = []
    notes: list[str] = []
    seen: set[Path] = set()
    for word in words:
        word = word.removeprefix("file://").removeprefix("@")
        if not _IMAGE_WORD.search(word):
            continue
        path = pathutil.resolve(word, cwd)
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        try:
            with path.open("rb") as f:
                kind = media_type(f.read(16))
            if kind is None or kind == "application/pdf":
                continue
            block, note = image_block(path.read_bytes(), kind)
        except (
            Exception
        ) as exc:  # unreadable or damaged (Pillow's errors vary): say so, send anyway
            notes.append(f"could not attach {path}: {exc}")
            continue
        blocks.append(block)
        notes.append(f"attached {path} ({note})")
    return blocks, notes
