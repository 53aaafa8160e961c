"""Applying the chosen part of a change set to the project, and recording it for undo.

Every write goes where the change set says and nowhere else: each folder on the way is opened
without following a symbolic link (`checkpoints.confined`), so a link planted in the project
meanwhile can't carry a write outside it. A file is moved from the upper directory into place
as a copy of its own, beside its target first and renamed over it: never a hard link to the
upper directory's file, which a process that still holds it open could write to after the gate
judged it. Setuid, setgid and sticky bits never carry over.

What each change replaced is kept (its content by blob id, in the session's store) so undo puts
exactly that back: the record of a command is O(what it changed). A file over `KEEP_LIMIT` (or a
command whose kept content would pass `COMMAND_LIMIT`) is applied but not kept; the record says
so, and undo lists it as not restorable.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.checkpoints import confined
from agent_tui.checkpoints.blobs import EXECUTABLE, REGULAR, SYMLINK, BlobStore
from agent_tui.sandbox.apply_journal import ApplyJournal
from agent_tui.sandbox.changes import UNSEEN, Change, identity
from agent_tui.sandbox.filecopy import copy_fd

#: a file larger than this is applied but its contents are not kept for undo
KEEP_LIMIT = 64 * 1024 * 1024
#: nor is more than this kept for one command
COMMAND_LIMIT = 512 * 1024 * 1024
_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC


class Changed(OSError):
    """The project's entry is not what it was when the change set was read."""


@dataclass
class Applied:
    """What applying did: the checkpoint entries (as `FilesChanged.files`), the paths applied,
    those that failed (kept in the change set) and what is changed but not kept for undo."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    not_kept: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Version:
    """A file's content as kept for undo: its blob id (None: absent or not kept), git mode, and
    whether it is known (absent counts as known; too large to keep does not)."""

    blob: str | None
    mode: str
    kept: bool
    #: the content, while it is on its way to the journal
    data: bytes | None = None


ABSENT = _Version(None, "", True)


class _Keeper:
    """Keeps contents for undo within the limits."""

    def __init__(self, blobs: BlobStore | None) -> None:
        self.blobs = blobs
        self.kept = 0

    def keep(self, data: bytes) -> str | None:
        """The blob id `data` is kept under, or None when it can't be kept (limits)."""
        if self.blobs is None or not self.fits(len(data)):
            return None
        self.kept += len(data)
        return self.blobs.put_blob(data)

    def fits(self, size: int) -> bool:
        return self.blobs is not None and size <= KEEP_LIMIT and self.kept + size <= COMMAND_LIMIT


def _git_mode(st: os.stat_result) -> str:
    if stat.S_ISLNK(st.st_mode):
        return SYMLINK
    return EXECUTABLE if st.st_mode & 0o100 else REGULAR


class _Apply:
    def __init__(
        self,
        root: Path,
        blobs: BlobStore | None,
        by: str,
        scratch: Any,
        journal: ApplyJournal | None = None,
        source: Path | None = None,
    ) -> None:
        self.root = root
        #: the folder the changes' `upper` paths are in (read from there without following links)
        self.source = source
        #: where each change is written down before it is made (None: no store to undo from)
        self.journal = journal if blobs is not None else None
        self.keeper = _Keeper(blobs)
        self.by = by
        self.scratch = scratch
        self.out = Applied()

    # --- what was there ---

    def _before(self, path: Path) -> _Version:
        """What `path` holds now, kept; `ABSENT` when nothing is there."""
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return ABSENT
        if stat.S_ISLNK(st.st_mode):
            return self._version(os.fsencode(os.readlink(path)), SYMLINK)
        if not stat.S_ISREG(st.st_mode):
            return ABSENT
        if not self.keeper.fits(st.st_size):
            return _Version(None, _git_mode(st), False)
        return self._version(path.read_bytes(), _git_mode(st))

    def _version(self, data: bytes, mode: str) -> _Version:
        blob = self.keeper.keep(data)
        return _Version(blob, mode, blob is not None, data if blob is not None else None)

    def _entry(self, path: Path, before: _Version, after: _Version) -> dict[str, Any]:
        return {
            "path": str(path),
            "before": before.blob,
            "after": after.blob,
            "before_mode": before.mode if before.blob else "",
            "after_mode": after.mode if after.blob else "",
            "by": self.by,
        }

    def _record(self, path: Path, before: _Version, after: _Version) -> None:
        if self.keeper.blobs is None:
            return  # no store to keep a record in (a sandbox without a session)
        if not (before.kept and after.kept):
            self.out.not_kept.append(str(path.relative_to(self.root)))
            return
        self.out.entries.append(self._entry(path, before, after))

    # --- changes ---

    def one(self, change: Change) -> None:
        path = self.root / change.rel
        if change.kind == "delete":
            self._delete(path, change)
        elif change.kind == "dir":
            if change.below != "dir":
                self._delete(path, change)
                assert change.upper is not None
                made = _mode(self._source_stat(change.upper)) & 0o777
                with confined.open_parent(self.root, path, create=True) as fd:
                    os.mkdir(path.name, made, dir_fd=fd)
        elif change.kind == "link":
            assert change.upper is not None
            target = self._source_link(change.upper)
            before = self._delete_dir_or_keep(path, change)
            after = self._version(os.fsencode(target), SYMLINK)
            if change.below != "dir":
                self._still(path, change)
            self._journal(path, before, after)
            confined.symlink(self.root, path, target, scratch=self.scratch)
            self._record(path, before, after)
        elif change.kind == "file":
            assert change.upper is not None
            before = self._delete_dir_or_keep(path, change)
            check = None if change.below == "dir" else lambda: self._still(path, change)
            after = self._install(path, change.upper, before, check)
            self._record(path, before, after)

    def _still(self, path: Path, change: Change) -> None:
        """Refuse `change` when what stands at `path` is not what was there when the change set
        was read (someone saved the file since: theirs is kept, the change stays held)."""
        if change.seen != UNSEEN and identity(path, deep=change.removes_folder) != change.seen:
            raise Changed(errno.EAGAIN, "changed in the project since it was read; theirs is kept")

    def _delete_dir_or_keep(self, path: Path, change: Change) -> _Version:
        if change.below == "dir":
            self._delete(path, change)
            return ABSENT
        return self._before(path)

    def _delete(self, path: Path, change: Change) -> None:
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return
        if stat.S_ISDIR(st.st_mode):
            gone = [(file, self._before(file)) for file in _files_under(path)]
            self._still(path, change)
            for file, before in gone:
                self._journal(file, before, ABSENT)
            with confined.open_parent(self.root, path, create=False) as fd:
                shutil.rmtree(path.name, dir_fd=fd)
            for file, before in gone:
                self._record(file, before, ABSENT)
            return
        before = self._before(path)
        self._still(path, change)
        self._journal(path, before, ABSENT)
        confined.delete(self.root, path)
        self._record(path, before, ABSENT)

    def _journal(self, path: Path, before: _Version, after: _Version) -> None:
        if self.journal is not None:
            self.journal.add(self._entry(path, before, after), before.data)

    # --- the command's side, never followed through a link ---

    @contextlib.contextmanager
    def _source_parent(self, upper: Path) -> Iterator[int]:
        """The folder of the command's entry `upper`, opened from the change set's root
        (`source`) without following a link on the way: nothing swapped in the upper directory
        since it was read can send a read, link or copy anywhere else."""
        root = (
            self.source if self.source is not None and upper.is_relative_to(self.source) else None
        )
        with confined.open_parent(root or upper.parent, upper, create=False) as fd:
            yield fd

    def _source_stat(self, upper: Path) -> os.stat_result:
        with self._source_parent(upper) as fd:
            return os.stat(upper.name, dir_fd=fd, follow_symlinks=False)

    def _source_link(self, upper: Path) -> str:
        with self._source_parent(upper) as fd:
            return os.readlink(upper.name, dir_fd=fd)

    def _install(
        self, path: Path, upper: Path, before: _Version, check: Callable[[], None] | None
    ) -> _Version:
        with self._source_parent(upper) as parent:
            src = os.open(upper.name, os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK, dir_fd=parent)
        try:
            st = os.fstat(src)
            if not stat.S_ISREG(st.st_mode):
                raise Changed(errno.EAGAIN, "no longer a file in the change set")
            if self.keeper.fits(st.st_size):
                after = self._version(_read_all(src, st.st_size), _git_mode(st))
            else:
                after = _Version(None, _git_mode(st), False)
            self._place(path, src, st, before, after, check)
        finally:
            os.close(src)
        return after

    def _place(
        self,
        path: Path,
        src: int,
        st: os.stat_result,
        before: _Version,
        after: _Version,
        check: Callable[[], None] | None,
    ) -> None:
        with confined.open_parent(self.root, path, create=True) as fd:
            tmp = confined.temp_name(path.name)
            entry = self.scratch.journal(path.parent / tmp)
            try:
                _copy_in(src, tmp, fd)
                os.chmod(tmp, _mode(st) & 0o777, dir_fd=fd)
                if check is not None:
                    check()  # last, just before the rename: what it saw is what is replaced
                self._journal(path, before, after)
                os.replace(tmp, path.name, src_dir_fd=fd, dst_dir_fd=fd)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=fd)
                self.scratch.done(entry)


def _read_all(fd: int, size: int) -> bytes:
    parts: list[bytes] = []
    at = 0
    while at < size:
        data = os.pread(fd, min(size - at, 1 << 20), at)
        if not data:
            break
        parts.append(data)
        at += len(data)
    return b"".join(parts)


def _copy_in(src: int, tmp: str, fd: int) -> None:
    """The command's file (open as `src`) copied as `tmp` into the folder `fd`: a file of the
    project's own (holes kept, blocks shared where the file system can), so nothing that holds
    the command's file open reaches it; the upper directory keeps its file, so an apply cut
    short reads again as a change set whose landed part is unchanged (same content)."""
    out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600, dir_fd=fd)
    try:
        copy_fd(src, out)
    finally:
        os.close(out)


def _mode(st: os.stat_result) -> int:
    """Permission bits to carry over: never setuid, setgid or sticky."""
    return stat.S_IMODE(st.st_mode) & 0o777


def _files_under(folder: Path) -> list[Path]:
    found: list[Path] = []
    for top, dirs, files in os.walk(folder):
        found.extend(Path(top) / f for f in files)
        found.extend(Path(top) / d for d in dirs if os.path.islink(os.path.join(top, d)))
    return sorted(found)


def apply_changes(
    root: Path,
    changes: Iterable[Change],
    *,
    blobs: BlobStore | None,
    by: str,
    scratch: Any,
    journal: ApplyJournal | None = None,
    source: Path | None = None,
) -> Applied:
    """Apply `changes` to the project `root` (a folder before what it holds; in a repository
    its objects first, its refs after them, HEAD and the index last and deletions after all,
    so an apply cut short never leaves a ref naming an object that isn't there). A change that
    fails is named in `failed` with why and left in the change set. `journal`: each change is
    written down there before it is made, with what it replaces, so an apply cut short can be
    undone too; what an earlier, cut-short apply wrote there comes first in the entries."""
    work = _Apply(root, blobs, by, scratch, journal, source)
    if work.journal is not None and blobs is not None:
        work.out.entries.extend(work.journal.earlier(blobs))
    failed_dirs: list[str] = []
    for change in sorted(changes, key=_order):
        if any(change.rel.startswith(d + "/") for d in failed_dirs):
            work.out.failed.append((change.rel, "its folder could not be made"))
            continue
        try:
            work.one(change)
        except confined.Refused as exc:
            work.out.failed.append((change.rel, f"refused: {exc.strerror or exc}"))
        except OSError as exc:
            work.out.failed.append((change.rel, exc.strerror or str(exc)))
            if change.kind == "dir":
                failed_dirs.append(change.rel)
        else:
            work.out.applied.append(change.rel)
    if work.journal is not None:
        work.journal.finished()
    first: dict[str, dict[str, Any]] = {}
    for entry in work.out.entries:  # a change cut short before it was made is made again
        first.setdefault(entry["path"], entry)
    work.out.entries = list(first.values())
    return work.out


def _order(change: Change) -> tuple[int, list[str]]:
    parts = change.rel.split("/")
    at = next((n for n, p in enumerate(parts) if p == ".git"), None)
    if at is None or change.kind == "dir":
        return 0, parts  # the work tree, and every folder before what it holds
    inner = parts[at + 1 :]
    if change.kind == "delete":
        return 3, parts
    if not inner or inner[0] == "objects":
        return 0, parts
    return (2 if inner[0] in ("HEAD", "index") and len(inner) == 1 else 1), parts
