"""The file tools: `Read`, `Write` and `Edit`.

Paths are resolved against the working directory with `pathutil.resolve` (`~`, `..` and symlinks
included); whether a path may be touched is the permission engine's decision, made before `run`.
Writes are atomic (temporary file in the same directory, then `os.replace`), so a crash or a full
disk never leaves a half-written file. Text is UTF-8, or UTF-8/UTF-16 with a BOM; `Edit` writes a
file back in the encoding and line endings it found.
"""

from __future__ import annotations

import asyncio
import codecs
import difflib
import mimetypes
import os
import re
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from agent_tui import pathutil
from agent_tui.tools.base import Tool, ToolContext, ToolOutput
from agent_tui.tools.diffs import diff_stats, unified_diff

DEFAULT_READ_LIMIT = 2000
MAX_LINE_CHARS = 2000
#: a Read result never exceeds this many characters, whatever `limit` says
MAX_READ_CHARS = 100_000
#: bytes read per `readline` call, so a huge single-line file doesn't land in memory at once
_LINE_CHUNK = 64 * 1024
#: UTF-16 files are decoded whole; refuse beyond this
_MAX_WHOLE_FILE = 64 * 1024 * 1024

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive (or a format built on it: docx, xlsx, jar, wheel)"),
    (b"\x1f\x8b", "gzip archive"),
    (b"BZh", "bzip2 archive"),
    (b"\xfd7zXZ\x00", "xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (b"\x28\xb5\x2f\xfd", "zstd archive"),
    (b"\x7fELF", "ELF executable or library"),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable"),
    (b"\xfe\xed\xfa\xcf", "Mach-O executable"),
    (b"\xca\xfe\xba\xbe", "Java class file or Mach-O universal binary"),
    (b"MZ", "Windows executable"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"\x00asm", "WebAssembly module"),
    (b"RIFF", "RIFF media (WAV, AVI or WebP)"),
    (b"OggS", "Ogg media"),
    (b"ID3", "MP3 audio"),
    (b"fLaC", "FLAC audio"),
)


class NotText(Exception):
    """The file is not text the tools can work with; the message says why, for the model."""


class ToolFailure(Exception):
    """A failure to report to the model as an error result (missing file, not unique, …)."""


@dataclass(frozen=True, slots=True)
class TextFile:
    text: str
    bom: bytes
    codec: str

    def encode(self, text: str) -> bytes:
        return self.bom + text.encode(self.codec)


def _human_size(n: int) -> str:
    if n < 1024:
        return _plural(n, "byte")
    size, unit = n / 1024, "KB"
    for bigger in ("MB", "GB"):
        if size < 1024:
            break
        size, unit = size / 1024, bigger
    return f"{size:.1f} {unit} ({n:,} bytes)"


def guess_type(head: bytes, path: Path) -> str:
    """A short human guess at what a binary file is, from its first bytes or its name."""
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if head[4:8] == b"ftyp":
        return "MP4/QuickTime media"
    mime, _ = mimetypes.guess_type(path.name)
    return mime or "binary data"


def _detect_bom(head: bytes) -> tuple[bytes, str]:
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return bom, codec
    return b"", "utf-8"


def decode_text(data: bytes, path: Path) -> TextFile:
    """Decode a whole file, or raise `NotText` with a message naming its size and a type guess."""
    bom, codec = _detect_bom(data[:4])
    body = data[len(bom) :]
    if codec == "utf-8" and b"\x00" in body:
        raise NotText(_binary_message(path, len(data), data[:64]))
    try:
        return TextFile(body.decode(codec), bom, codec)
    except UnicodeDecodeError as exc:
        bad = body[exc.start]
        raise NotText(
            _undecodable_message(path, len(data), data[:64], bad, len(bom) + exc.start, codec)
        ) from None


def _binary_message(path: Path, size: int, head: bytes) -> str:
    return (
        f"Cannot read {path}: it is a binary file ({guess_type(head, path)}, "
        f"{_human_size(size)}), not text. Use Bash with a suitable tool (e.g. `file`, `xxd`, "
        "`unzip -l`, `sqlite3`) to inspect it."
    )


def _undecodable_message(
    path: Path, size: int, head: bytes, bad: int, offset: int, codec: str
) -> str:
    kind = guess_type(head, path)
    # A name like .txt says nothing here: the bytes already proved it isn't UTF-8 text.
    what = "" if kind == "binary data" or kind.startswith("text/") else f"looks like {kind}; "
    return (
        f"Cannot read {path}: it is not {codec.upper()} text (byte 0x{bad:02x} at offset "
        f"{offset:,} can't be decoded; {what}{_human_size(size)}). It may be binary or use a "
        "legacy encoding; inspect it with Bash (e.g. `file`, `iconv`)."
    )


def display_path(path: Path, cwd: Path) -> str:
    """Relative to the working directory when inside it, absolute otherwise."""
    try:
        rel = path.relative_to(cwd.resolve())
    except ValueError:
        return str(path)
    return str(rel) if str(rel) != "." else str(path)


def _open_error(exc: OSError, path: Path, action: str) -> ToolFailure:
    """A message the model can act on for an OSError while trying to `action` ("read", "write")."""
    if isinstance(exc, PermissionError):
        return ToolFailure(f"Permission denied: cannot {action} {path}.")
    if isinstance(exc, IsADirectoryError):
        return ToolFailure(_is_dir(path))
    if isinstance(exc, NotADirectoryError | FileExistsError):
        return ToolFailure(f"Cannot {action} {path}: part of the path is a file, not a directory.")
    if isinstance(exc, FileNotFoundError):
        return ToolFailure(_not_found(path))
    return ToolFailure(f"Cannot {action} {path}: {exc.strerror or exc}.")


def _not_found(path: Path) -> str:
    parent = path.parent
    if not parent.is_dir():
        return f"File not found: {path} (the directory {parent} does not exist either)."
    msg = f"File not found: {path}."
    try:
        names = [p.name for p in parent.iterdir()][:10_000]
    except OSError:
        return msg
    close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
    if close:
        msg += " Did you mean: " + ", ".join(str(parent / n) for n in close) + "?"
    return msg


def _is_dir(path: Path) -> str:
    return f"{path} is a directory, not a file. Use Bash (e.g. `ls -la {path}`) to list it."


def _check_regular(path: Path) -> None:
    """Directories and special files (a FIFO would block a read forever) are refused up front."""
    if path.is_dir():
        raise ToolFailure(_is_dir(path))
    if path.exists() and not path.is_file():
        raise ToolFailure(f"{path} is not a regular file (a device, FIFO or socket).")


def read_text_file(path: Path) -> TextFile:
    """The whole file as text; `ToolFailure` with a clear message otherwise."""
    _check_regular(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _open_error(exc, path, "read") from None
    try:
        return decode_text(data, path)
    except NotText as exc:
        raise ToolFailure(str(exc)) from None


def atomic_write(path: Path, data: bytes) -> bool:
    """Write `data` to `path` atomically; True when the file was created, False when replaced.

    An existing file keeps its permission bits; a new one gets the usual 0o666 minus umask (the OS
    applies the umask to `os.open`, which `tempfile.mkstemp`'s fixed 0o600 would not give us).
    """
    try:
        mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    # The rename needs only a writable directory; don't let it sidestep a read-only file.
    if mode is not None and not os.access(path, os.W_OK):
        raise PermissionError(13, "the file is read-only", str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    # Same directory as the target, so os.replace is a rename on one filesystem.
    tmp = path.with_name(f".{path.name[:200]}.{secrets.token_hex(4)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(tmp, flags, 0o666 if mode is None else 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
            if mode is not None:
                os.fchmod(f.fileno(), mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return mode is None


def _count_lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _numbered(lines: list[tuple[int, str]]) -> str:
    return "\n".join(f"{n:>6}\t{line}" for n, line in lines)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


# --------------------------------------------------------------------------------------- Read


class ReadInput(BaseModel):
    path: str = Field(
        min_length=1,
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


def _clip_line(text: str, extra_bytes: int = 0) -> tuple[str, bool]:
    text = text.removesuffix("\n").removesuffix("\r")
    if extra_bytes:
        return (
            text[:MAX_LINE_CHARS] + f" [… line cut: {_human_size(extra_bytes)} more …]",
            True,
        )
    if len(text) > MAX_LINE_CHARS:
        more = len(text) - MAX_LINE_CHARS
        return text[:MAX_LINE_CHARS] + f" [… line cut: {more:,} more characters …]", True
    return text, False


def _read_window(path: Path, first: int, limit: int) -> _ReadResult:
    """Lines `first`..`first+limit-1`, numbered, and the file's line count; streams the file so
    memory stays bounded however large it is."""
    size = path.stat().st_size
    with path.open("rb") as f:
        head = f.read(8192)
        bom, codec = _detect_bom(head)
        if codec != "utf-8":
            if size > _MAX_WHOLE_FILE:
                raise ToolFailure(f"{path} is a {codec} file of {_human_size(size)}; too large.")
            f.seek(0)
            return _window_of_text(decode_text(f.read(), path).text, first, limit)
        if b"\x00" in head:
            raise NotText(_binary_message(path, size, head))
        f.seek(len(bom))
        out: list[tuple[int, str]] = []
        out_chars = 0
        capped = False
        cut_lines = 0
        n = 0
        offset = len(bom)
        decoder = codecs.getincrementaldecoder("utf-8")("strict")
        while raw := f.readline(_LINE_CHUNK):
            n += 1
            start_offset = offset
            offset += len(raw)
            extra = 0
            if not raw.endswith(b"\n"):
                # Longer than one chunk: skip (but count) the rest of the line.
                while (more := f.readline(_LINE_CHUNK)) and not more.endswith(b"\n"):
                    extra += len(more)
                extra += len(more)
                offset += extra
            if n < first or capped or len(out) >= limit:
                continue
            if b"\x00" in raw:
                raise NotText(_binary_message(path, size, head))
            try:
                decoder.reset()
                text = decoder.decode(raw, final=not extra)
            except UnicodeDecodeError as exc:
                msg = _undecodable_message(
                    path, size, head, raw[exc.start], start_offset + exc.start, codec
                )
                raise NotText(msg) from None
            line, clipped = _clip_line(text, extra)
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
        line, clipped = _clip_line(lines[n - 1])
        if out and out_chars + len(line) > MAX_READ_CHARS:
            capped = True
            break
        cut_lines += clipped
        out.append((n, line))
        out_chars += len(line) + 8
    return _ReadResult(out, len(lines), cut_lines, capped)


class ReadTool(Tool):
    name: ClassVar[str] = "Read"
    description: ClassVar[str] = (
        "Read a text file and return its lines numbered like `cat -n`: the line number, right-"
        "aligned, then a tab, then the line.\n"
        "- `path` is absolute or relative to the working directory; `~` is the home directory.\n"
        f"- By default up to {DEFAULT_READ_LIMIT} lines from the start; for longer files the "
        "result says which lines it shows and how many there are. Use `offset` (1-based line "
        "number) and `limit` to read further.\n"
        f"- Lines longer than {MAX_LINE_CHARS:,} characters are cut, with a note.\n"
        "- Binary files (images, archives, executables, databases) are refused; use Bash for "
        "those. Directories are refused; use Bash `ls` to list them.\n"
        "- The line-number prefix is not part of the file: never include it in Edit's "
        "`old_string`."
    )
    input_model: ClassVar[type[BaseModel]] = ReadInput
    read_only: ClassVar[bool] = True

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        return await asyncio.to_thread(self._run, params, ctx)

    def _run(self, p: ReadInput, ctx: ToolContext) -> ToolOutput:
        path = pathutil.resolve(p.path, ctx.cwd)
        first = p.offset or 1
        limit = p.limit or DEFAULT_READ_LIMIT
        try:
            _check_regular(path)
            try:
                res = _read_window(path, first, limit)
            except OSError as exc:
                raise _open_error(exc, path, "read") from None
        except (ToolFailure, NotText) as exc:
            return ToolOutput(str(exc), is_error=True, summary="not read")

        if res.total == 0:
            return ToolOutput(f"(The file {path} exists but is empty.)", summary="empty file")
        if not res.lines:
            return ToolOutput(
                f"offset {first} is past the end of {path}, which has "
                f"{_plural(res.total, 'line')}.",
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
                f"[{_plural(res.cut_lines, 'line')} longer than {MAX_LINE_CHARS:,} characters "
                "cut; use Bash (e.g. `cut -c`) to see them whole]"
            )
        content = _numbered(res.lines) + ("\n\n" + "\n".join(notes) if notes else "")
        summary = span if partial else _plural(res.total, "line")
        return ToolOutput(
            content, summary=summary, meta={"total_lines": res.total, "path": str(path)}
        )


# -------------------------------------------------------------------------------------- Write


class WriteInput(BaseModel):
    path: str = Field(
        min_length=1,
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
        return "", f"(replaces a file that is not text, {_human_size(size)})\n"


class WriteTool(Tool):
    name: ClassVar[str] = "Write"
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

    def preview(self, params: Any, ctx: ToolContext) -> str | None:
        path = pathutil.resolve(params.path, ctx.cwd)
        if path.is_dir():
            return _is_dir(path)
        old, note = _old_for_preview(path)
        return note + unified_diff(old, params.content, display_path(path, ctx.cwd))

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        return await asyncio.to_thread(self._run, params, ctx)

    def _run(self, p: WriteInput, ctx: ToolContext) -> ToolOutput:
        path = pathutil.resolve(p.path, ctx.cwd)
        shown = display_path(path, ctx.cwd)
        if path.is_dir():
            return ToolOutput(
                f"{path} is a directory; give the path of a file to write.",
                is_error=True,
                summary="not written",
            )
        try:
            data = p.content.encode("utf-8")
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
                str(_open_error(exc, path, "write")), is_error=True, summary="not written"
            )
        lines = _count_lines(p.content)
        size = f"{_plural(len(data), 'byte')}, {_plural(lines, 'line')}"
        if created:
            content = f"Created {path} ({size})."
        else:
            was = f"; it had {_plural(old_size, 'byte')}" if old_size is not None else ""
            content = f"Overwrote {path} ({size}{was})."
        verb = "created" if created else "overwrote"
        return ToolOutput(
            content,
            summary=f"{verb} {shown} · {_plural(lines, 'line')}",
            meta={"path": str(path), "created": created, "bytes": len(data)},
        )


# --------------------------------------------------------------------------------------- Edit


class EditInput(BaseModel):
    path: str = Field(
        min_length=1,
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
    path = pathutil.resolve(p.path, cwd)
    if not path.exists():
        raise ToolFailure(_not_found(path) + " To create a new file, use Write.")
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

    def preview(self, params: Any, ctx: ToolContext) -> str | None:
        try:
            plan = plan_edit(params, ctx.cwd)
        except ToolFailure as exc:
            return f"(This edit will fail: {exc})"
        return unified_diff(plan.file.text, plan.new_text, display_path(plan.path, ctx.cwd))

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        return await asyncio.to_thread(self._run, params, ctx)

    def _run(self, p: EditInput, ctx: ToolContext) -> ToolOutput:
        try:
            plan = plan_edit(p, ctx.cwd)
            try:
                atomic_write(plan.path, plan.file.encode(plan.new_text))
            except OSError as exc:
                raise _open_error(exc, plan.path, "write") from None
        except ToolFailure as exc:
            return ToolOutput(str(exc), is_error=True, summary="not edited")

        stats = diff_stats(plan.file.text, plan.new_text)
        where = ", ".join(str(n) for n in plan.lines[:10]) + ("…" if len(plan.lines) > 10 else "")
        head = (
            f"Edited {plan.path}: replaced {_plural(plan.replacements, 'occurrence')} "
            f"(line{'s' if len(plan.lines) > 1 else ''} {where})."
        )
        # A few numbered lines around the (first) change, so the model can check the result
        # without another Read.
        new_lines = plan.new_text.split("\n")
        lo = max(1, plan.new_start - 3)
        hi = min(len(new_lines), plan.new_end + 3, lo + 40)
        snippet = _numbered([(n, _clip_line(new_lines[n - 1])[0]) for n in range(lo, hi + 1)])
        shown = display_path(plan.path, ctx.cwd)
        return ToolOutput(
            f"{head}\n{snippet}",
            summary=f"edited {shown} · {stats}",
            meta={"path": str(plan.path), "replacements": plan.replacements},
        )


def builtin_file_tools() -> list[Tool]:
    return [ReadTool(), WriteTool(), EditTool()]
