"""`Grep` and `Glob`: searching the project on ripgrep (`tools/ripgrep.py`), with Claude Code's
tool names and inputs. Both respect `.gitignore`, cap what they return and say when they did,
and drop files a `Read(...)` deny rule covers (`ToolContext.read_denied`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_tui import pathutil
from agent_tui.tools.base import Tool, ToolContext, ToolOutput
from agent_tui.tools.ripgrep import (
    MAX_NAMES_BYTES,
    MAX_OUTPUT_BYTES,
    RgResult,
    RipgrepMissing,
    run_rg,
)

#: entries (files, or lines of content) returned when `head_limit` is not given
DEFAULT_ENTRIES = 250
#: characters of output at most, whatever the limit
MAX_CHARS = 40_000
#: files Glob returns at most
GLOB_LIMIT = 100
#: results beyond this many files are left in rg's order instead of sorted by time
SORT_LIMIT = 2000
#: a matched line longer than this is cut by rg (with a preview)
MAX_COLUMNS = 400


def _plural(n: int, word: str) -> str:
    ending = "" if n == 1 else ("es" if word.endswith("ch") else "s")
    return f"{n:,} {word}{ending}"


def _search_root(raw: str | None, ctx: ToolContext) -> tuple[Path, str] | ToolOutput:
    """(the resolved path, how to name it to rg so its output paths read well)."""
    path = pathutil.resolve(raw or ".", ctx.cwd)
    if not path.exists():
        return ToolOutput(f"{path} does not exist.", is_error=True, summary="no such path")
    if path.is_relative_to(ctx.cwd):
        return path, os.path.relpath(path, ctx.cwd)
    return path, str(path)


def _readable(ctx: ToolContext, *, sep: str = "\0") -> Callable[[str], bool]:
    """Is a result line (rg's `--null` output) about a file no deny rule keeps from being read?
    Asked only of the lines that are shown, so a search matching 100k files costs 250 checks."""

    def keep(line: str) -> bool:
        name = line.split(sep, 1)[0] if sep else line
        return not (name and ctx.read_denied(ctx.cwd / name))

    return keep


async def _search(args: list[str], cwd: Path, max_bytes: int) -> RgResult | ToolOutput:
    """rg's result, or the error result for the model (rg missing, a bad pattern or path)."""
    try:
        result = await run_rg(args, cwd, max_bytes)
    except RipgrepMissing as exc:
        return ToolOutput(str(exc), is_error=True, summary="rg missing")
    if result.code == 2 and not result.lines:
        why = result.error.splitlines()[-1] if result.error else "ripgrep failed"
        return ToolOutput(f"The search failed: {why}", is_error=True, summary="search failed")
    return result


class GrepInput(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    pattern: str = Field(min_length=1, description="The regular expression (ripgrep syntax).")
    path: str | None = Field(
        default=None, description="File or folder to search. Default: the working directory."
    )
    glob: str | None = Field(
        default=None, description='Only files matching this glob, e.g. "*.py" or "*.{ts,tsx}".'
    )
    type: str | None = Field(
        default=None, description='Only files of this type (rg --type), e.g. "py", "js", "rust".'
    )
    output_mode: Literal["content", "files_with_matches", "count"] = Field(
        default="files_with_matches",
        description='"content": matching lines; "files_with_matches": file paths (default, '
        'newest first); "count": matches per file.',
    )
    case_insensitive: bool | None = Field(default=None, alias="-i", description="Ignore case.")
    line_numbers: bool | None = Field(
        default=None, alias="-n", description="Line numbers (content mode; default true)."
    )
    after: int | None = Field(default=None, ge=0, alias="-A", description="Lines after a match.")
    before: int | None = Field(default=None, ge=0, alias="-B", description="Lines before.")
    context: int | None = Field(default=None, ge=0, alias="-C", description="Lines around.")
    multiline: bool | None = Field(
        default=None, description="Let patterns span lines (`.` matches newlines)."
    )
    head_limit: int | None = Field(
        default=None,
        ge=1,
        description=f"Return at most this many entries (default {DEFAULT_ENTRIES}).",
    )
    offset: int | None = Field(
        default=None,
        ge=0,
        description="Skip this many entries first (with head_limit: the next page).",
    )


class GrepTool(Tool):
    name: ClassVar[str] = "Grep"
    description: ClassVar[str] = (
        "Search file contents with a regular expression (ripgrep). Use this instead of grep or "
        "rg in Bash. Respects .gitignore and skips .git.\n"
        "- output_mode: files_with_matches (default: paths, newest first), content (matching "
        "lines, with -n line numbers and -A/-B/-C context), count (matches per file).\n"
        '- Narrow with `glob` ("*.py") or `type` ("py"); -i ignores case; multiline lets a '
        "pattern span lines.\n"
        "- Results are capped; the result says when, and head_limit sets the cap.\n"
        "- Regex syntax is ripgrep's (Rust): escape braces and parentheses meant literally."
    )
    input_model: ClassVar[type[BaseModel]] = GrepInput
    read_only: ClassVar[bool] = True

    def schema(self) -> dict[str, Any]:
        schema = self.input_model.model_json_schema(by_alias=True)
        schema.pop("title", None)
        return {"name": self.name, "description": self.description, "input_schema": schema}

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        p: GrepInput = params
        root = _search_root(p.path, ctx)
        if isinstance(root, ToolOutput):
            return root
        _, target = root
        args = ["--null", f"--max-columns={MAX_COLUMNS}", "--max-columns-preview"]
        if p.case_insensitive:
            args.append("-i")
        if p.multiline:
            args += ["-U", "--multiline-dotall"]
        if p.glob:
            args.append(f"--glob={p.glob}")
        if p.type:
            args.append(f"--type={p.type}")
        if p.output_mode == "files_with_matches":
            args.append("--files-with-matches")
        elif p.output_mode == "count":
            args.append("--count")
        else:
            args.append("--no-heading")
            if p.line_numbers is not False:
                args.append("-n")
            for flag, value in (("-A", p.after), ("-B", p.before), ("-C", p.context)):
                if value is not None:
                    args.append(f"{flag}{value}")
        cap = MAX_NAMES_BYTES if p.output_mode == "files_with_matches" else MAX_OUTPUT_BYTES
        result = await _search([*args, "--regexp", p.pattern, "--", target], ctx.cwd, cap)
        if isinstance(result, ToolOutput):
            return result
        if p.output_mode == "files_with_matches":
            lines, note = _newest_first(_names(result), ctx.cwd)
            return _report(p, lines, result.truncated, _readable(ctx, sep=""), note)
        lines = [_tidy(line) for line in result.lines]
        return _report(p, lines, result.truncated, _readable(ctx))


def _joined(line: str) -> str:
    """rg's `path NUL 12:text` (a match) or `path NUL 12-text` (context) as `path:12:text` or
    `path-12-text`, the way rg prints them without `--null`."""
    name, sep, rest = line.partition("\0")
    if not sep:
        return line
    m = _NUMBERED.match(rest)
    return f"{name}{m.group(1) if m else ':'}{rest}"


_NUMBERED = re.compile(r"\d+([:-])")


def _tidy(name: str) -> str:
    """rg names files under "." as "./x": show "x"."""
    return name[2:] if name.startswith("./") else name


def _names(result: RgResult) -> list[str]:
    """The file names of `--files` / `--files-with-matches` output with `--null`."""
    return [_tidy(n) for line in result.lines for n in line.split("\0") if n]


def _newest_first(paths: list[str], cwd: Path) -> tuple[list[str], str]:
    """Newest first, as Claude Code lists them; past SORT_LIMIT files (a stat each) in rg's
    order, and the note says so."""
    if len(paths) > SORT_LIMIT:
        return paths, f" (over {SORT_LIMIT:,} files: not sorted by time)"

    def mtime(name: str) -> float:
        try:
            return (cwd / name).stat().st_mtime
        except OSError:
            return 0.0

    return sorted(paths, key=mtime, reverse=True), ""


def _report(
    p: GrepInput,
    lines: list[str],
    truncated: bool,
    keep: Callable[[str], bool],
    order_note: str = "",
) -> ToolOutput:
    unit = {"files_with_matches": "file", "count": "file", "content": "line"}[p.output_mode]
    limit = p.head_limit or DEFAULT_ENTRIES
    skipped = min(p.offset or 0, len(lines))
    lines = lines[skipped:]
    shown: list[str] = []
    chars = 0
    denied = 0
    for line in lines:
        if len(shown) >= limit:
            break
        if not keep(line):
            denied += 1
            continue
        text = _joined(line)
        if shown and chars + len(text) > MAX_CHARS:
            break
        shown.append(text)
        chars += len(text) + 1
    if not shown:
        if skipped:
            return ToolOutput(
                f"No matches past offset {skipped:,}.", summary=f"none past {skipped:,}"
            )
        return ToolOutput("No matches found.", summary="no matches")
    seen = len(shown) + denied
    notes = []
    if seen < len(lines) or truncated:
        more = "more" if truncated else f"{len(lines) - seen:,} more"
        notes.append(
            f"[showing {_plural(len(shown), unit)}{order_note}; {more} not shown. Narrow the "
            "pattern, path or glob, or set head_limit (offset for the next page).]"
        )
    if p.output_mode == "count":
        matches = sum(int(x.rsplit(":", 1)[1]) for x in shown if x.rsplit(":", 1)[-1].isdigit())
        summary = f"{_plural(matches, 'match')} in {_plural(len(lines), 'file')}"
    elif seen == len(lines) and not truncated:
        summary = _plural(len(shown), unit)
    else:
        summary = f"{len(shown):,} of {'more' if truncated else f'{len(lines):,}'} {unit}s"
    body = "\n".join(shown) + ("\n\n" + "\n".join(notes) if notes else "")
    return ToolOutput(body, summary=summary, meta={"entries": len(lines)})


class GlobInput(BaseModel):
    pattern: str = Field(
        min_length=1,
        description='Glob of the files to find, e.g. "**/*.py" or "src/**/*.{ts,tsx}". A pattern '
        'without "/" matches at the top of `path` only; start it with "**/" for any depth.',
    )
    path: str | None = Field(
        default=None, description="The folder to search in. Default: the working directory."
    )


class GlobTool(Tool):
    name: ClassVar[str] = "Glob"
    description: ClassVar[str] = (
        'Find files by name pattern ("**/*.py", "src/**/test_*.ts"). Use this instead of '
        f"find or ls in Bash. Respects .gitignore; returns up to {GLOB_LIMIT} paths, newest "
        "first, and says when there are more."
    )
    input_model: ClassVar[type[BaseModel]] = GlobInput
    read_only: ClassVar[bool] = True

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        p: GlobInput = params
        root = _search_root(p.path, ctx)
        if isinstance(root, ToolOutput):
            return root
        path, target = root
        if not path.is_dir():
            return ToolOutput(f"{path} is not a folder.", is_error=True, summary="not a folder")
        pattern = p.pattern.removeprefix("./")
        # rg's globs are gitignore-style: a pattern without a slash matches at any depth. Glob's
        # "*.py" means the top level, as in a shell: anchor it.
        if "/" not in pattern:
            pattern = "/" + pattern
        # run in the folder itself: rg anchors "/pattern" at the folder it runs in
        args = ["--files", "--null", f"--glob={pattern}", "--", "."]
        result = await _search(args, path, MAX_NAMES_BYTES)
        if isinstance(result, ToolOutput):
            return result
        found = [n if target == "." else os.path.join(target, n) for n in _names(result)]
        names, order_note = _newest_first(found, ctx.cwd)
        keep = _readable(ctx, sep="")
        shown: list[str] = []
        seen = 0
        for name in names:
            if len(shown) >= GLOB_LIMIT:
                break
            seen += 1
            if keep(name):
                shown.append(name)
        if not shown:
            return ToolOutput("No files found.", summary="no files")
        body = "\n".join(shown)
        total = len(shown) + len(names) - seen
        if seen < len(names) or result.truncated:
            more = "more" if result.truncated else f"{len(names) - seen:,} more"
            which = "first" if order_note else "newest"
            body += f"\n\n[showing the {len(shown)} {which}{order_note}; {more} not shown. "
            body += "Narrow the pattern.]"
        return ToolOutput(body, summary=_plural(total, "file"), meta={"files": total})
