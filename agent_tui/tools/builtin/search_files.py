"""`Grep` and `Glob`: searching the project on ripgrep (`tools/ripgrep.py`), with Claude Code's
tool names and inputs. Both respect `.gitignore`, cap what they return and say when they did,
and drop files a `Read(...)` deny rule covers (`ToolContext.read_denied`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_tui import pathutil
from agent_tui.tools.base import Tool, ToolContext, ToolOutput
from agent_tui.tools.ripgrep import (
    MAX_NAMES_BYTES,
    MAX_OUTPUT_BYTES,
    OnEntries,
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


#: a result's entries from the n-th on (`Entries(n)`), decoded as they are taken
Entries = Callable[[int], Iterator[str]]


def _readable(ctx: ToolContext, *, sep: str = "\0") -> Callable[[str], bool]:
    """Is a result line (rg's `--null` output) about a file no deny rule keeps from being read?
    Asked only of the lines that are shown, so a search matching 100k files costs 250 checks,
    and once a file (its lines share the answer)."""
    answers: dict[str, bool] = {}

    def keep(line: str) -> bool:
        name = line.split(sep, 1)[0] if sep else line
        if not name:
            return True
        readable = answers.get(name)
        if readable is None:
            readable = answers[name] = not ctx.read_denied(ctx.cwd / name)
        return readable

    return keep


async def _search(
    args: list[str], cwd: Path, max_bytes: int, sep: bytes, on_entries: OnEntries | None = None
) -> RgResult | ToolOutput:
    """rg's result, or the error result for the model (rg missing, a bad pattern or path)."""
    try:
        result = await run_rg(args, cwd, max_bytes, sep=sep, on_entries=on_entries)
    except RipgrepMissing as exc:
        return ToolOutput(str(exc), is_error=True, summary="rg missing")
    if result.code == 2 and not result.raw:
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
    subject_fields: ClassVar[tuple[str, ...]] = ("pattern", "path")
    order: ClassVar[int] = 50
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
        files = p.output_mode == "files_with_matches"
        if files:
            with _Ages(ctx.cwd) as ages:
                result = await _search(rg_args(p, target), ctx.cwd, MAX_NAMES_BYTES, b"\0", ages)
            if isinstance(result, ToolOutput):
                return result
            names, note = _newest_first(result, ages)
            return _report(p, names, result, _readable(ctx, sep=""), note)
        result = await _search(rg_args(p, target), ctx.cwd, MAX_OUTPUT_BYTES, b"\n")
        if isinstance(result, ToolOutput):
            return result
        return _report(p, lambda start: map(_tidy, result.entries(start)), result, _readable(ctx))


def rg_args(p: GrepInput, target: str) -> list[str]:
    """The rg command line of a search (after `ripgrep.BASE_ARGS`), run in the working folder."""
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
    return [*args, "--regexp", p.pattern, "--", target]


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


class _Ages:
    """The modification times of the files rg names, taken as its output arrives (so mostly
    while it still searches), up to SORT_LIMIT + 1 of them: past that the names stay in rg's
    order. A stat each, relative to the folder rg runs in (`dir_fd`: no path to join or walk)."""

    def __init__(self, folder: Path) -> None:
        self.times: list[float] = []
        self._fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)

    def __enter__(self) -> _Ages:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self._fd)

    def __call__(self, names: list[bytes]) -> None:
        times, fd = self.times, self._fd
        for name in names[: SORT_LIMIT + 1 - len(times)]:
            try:
                times.append(os.stat(name, dir_fd=fd).st_mtime)
            except OSError:
                times.append(0.0)


def _newest_first(result: RgResult, ages: _Ages, folder: str = ".") -> tuple[Entries, str]:
    """The file names of `--files` / `--files-with-matches` output with `--null` (under
    `folder`, where rg ran), newest first, as Claude Code lists them; past SORT_LIMIT files
    in rg's order, and the note says so."""

    def named(name: str) -> str:
        name = _tidy(name)
        return name if folder == "." else os.path.join(folder, name)

    if result.count > SORT_LIMIT:
        return lambda start: map(named, result.entries(start)), (
            f" (over {SORT_LIMIT:,} files: not sorted by time)"
        )
    found = result.raw.split(result.sep)[:-1]  # undecoded: only the names shown are decoded
    times = ages.times  # one a name, in rg's order; the sort keeps that order among equals
    order = sorted(range(len(found)), key=times.__getitem__, reverse=True)
    return lambda start: (named(found[i].decode("utf-8", "replace")) for i in order[start:]), ""


def _report(
    p: GrepInput,
    entries: Entries,
    result: RgResult,
    keep: Callable[[str], bool],
    order_note: str = "",
) -> ToolOutput:
    """At most `head_limit` entries from `offset` on, of the ones `keep` lets through, and
    what there is besides; only the entries shown are decoded and checked."""
    unit = {"files_with_matches": "file", "count": "file", "content": "line"}[p.output_mode]
    limit = p.head_limit or DEFAULT_ENTRIES
    count, truncated = result.count, result.truncated
    skipped = min(p.offset or 0, count)
    total = count - skipped  # the entries from the offset on
    shown: list[str] = []
    chars = 0
    denied = 0
    for line in entries(skipped):
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
    if seen < total or truncated:
        more = "more" if truncated else f"{total - seen:,} more"
        notes.append(
            f"[showing {_plural(len(shown), unit)}{order_note}; {more} not shown. Narrow the "
            "pattern, path or glob, or set head_limit (offset for the next page).]"
        )
    if p.output_mode == "count":
        matches = sum(int(x.rsplit(":", 1)[1]) for x in shown if x.rsplit(":", 1)[-1].isdigit())
        summary = f"{_plural(matches, 'match')} in {_plural(total, 'file')}"
    elif seen == total and not truncated:
        summary = _plural(len(shown), unit)
    else:
        summary = f"{len(shown):,} of {'more' if truncated else f'{total:,}'} {unit}s"
    body = "\n".join(shown) + ("\n\n" + "\n".join(notes) if notes else "")
    return ToolOutput(body, summary=summary, meta={"entries": total})


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
    subject_fields: ClassVar[tuple[str, ...]] = ("pattern", "path")
    order: ClassVar[int] = 60
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
        with _Ages(path) as ages:
            result = await _search(args, path, MAX_NAMES_BYTES, b"\0", ages)
        if isinstance(result, ToolOutput):
            return result
        names, order_note = _newest_first(result, ages, target)
        keep = _readable(ctx, sep="")
        shown: list[str] = []
        seen = 0
        for name in names(0):
            if len(shown) >= GLOB_LIMIT:
                break
            seen += 1
            if keep(name):
                shown.append(name)
        if not shown:
            return ToolOutput("No files found.", summary="no files")
        body = "\n".join(shown)
        found = result.count
        total = len(shown) + found - seen
        if seen < found or result.truncated:
            more = "more" if result.truncated else f"{found - seen:,} more"
            which = "first" if order_note else "newest"
            body += f"\n\n[showing the {len(shown)} {which}{order_note}; {more} not shown. "
            body += "Narrow the pattern.]"
        return ToolOutput(body, summary=_plural(total, "file"), meta={"files": total})
