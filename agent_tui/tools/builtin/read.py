"""The `Read` tool: a window of a text file's lines, numbered, long lines clipped, the whole
result bounded; huge files are read line by line, never into memory at once."""

from __future__ import annotations

import asyncio
import codecs
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import AliasChoices, BaseModel, Field

from agent_tui import pathutil
from agent_tui.tools.base import Tool, ToolContext, ToolOutput
from agent_tui.tools.media import read_media
from agent_tui.tools.text_files import (
    DEFAULT_READ_LIMIT,
    LINE_CHUNK,
    MAX_LINE_CHARS,
    MAX_READ_CHARS,
    MAX_WHOLE_FILE,
    NotText,
    ToolFailure,
    binary_message,
    check_regular,
    clip_line,
    decode_text,
    detect_bom,
    human_size,
    numbered,
    open_error,
    plural,
    undecodable_message,
)


class ReadInput(BaseModel):
    file_path: str = Field(
        min_length=1,
        # Claude Code's name; `path` is still read, for sessions stored before the rename
        validation_alias=AliasChoices("file_path", "path"),
        description="The file to read: absolute, or relative to the working directory.",
    )
    offset: int | None = Field(
        default=None, ge=1, description="The line number to start at (1-based). Default: 1."
    )
    limit: int | None = Field(
        default=None,
        ge=1,
        description=f"How many lines to read. Default: {DEFAULT_READ_LIMIT}.",
    )


@dataclass(slots=True)
class _ReadResult:
    lines: list[tuple[int, str]]
    total: int
    cut_lines: int
    capped: bool


def _read_window(path: Path, first: int, limit: int) -> _ReadResult:
    """Lines `first`..`first+limit-1`, numbered, and the file's line count; streams the file so
    memory stays bounded however large it is."""
    size = path.stat().st_size
    with path.open("rb") as f:
        head = f.read(8192)
        bom, codec = detect_bom(head)
        if codec != "utf-8":
            if size > MAX_WHOLE_FILE:
                raise ToolFailure(f"{path} is a {codec} file of {human_size(size)}; too large.")
            f.seek(0)
            return _window_of_text(decode_text(f.read(), path).text, first, limit)
        if b"\x00" in head:
            raise NotText(binary_message(path, size, head))
        f.seek(len(bom))
        out: list[tuple[int, str]] = []
        out_chars = 0
        capped = False
        cut_lines = 0
        n = 0
        offset = len(bom)
        decoder = codecs.getincrementaldecoder("utf-8")("strict")
        while raw := f.readline(LINE_CHUNK):
            n += 1
            start_offset = offset
            offset += len(raw)
            extra = 0
            if not raw.endswith(b"\n"):
                # Longer than one chunk: skip (but count) the rest of the line.
                while (more := f.readline(LINE_CHUNK)) and not more.endswith(b"\n"):
                    extra += len(more)
                extra += len(more)
                offset += extra
            if n < first or capped or len(out) >= limit:
                continue
            if b"\x00" in raw:
                raise NotText(binary_message(path, size, head))
            try:
                decoder.reset()
                text = decoder.decode(raw, final=not extra)
            except UnicodeDecodeError as exc:
                msg = undecodable_message(
                    path, size, head, raw[exc.start], start_offset + exc.start, codec
                )
                raise NotText(msg) from None
            line, clipped = clip_line(text, extra)
            if out and out_chars + len(line) > MAX_READ_CHARS:
                capped = True
                continue
            cut_lines += clipped
            out.append((n, line))
            out_chars += len(line) + 8
    return _ReadResult(out, n, cut_lines, capped)


def _window_of_text(text: str, first: int, limit: int) -> _ReadResult:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out: list[tuple[int, str]] = []
    out_chars = 0
    cut_lines = 0
    capped = False
    for n in range(first, min(len(lines), first + limit - 1) + 1):
        line, clipped = clip_line(lines[n - 1])
        if out and out_chars + len(line) > MAX_READ_CHARS:
            capped = True
            break
        cut_lines += clipped
        out.append((n, line))
        out_chars += len(line) + 8
    return _ReadResult(out, len(lines), cut_lines, capped)


class ReadTool(Tool):
    name: ClassVar[str] = "Read"
    subject_fields: ClassVar[tuple[str, ...]] = ("file_path", "path")
    order: ClassVar[int] = 20
    description: ClassVar[str] = (
        "Read a text file and return its lines numbered like `cat -n`: the line number, right-"
        "aligned, then a tab, then the line.\n"
        "- `path` is absolute or relative to the working directory; `~` is the home directory.\n"
        f"- By default up to {DEFAULT_READ_LIMIT} lines from the start; for longer files the "
        "result says which lines it shows and how many there are. Use `offset` (1-based line "
        "number) and `limit` to read further.\n"
        f"- Lines longer than {MAX_LINE_CHARS:,} characters are cut, with a note.\n"
        "- Images (PNG, JPEG, GIF, WebP) come back as images you can see, scaled down if very "
        "large; PDFs as documents you can read.\n"
        "- Other binary files (archives, executables, databases) are refused; use Bash for "
        "those. Directories are refused; use Bash `ls` or Glob to list them.\n"
        "- The line-number prefix is not part of the file: never include it in Edit's "
        "`old_string`."
    )
    input_model: ClassVar[type[BaseModel]] = ReadInput
    read_only: ClassVar[bool] = True

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        return await asyncio.to_thread(self._run, params, ctx)

    def _run(self, p: ReadInput, ctx: ToolContext) -> ToolOutput:
        path = pathutil.resolve(p.file_path, ctx.cwd)
        first = p.offset or 1
        limit = p.limit or DEFAULT_READ_LIMIT
        try:
            check_regular(path)
            try:
                with path.open("rb") as f:
                    media = read_media(path, f.read(16))
                if media is not None:
                    text, blocks = media
                    kind = blocks[0]["type"]
                    return ToolOutput(text, summary=kind, blocks=blocks, meta={"path": str(path)})
                res = _read_window(path, first, limit)
            except OSError as exc:
                raise open_error(exc, path, "read") from None
            except ValueError as exc:  # media that can't be sent: the reason is the message
                raise ToolFailure(str(exc)) from None
        except (ToolFailure, NotText) as exc:
            return ToolOutput(str(exc), is_error=True, summary="not read")

        if res.total == 0:
            return ToolOutput(f"(The file {path} exists but is empty.)", summary="empty file")
        if not res.lines:
            return ToolOutput(
                f"offset {first} is past the end of {path}, which has {plural(res.total, 'line')}.",
                is_error=True,
                summary="offset past end",
            )
        shown_from, shown_to = res.lines[0][0], res.lines[-1][0]
        notes: list[str] = []
        partial = shown_from > 1 or shown_to < res.total
        span = f"lines {shown_from}–{shown_to} of {res.total:,}"
        if partial:
            hint = f"; use offset={shown_to + 1} to read on" if shown_to < res.total else ""
            why = " (output size cap reached)" if res.capped else ""
            notes.append(f"[{span}{why}{hint}]")
        if res.cut_lines:
            notes.append(
                f"[{plural(res.cut_lines, 'line')} longer than {MAX_LINE_CHARS:,} characters "
                "cut; use Bash (e.g. `cut -c`) to see them whole]"
            )
        content = numbered(res.lines) + ("\n\n" + "\n".join(notes) if notes else "")
        summary = span if partial else plural(res.total, "line")
        return ToolOutput(
            content, summary=summary, meta={"total_lines": res.total, "path": str(path)}
        )


# -------------------------------------------------------------------------------------- Write
