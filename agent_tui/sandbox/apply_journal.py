"""An apply written down as it goes, so one cut short (the app killed half way through a change
set of thousands of files) can still be undone.

Before each change is made its checkpoint entry is appended to `applied/entries.jsonl` in the
transaction's folder, with the content it replaces saved beside it (by blob id); the command's
own content stays in the upper directory (files land as copies of it). When the
held rest is applied later, the entries of the cut-short apply come first in what that apply
records, so one undo takes back the whole command. A finished apply removes its journal (its
entries are recorded by the caller).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
from pathlib import Path
from typing import IO, Any

from agent_tui.checkpoints.blobs import BlobStore, blob_id


class ApplyJournal:
    def __init__(self, transaction_folder: Path, upper: Path, root: Path) -> None:
        self.folder = transaction_folder / "applied"
        self.upper, self.root = upper, root
        self._out: IO[str] | None = None

    @property
    def _entries(self) -> Path:
        return self.folder / "entries.jsonl"

    def add(self, entry: dict[str, Any], before: bytes | None) -> None:
        """Write `entry` down (and the content it replaces) before the change is made."""
        if self._out is None:
            self.folder.mkdir(mode=0o700, exist_ok=True)
            self._out = open(self._entries, "a", encoding="utf-8")  # noqa: SIM115
        blob = entry.get("before")
        if before is not None and blob:
            kept = self.folder / str(blob)
            if not kept.exists():
                tmp = kept.with_suffix(".tmp")
                tmp.write_bytes(before)
                tmp.replace(kept)
        self._out.write(json.dumps(entry) + "\n")
        self._out.flush()  # in the page cache: a killed app's write survives it

    def earlier(self, blobs: BlobStore) -> list[dict[str, Any]]:
        """The entries of an apply cut short before this one (their contents put in `blobs`),
        one per path; none when there was none."""
        try:
            lines = self._entries.read_text("utf-8").splitlines()
        except OSError:
            return []
        out: dict[str, dict[str, Any]] = {}
        for line in lines:
            with contextlib.suppress(ValueError):
                entry = json.loads(line)
                if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                    out.setdefault(entry["path"], entry)
        return [e for e in out.values() if self._contents(e, blobs)]

    def _contents(self, entry: dict[str, Any], blobs: BlobStore) -> bool:
        """Put the entry's before and after contents in `blobs`; False when one is missing."""
        for key, source in (
            ("before", self.folder / str(entry.get("before"))),
            ("after", self.upper / os.path.relpath(entry["path"], self.root)),
        ):
            blob = entry.get(key)
            if not blob:
                continue
            try:
                data = _read(source, self.folder if key == "before" else self.upper)
            except OSError:
                return False
            if blob_id(data) != blob:
                return False
            blobs.put_blob(data)
        return True

    def finished(self) -> None:
        """The apply ended: its entries are the caller's to record."""
        if self._out is not None:
            # a write the disk refused is still buffered: closing tries it again and fails, but
            # the file is closed anyway, and the journal goes with its folder
            with contextlib.suppress(OSError):
                self._out.close()
            self._out = None
        shutil.rmtree(self.folder, ignore_errors=True)


def _read(path: Path, root: Path) -> bytes:
    """A file's content or a link's target, reached from `root` without following a link."""
    from agent_tui.checkpoints import confined

    with confined.open_parent(root, path, create=False) as fd:
        st = os.stat(path.name, dir_fd=fd, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            return os.fsencode(os.readlink(path.name, dir_fd=fd))
        src = os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
    with os.fdopen(src, "rb") as file:
        return file.read()
