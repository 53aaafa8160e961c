"""Temporary files that a killed process does not leave behind for good.

Each process keeps its temporary files (the index copies snapshots are built from) in a folder of
its own under the data dir, `<data>/scratch/<pid>`. A temporary file that has to sit beside its
target (a restore's content before it is renamed into place, in the person's work tree) is
named in that folder's journal first. A start of the app runs `clean_stale`: the folders of
processes that no longer run go, with every work-tree temporary file their journal names.
"""

from __future__ import annotations

import os
import shutil
from contextlib import suppress
from pathlib import Path

from agent_tui.checkpoints import confined


class Scratch:
    """This process's scratch folder (made when first needed)."""

    def __init__(self, data_dir: Path) -> None:
        self.base = data_dir / "scratch"
        self.pid = os.getpid()

    @property
    def folder(self) -> Path:
        folder = self.base / str(self.pid)
        (folder / "journal").mkdir(parents=True, exist_ok=True)
        return folder

    def path(self, name: str) -> Path:
        """A path for a temporary file of this process (the file itself is the caller's)."""
        return self.folder / name

    def journal(self, target: Path) -> Path | None:
        """Record that a temporary file will exist at `target` (before creating it); the returned
        entry is removed with `done` once the file is renamed away or deleted. Best effort: a
        data dir that can't be written (None) must not stop the write itself."""
        try:
            entry = self.folder / "journal" / os.urandom(8).hex()
            entry.write_bytes(os.fsencode(target))
        except OSError:
            return None
        return entry

    @staticmethod
    def done(entry: Path | None) -> None:
        if entry is not None:
            with suppress(OSError):
                entry.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: running
        return True
    except OSError:
        return False
    return True


def clean_stale(data_dir: Path) -> list[Path]:
    """Remove what processes that no longer run left: their scratch folders and the work-tree
    temporary files their journals name. Returns the work-tree files removed."""
    base = data_dir / "scratch"
    removed: list[Path] = []
    try:
        folders = list(base.iterdir())
    except OSError:
        return removed
    for folder in folders:
        if not folder.name.isdigit() or int(folder.name) == os.getpid():
            continue
        if _running(int(folder.name)):
            continue
        try:
            entries = list((folder / "journal").iterdir())
        except OSError:
            entries = []
        for entry in entries:
            try:
                target = Path(os.fsdecode(entry.read_bytes()))
            except OSError:
                continue
            # only ever a file of ours: named as our temporary files are, reached without
            # following a symbolic link
            if confined.is_temp_name(target.name) and target.is_absolute():
                try:
                    if os.path.lexists(target):
                        confined.delete(Path(target.anchor), target)
                        removed.append(target)
                except OSError:
                    continue
        shutil.rmtree(folder, ignore_errors=True)
    return removed
