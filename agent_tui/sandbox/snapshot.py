"""A still-running shell's change set, frozen before it is judged.

A background shell's overlay stays mounted while its changes are synced (`live.py`), so its
upper directory can change between the gate reading an entry and the app copying it: a file
judged harmless swapped for a symbolic link to `~/.ssh/id_rsa` would have the app — outside the
sandbox, with the person's rights — copy the key into the project; a `pyvenv.cfg` judged clean
rewritten before the copy would carry what the gate never saw.

So each changed entry is read once, without following a link anywhere on the way (every folder
of the upper directory opened `O_NOFOLLOW`, the entry itself too), into a private staging folder
the sandbox can't see; the gate judges that copy and the copy is what is applied. An entry that
changed kind since the change set was read (a file that is now a link, a folder on the way now a
link) is left for the next sync, which reads it again. So is a file over `FREEZE_LIMIT`, and
what passes `FREEZE_BUDGET` in one sync: copied each time the shell touches them, they would cost
the person's disk and the machine's time without bound; they land when the shell ends (nothing
can change its upper directory then: no copy is needed). Holes are kept (`filecopy.py`).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from agent_tui.checkpoints import confined
from agent_tui.sandbox.changes import Change, same_file
from agent_tui.sandbox.filecopy import copy_fd

#: a file larger than this is synced when the shell ends, not while it runs
FREEZE_LIMIT = 64 * 1024 * 1024
#: nor is more than this frozen in one sync (the rest waits for the next one)
FREEZE_BUDGET = 256 * 1024 * 1024
#: an entry's identity as the sync remembers it: inode, size, mtime, mode
State = tuple[int, int, int, int]
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass
class Frozen:
    """The frozen change set: the changes (their `upper` now in the staging folder), each
    frozen entry's state as read, and the changes left for the next sync."""

    changes: list[Change] = field(default_factory=list)
    states: dict[str, State] = field(default_factory=dict)
    later: list[str] = field(default_factory=list)


def _state(st: os.stat_result) -> State:
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode)


class _Freezer:
    def __init__(self, upper: Path, lower: Path, staging: Path) -> None:
        self.upper, self.lower, self.staging = upper, lower, staging
        self.out = Frozen()
        self.failed_dirs: list[str] = []
        self.budget = FREEZE_BUDGET

    def one(self, change: Change) -> None:
        if change.upper is None or change.kind in ("delete", "special"):
            self.out.changes.append(change)  # nothing of the shell's is read
            return
        if any(change.rel.startswith(d + "/") for d in self.failed_dirs):
            self.out.later.append(change.rel)
            return
        try:
            frozen = self._freeze(change)
        except (OSError, ValueError):  # confined.Refused is an OSError
            frozen = None
        if frozen is None:
            self.out.later.append(change.rel)
            if change.kind == "dir":
                self.failed_dirs.append(change.rel)
            return
        self.out.changes.append(frozen)

    def _freeze(self, change: Change) -> Change | None:
        path = self.upper / change.rel
        target = self.staging / change.rel
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with confined.open_parent(self.upper, path, create=False) as fd:
            st = os.stat(path.name, dir_fd=fd, follow_symlinks=False)
            if change.kind == "dir":
                if not stat.S_ISDIR(st.st_mode):
                    return None
                target.mkdir(mode=stat.S_IMODE(st.st_mode) & 0o777 | 0o700, exist_ok=True)
            elif change.kind == "link":
                if not stat.S_ISLNK(st.st_mode):
                    return None
                os.symlink(os.readlink(path.name, dir_fd=fd), target)
            else:
                copied = self._copy(path.name, fd, target)
                if copied is None:
                    return None
                st = copied
        self.out.states[change.rel] = _state(st)
        frozen = replace(change, upper=target)
        if change.kind == "file" and change.below == "file":
            same = same_file(target, self.lower / change.rel)
            return replace(frozen, same=same, conflict=change.conflict and not same)
        return frozen

    def _copy(self, name: str, fd: int, target: Path) -> os.stat_result | None:
        try:
            src = os.open(name, _READ, dir_fd=fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):
                return None  # now a link, a fifo or socket, or a folder
            raise
        try:
            st = os.fstat(src)
            if not stat.S_ISREG(st.st_mode):
                return None
            used = st.st_blocks * 512  # what the copy takes on disk (holes stay holes)
            if st.st_size > FREEZE_LIMIT or used > self.budget:
                return None
            self.budget -= used
            out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            try:
                copy_fd(src, out)
            finally:
                os.close(out)
            os.chmod(target, stat.S_IMODE(st.st_mode) & 0o777)
            # what was copied is what the state says: a write during the copy is read next time
            after = os.fstat(src)
        finally:
            os.close(src)
        return st if after.st_mtime_ns == st.st_mtime_ns and after.st_size == st.st_size else None


def freeze(changes: Iterable[Change], upper: Path, lower: Path, staging: Path) -> Frozen:
    """Copy each change's upper entry (never following a link) into `staging` (made, private),
    in path order; the changes pointing there. `staging` must not be in the sandbox's view."""
    staging.mkdir(mode=0o700)
    work = _Freezer(upper, lower, staging)
    for change in changes:
        work.one(change)
    return work.out
