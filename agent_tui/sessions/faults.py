"""What can go wrong with the session database, said in one line a person can act on.

The store fails soft (DESIGN: "keep working unrecorded, say so once, keep what the person typed"):
callers catch `STORE_ERRORS` around store calls and show `describe(exc)`, never a traceback.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from agent_tui.sessions.records import SessionNotFound, StoreUnavailable
from agent_tui.sessions.schema import SchemaError

#: every error a store call can raise because of the file, the disk or the database in it (not a
#: bug in the caller): SQLite's own, the OS's, a newer schema, a database that won't open
STORE_ERRORS: tuple[type[BaseException], ...] = (
    sqlite3.Error,
    OSError,
    SchemaError,
    StoreUnavailable,
    SessionNotFound,  # deleted (by another process) while it was being recorded
)


#: bytes free below which an I/O error writing the database is taken for a full disk (SQLite
#: reports some writes that found no space as I/O errors: growing its -shm file, SHMSIZE)
FULL_BELOW = 1 << 20


class DiskFull(sqlite3.OperationalError):
    """An I/O error SQLite reported where the disk had no room left: said as a full disk."""


def on_full_disk(exc: sqlite3.Error, path: Path) -> sqlite3.Error:
    """`exc` as a `DiskFull` when it is an I/O error and the file system of `path` (the
    database) is full, else `exc` itself."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if not name.startswith("SQLITE_IOERR") or isinstance(exc, DiskFull):
        return exc
    try:
        free = os.statvfs(path.parent)
    except OSError:
        return exc
    if free.f_bavail * free.f_frsize >= FULL_BELOW:
        return exc
    full = DiskFull(f"the disk is full: no room left for {path.name} ({exc})")
    full.sqlite_errorname = name  # as SQLite said it
    return full


def describe(exc: BaseException) -> str:
    """`exc` in words, one line, without the exception's class name where the words suffice."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, StoreUnavailable | SchemaError | DiskFull):
        return text  # already says which file and why
    if isinstance(exc, SessionNotFound):
        return f"the session was deleted while it was being recorded ({text})"
    low = text.lower()
    # SQLite's primary result code when it gave one (SQLITE_FULL, SQLITE_CORRUPT_VTAB, ...)
    name = (getattr(exc, "sqlite_errorname", "") or "").removeprefix("SQLITE_")
    if name.startswith("FULL") or "disk is full" in low or _is_errno(exc, errno.ENOSPC):
        return f"the disk is full ({text})"
    if name.startswith(("CORRUPT", "NOTADB")) or "malformed" in low or "not a database" in low:
        return f"the session database is damaged ({text})"
    if name.startswith(("READONLY", "PERM", "CANTOPEN")) or "readonly" in low:
        return f"the session database can't be written ({text})"
    if name.startswith(("BUSY", "LOCKED")) or "database is locked" in low:
        return f"the session database is busy in another process ({text})"
    if name.startswith("IOERR"):
        return f"the session database can't be read or written ({text})"
    return text


def _is_errno(exc: BaseException, number: int) -> bool:
    return isinstance(exc, OSError) and exc.errno == number
