"""What the file tools share: reading and decoding text files (UTF-8, or UTF-8/UTF-16 with a
BOM; binaries recognised and refused with a clear message), atomic writes (a temporary file in the
same directory, then `os.replace`, so a crash or a full disk never leaves a half-written file),
and the messages for files that can't be used.

Paths are resolved against the working directory with `pathutil.resolve` (`~`, `..` and symlinks
included); whether a path may be touched is the permission engine's decision, made before `run`.
"""

from __future__ import annotations

import codecs
import difflib
import mimetypes
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from agent_tui.checkpoints.confined import temp_name
from agent_tui.checkpoints.scratch import Scratch
from agent_tui.paths import data_dir

DEFAULT_READ_LIMIT = 2000
MAX_LINE_CHARS = 2000
#: a Read result never exceeds this many characters, whatever `limit` says
MAX_READ_CHARS = 100_000
#: bytes read per `readline` call, so a huge single-line file doesn't land in memory at once
LINE_CHUNK = 64 * 1024
#: UTF-16 files are decoded whole; refuse beyond this
MAX_WHOLE_FILE = 64 * 1024 * 1024

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


def human_size(n: int) -> str:
    if n < 1024:
        return plural(n, "byte")
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


def detect_bom(head: bytes) -> tuple[bytes, str]:
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return bom, codec
    return b"", "utf-8"


def decode_text(data: bytes, path: Path) -> TextFile:
    """Decode a whole file, or raise `NotText` with a message naming its size and a type guess."""
    bom, codec = detect_bom(data[:4])
    body = data[len(bom) :]
    if codec == "utf-8" and b"\x00" in body:
        raise NotText(binary_message(path, len(data), data[:64]))
    try:
        return TextFile(body.decode(codec), bom, codec)
    except UnicodeDecodeError as exc:
        bad = body[exc.start]
        raise NotText(
            undecodable_message(path, len(data), data[:64], bad, len(bom) + exc.start, codec)
        ) from None


def binary_message(path: Path, size: int, head: bytes) -> str:
    return (
        f"Cannot read {path}: it is a binary file ({guess_type(head, path)}, "
        f"{human_size(size)}), not text. Use Bash with a suitable tool (e.g. `file`, `xxd`, "
        "`unzip -l`, `sqlite3`) to inspect it."
    )


def undecodable_message(
    path: Path, size: int, head: bytes, bad: int, offset: int, codec: str
) -> str:
    kind = guess_type(head, path)
    # A name like .txt says nothing here: the bytes already proved it isn't UTF-8 text.
    what = "" if kind == "binary data" or kind.startswith("text/") else f"looks like {kind}; "
    return (
        f"Cannot read {path}: it is not {codec.upper()} text (byte 0x{bad:02x} at offset "
        f"{offset:,} can't be decoded; {what}{human_size(size)}). It may be binary or use a "
        "legacy encoding; inspect it with Bash (e.g. `file`, `iconv`)."
    )


def display_path(path: Path, cwd: Path) -> str:
    """Relative to the working directory when inside it, absolute otherwise."""
    try:
        rel = path.relative_to(cwd.resolve())
    except ValueError:
        return str(path)
    return str(rel) if str(rel) != "." else str(path)


def open_error(exc: OSError, path: Path, action: str) -> ToolFailure:
    """A message the model can act on for an OSError while trying to `action` ("read", "write")."""
    if isinstance(exc, PermissionError):
        return ToolFailure(f"Permission denied: cannot {action} {path}.")
    if isinstance(exc, IsADirectoryError):
        return ToolFailure(is_dir_message(path))
    if isinstance(exc, NotADirectoryError | FileExistsError):
        return ToolFailure(f"Cannot {action} {path}: part of the path is a file, not a directory.")
    if isinstance(exc, FileNotFoundError):
        return ToolFailure(not_found(path))
    return ToolFailure(f"Cannot {action} {path}: {exc.strerror or exc}.")


def not_found(path: Path) -> str:
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


def is_dir_message(path: Path) -> str:
    return f"{path} is a directory, not a file. Use Bash (e.g. `ls -la {path}`) to list it."


def check_regular(path: Path) -> None:
    """Directories and special files (a FIFO would block a read forever) are refused up front."""
    if path.is_dir():
        raise ToolFailure(is_dir_message(path))
    if path.exists() and not path.is_file():
        raise ToolFailure(f"{path} is not a regular file (a device, FIFO or socket).")


def read_text_file(path: Path) -> TextFile:
    """The whole file as text; `ToolFailure` with a clear message otherwise."""
    check_regular(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise open_error(exc, path, "read") from None
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
    # Same directory as the target, so os.replace is a rename on one filesystem; named in this
    # process's journal first, so a kill before the rename leaves nothing once the app starts
    # again (`checkpoints.scratch.clean_stale`).
    tmp = path.with_name(temp_name(path.name))
    journal = Scratch(data_dir())
    entry = journal.journal(tmp)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    try:
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
    finally:
        journal.done(entry)
    return mode is None


def count_lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def numbered(lines: list[tuple[int, str]]) -> str:
    return "\n".join(f"{n:>6}\t{line}" for n, line in lines)


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def clip_line(text: str, extra_bytes: int = 0) -> tuple[str, bool]:
    text = text.removesuffix("\n").removesuffix("\r")
    if extra_bytes:
        return (
            text[:MAX_LINE_CHARS] + f" [… line cut: {human_size(extra_bytes)} more …]",
            True,
        )
    if len(text) > MAX_LINE_CHARS:
        more = len(text) - MAX_LINE_CHARS
        return text[:MAX_LINE_CHARS] + f" [… line cut: {more:,} more characters …]", True
    return text, False
