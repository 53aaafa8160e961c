"""The `Write` tool: create or replace a file atomically, with a diff preview for the dialog."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, ClassVar

from pydantic import AliasChoices, BaseModel, Field

from agent_tui import pathutil
from agent_tui.diffs import Hunk, HunksChanged, hunks, partial_change, unified_diff
from agent_tui.tools.base import Tool, ToolContext, ToolOutput
from agent_tui.tools.text_files import (
    ToolFailure,
    atomic_write,
    count_lines,
    display_path,
    human_size,
    is_dir_message,
    open_error,
    plural,
    read_text_file,
)


class WriteInput(BaseModel):
    file_path: str = Field(
        min_length=1,
        # Claude Code's name; `path` is still read, for sessions stored before the rename
        validation_alias=AliasChoices("file_path", "path"),
        description="The file to write: absolute, or relative to the working directory.",
    )
    content: str = Field(description="The complete new content of the file.")


def _old_for_preview(path: Path) -> tuple[str | None, str]:
    """The current text of `path` for a diff (None: new file), and a note when it can't be
    shown as text."""
    if not path.exists():
        return None, ""
    try:
        return read_text_file(path).text, ""
    except ToolFailure:
        size = path.stat().st_size if path.is_file() else 0
        return "", f"(replaces a file that is not text, {human_size(size)})\n"


class WriteTool(Tool):
    name: ClassVar[str] = "Write"
    subject_fields: ClassVar[tuple[str, ...]] = ("file_path", "path")
    order: ClassVar[int] = 30
    description: ClassVar[str] = (
        "Write a file with the given content, replacing it entirely if it exists. Parent "
        "directories are created. The write is atomic and an existing file keeps its "
        "permissions.\n"
        "- `path` is absolute or relative to the working directory.\n"
        "- Content is written exactly as given (UTF-8); include the final newline if the file "
        "should end with one.\n"
        "- To change part of an existing file prefer Edit: it is smaller and safer. Read a file "
        "before overwriting it so you don't lose what it contains.\n"
        "- The person sees a diff of the change before approving it."
    )
    input_model: ClassVar[type[BaseModel]] = WriteInput

    def changed_path(self, params: Any, cwd: Path) -> Path | None:
        return pathutil.resolve(params.file_path, cwd)

    def hunks(self, params: Any, ctx: ToolContext) -> list[Hunk]:
        path = pathutil.resolve(params.file_path, ctx.cwd)
        old, note = (None, "") if path.is_dir() else _old_for_preview(path)
        return [] if note or old is None else hunks(old, params.content)

    def preview(self, params: Any, ctx: ToolContext) -> str | None:
        path = pathutil.resolve(params.file_path, ctx.cwd)
        if path.is_dir():
            return is_dir_message(path)
        old, note = _old_for_preview(path)
        return note + unified_diff(old, params.content, display_path(path, ctx.cwd))

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        return await asyncio.to_thread(self._run, params, ctx)

    def _run(self, p: WriteInput, ctx: ToolContext) -> ToolOutput:
        path = pathutil.resolve(p.file_path, ctx.cwd)
        shown = display_path(path, ctx.cwd)
        if path.is_dir():
            return ToolOutput(
                f"{path} is a directory; give the path of a file to write.",
                is_error=True,
                summary="not written",
            )
        content, note = p.content, ""
        if ctx.hunks is not None:
            try:
                content, note = partial_change(read_text_file(path).text, p.content, ctx.hunks)
            except (HunksChanged, ToolFailure) as exc:
                return ToolOutput(str(exc), is_error=True, summary="not written")
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError as exc:
            return ToolOutput(
                f"The content cannot be encoded as UTF-8: {exc.reason}.",
                is_error=True,
                summary="not written",
            )
        old_size = path.stat().st_size if path.is_file() else None
        try:
            created = atomic_write(path, data)
        except OSError as exc:
            return ToolOutput(
                str(open_error(exc, path, "write")), is_error=True, summary="not written"
            )
        lines = count_lines(content)
        size = f"{plural(len(data), 'byte')}, {plural(lines, 'line')}"
        if created:
            content = f"Created {path} ({size})."
        else:
            was = f"; it had {plural(old_size, 'byte')}" if old_size is not None else ""
            content = f"Overwrote {path} ({size}{was})."
        verb = "created" if created else "overwrote"
        if note:
            content, verb = f"{content}\n{note}", "partly overwrote"
        return ToolOutput(
            content,
            summary=f"{verb} {shown} · {plural(lines, 'line')}",
            meta={"path": str(path), "created": created, "bytes": len(data)},
        )


# --------------------------------------------------------------------------------------- Edit
