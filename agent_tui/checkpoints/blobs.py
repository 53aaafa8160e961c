"""File contents kept for checkpoints, named by their git blob id (the same id for a file saved
by the checkpointer and a blob in the repository, so either can supply it)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol


def blob_id(data: bytes) -> str:
    """The id git gives `data` as a blob (`git hash-object`)."""
    import hashlib  # at the first snapshot, not on the way to a ready prompt (issue 34)

    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


class BlobStore(Protocol):
    def put_blob(self, data: bytes) -> str: ...

    def get_blob(self, blob: str) -> bytes | None: ...


class MemoryBlobs:
    """Blobs for an agent with no session store (tests, headless runs without one)."""

    def __init__(self) -> None:
        self._blobs: dict[str, bytes] = {}

    def put_blob(self, data: bytes) -> str:
        key = blob_id(data)
        self._blobs.setdefault(key, data)
        return key

    def get_blob(self, blob: str) -> bytes | None:
        return self._blobs.get(blob)


#: file modes as git writes them
REGULAR, EXECUTABLE, SYMLINK = "100644", "100755", "120000"


def read_file(path: Path) -> tuple[bytes, str] | None:
    """A file's bytes and git mode as it is now (a symlink: its target), or None if absent.

    A directory or an unreadable file counts as absent only when it is really not there; other
    errors propagate so a restore never mistakes "can't read" for "doesn't exist"."""
    try:
        if path.is_symlink():
            return os.readlink(path).encode(), SYMLINK
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return None
    mode = EXECUTABLE if os.access(path, os.X_OK) else REGULAR
    return data, mode
