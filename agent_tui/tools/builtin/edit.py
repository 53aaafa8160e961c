"""The `Edit` tool: replace an exact, unique string (or every occurrence with `replace_all`),
keeping the file's encoding and line endings, with a diff preview for the dialog."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import AliasChoices, BaseModel, Field

from agent_tui import pathutil
from agent_tui.diffs import (
    Hunk,
    HunksChanged,
    diff_stats,
    hunks,
    partial_change,
    unified_diff,
)
from agent_tui.tools.base import Tool, ToolContext, ToolOutput
from agent_tui.tools.text_files import (
    TextFile,
    ToolFailure,
    atomic_write,
    clip_line,
    display_path,
    not_found,
    numbered,
    open_error,
    plural,
    read_text_file,
)


class EditInput(BaseModel):
    file_path: str = Field(
        min_length=1,
        # Claude Code's name; `path` is still read, for sessions stored before the rename
        validation_alias=AliasChoices("file_path", "path"),
        description="The file to edit: absolute, or relative to the working directory.",
    )
    old_string: str = Field(
        description="The exact text to replace, including whitespace and indentation."
    )
    new_string: str = Field(description="The text to put in its place (must differ).")
    replace_all: bool = Field(
        default=False,
        description="Replace every occurrence of old_string instead of requiring exactly one.",
    )


@dataclass(frozen=True, slots=True)
class EditPlan:
    path: Path
    file: TextFile
    new_text: str
    replacements: int
    #: 1-based line numbers of the replaced text in the old file, and of the first one in the new
    lines: tuple[int, ...]
    new_start: int
    new_end: int


_LINE_PREFIX = re.compile(r"^ *\d+\t", re.MULTILINE)


def _to_crlf(s: str) -> str:
    return s.replace("\r\n", "\n").replace("\n", "\r\n")


def _find_all(text: str, sub: str) -> list[int]:
    """Start indexes of `sub`, overlapping ones included (for the uniqueness check)."""
    found: list[int] = []
    i = text.find(sub)
    while i != -1:
        found.append(i)
        i = text.find(sub, i + 1)
    return found


def plan_edit(p: EditInput, cwd: Path) -> EditPlan:
    """Work out an edit without writing anything; `ToolFailure` says why it can't be done."""
    if p.old_string == "":
        raise ToolFailure(
            "old_string is empty. Give the exact text to replace (with enough surrounding lines "
            "to be unique); to create a file or replace all of it, use Write."
        )
    if p.old_string == p.new_string:
        raise ToolFailure("old_string and new_string are identical; there is nothing to change.")
    path = pathutil.resolve(p.file_path, cwd)
    if not path.exists():
        raise ToolFailure(not_found(path) + " To create a new file, use Write.")
    file = read_text_file(path)
    text = file.text

    # A CRLF file read through Read shows LF lines, so the model's strings usually carry "\n":
    # match them in the file's own line endings, and write new_string in them too.
    crlf = text.count("\r\n") * 2 > text.count("\n")
    pairs = [(p.old_string, p.new_string)]
    if crlf:
        pairs.insert(0, (_to_crlf(p.old_string), _to_crlf(p.new_string)))
    elif "\r\n" in p.old_string:
        pairs.append((p.old_string.replace("\r\n", "\n"), p.new_string.replace("\r\n", "\n")))
    found = next(((o, n, h) for o, n in pairs if (h := _find_all(text, o))), None)
    if found is None:
        msg = (
            f"old_string was not found in {path}. It must match the file exactly, including "
            "whitespace, indentation and line breaks; Read the file again to copy the text."
        )
        if _LINE_PREFIX.search(p.old_string):
            msg += (
                " old_string seems to include the line-number prefixes that Read adds; "
                "leave them out."
            )
        raise ToolFailure(msg)
    old, new, hits = found

    def line_of(i: int) -> int:
        return text.count("\n", 0, i) + 1

    if len(hits) > 1 and not p.replace_all:
        where = ", ".join(str(line_of(i)) for i in hits[:10]) + (", …" if len(hits) > 10 else "")
        raise ToolFailure(
            f"old_string occurs {len(hits)} times in {path} (at lines {where}). Include more "
            "surrounding lines in old_string so it matches exactly one place, or set "
            "replace_all to true to replace every occurrence."
        )
    first = hits[0]
    if p.replace_all:
        count = text.count(old)
        new_text = text.replace(old, new)
        starts = [first]  # for the line list: non-overlapping matches, which replace() uses
        j = text.find(old, first + len(old))
        while j != -1:
            starts.append(j)
            j = text.find(old, j + len(old))
    else:
        count = 1
        new_text = text[:first] + new + text[first + len(old) :]
        starts = [first]
    new_start = line_of(first)
    new_end = new_start + new.count("\n")
    try:
        file.encode(new_text)
    except UnicodeEncodeError as exc:
        raise ToolFailure(
            f"new_string cannot be written in the file's encoding ({file.codec}): {exc.reason}."
        ) from None
    return EditPlan(
        path, file, new_text, count, tuple(line_of(i) for i in starts), new_start, new_end
    )


class EditTool(Tool):
    name: ClassVar[str] = "Edit"
    subject_fields: ClassVar[tuple[str, ...]] = ("file_path", "path")
    order: ClassVar[int] = 40
    description: ClassVar[str] = (
        "Replace text in an existing file: `old_string` must occur exactly once (or set "
        "`replace_all` to replace every occurrence), and is replaced by `new_string`.\n"
        "- Read the file first and copy `old_string` exactly, including indentation and line "
        "breaks, but without the line-number prefix that Read adds.\n"
        "- If `old_string` occurs more than once, include more surrounding lines so it matches "
        "exactly one place; use `replace_all` for renames.\n"
        "- The file keeps its encoding and line endings (CRLF files stay CRLF). To create a "
        "file, use Write.\n"
        "- The person sees a diff of the change before approving it."
    )
    input_model: ClassVar[type[BaseModel]] = EditInput

    def changed_path(self, params: Any, cwd: Path) -> Path | None:
        return pathutil.resolve(params.file_path, cwd)

    def hunks(self, params: Any, ctx: ToolContext) -> list[Hunk]:
        try:
            plan = plan_edit(params, ctx.cwd)
        except ToolFailure:
            return []
        return hunks(plan.file.text, plan.new_text)

    def preview(self, params: Any, ctx: ToolContext) -> str | None:
        try:
            plan = plan_edit(params, ctx.cwd)
        except ToolFailure as exc:
            return f"(This edit will fail: {exc})"
        return unified_diff(plan.file.text, plan.new_text, display_path(plan.path, ctx.cwd))

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        return await asyncio.to_thread(self._run, params, ctx)

    def _run(self, p: EditInput, ctx: ToolContext) -> ToolOutput:
        note = ""
        try:
            plan = plan_edit(p, ctx.cwd)
            if ctx.hunks is not None:
                new_text, note = partial_change(plan.file.text, plan.new_text, ctx.hunks)
                plan = dataclasses.replace(plan, new_text=new_text)
            try:
                atomic_write(plan.path, plan.file.encode(plan.new_text))
            except OSError as exc:
                raise open_error(exc, plan.path, "write") from None
        except (ToolFailure, HunksChanged) as exc:
            return ToolOutput(str(exc), is_error=True, summary="not edited")

        stats = diff_stats(plan.file.text, plan.new_text)
        where = ", ".join(str(n) for n in plan.lines[:10]) + ("…" if len(plan.lines) > 10 else "")
        head = (
            f"Edited {plan.path}: replaced {plural(plan.replacements, 'occurrence')} "
            f"(line{'s' if len(plan.lines) > 1 else ''} {where})."
        )
        # A few numbered lines around the (first) change, so the model can check the result
        # without another Read.
        new_lines = plan.new_text.split("\n")
        lo = max(1, plan.new_start - 3)
        hi = min(len(new_lines), plan.new_end + 3, lo + 40)
        snippet = numbered([(n, clip_line(new_lines[n - 1])[0]) for n in range(lo, hi + 1)])
        shown = display_path(plan.path, ctx.cwd)
        return ToolOutput(
            f"{head}\n{snippet}" + (f"\n{note}" if note else ""),
            summary=f"edited {shown} · {stats}",
            meta={"path": str(plan.path), "replacements": plan.replacements},
        )
