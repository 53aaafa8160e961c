"""A sandboxed command's change set, read from its overlay's upper directory.

The command saw the project through an overlay (`transaction.py`): everything it created,
changed or deleted landed in the upper directory, and nothing else did. So when it ends the upper
directory *is* its change set — exact, whoever else wrote to the project meanwhile — and reading
it costs O(what it changed), not O(the tree):

- a regular file or symbolic link in the upper directory: created or changed (a file opened for
  writing is copied up whole even if nothing was written: `Change.same` says so);
- a whiteout (a character device 0:0): the entry below was deleted;
- a directory marked opaque (`user.overlay.opaque`, or `trusted.` as root): the folder below was
  removed and made again, so whatever it held and the upper one doesn't is deleted;
- any other directory: walked (new ones are created, with their contents).

Whether the person (or anything outside the sandbox) changed a file while the command ran is told
by the file's ctime in the project: the command could not touch the project itself, so a ctime
after the command's start is someone else's write (the clock ticks every few milliseconds: a
write in the tick the command started in reads as before it, where the app's own last apply is:
`Change.conflict`); for a folder the command removes (deleted, made again, replaced by a file or
link), anything under it counts.
What stood there when the change set was read is kept (`Change.seen`), so applying can refuse a
change whose target someone changed since it was judged (`identity`).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Kind = Literal["file", "link", "delete", "dir", "special"]
#: what stands in the project under the changed name now
Below = Literal["file", "link", "dir", "other", "none"]
_OPAQUE = ("user.overlay.opaque", "trusted.overlay.opaque")


@dataclass(frozen=True, slots=True)
class Change:
    """One entry of a change set: `rel` (a POSIX path relative to the project root) and what the
    command did there."""

    rel: str
    kind: Kind
    #: what is in the project under that name now (before the change set is applied)
    below: Below
    #: the command's version (in the upper directory); None for a deletion
    upper: Path | None
    #: a directory made again from empty (opaque): what the project's one holds is deleted
    opaque: bool = False
    #: someone outside the sandbox changed the project's entry while the command ran
    conflict: bool = False
    #: a file whose content and mode are the project's as they are (copied up, not changed)
    same: bool = False
    #: what the project held under `rel` when the change set was read (`identity`; None:
    #: nothing), or UNSEEN when not recorded
    seen: tuple[int, ...] | None = ()

    @property
    def removes_folder(self) -> bool:
        """Applying takes away the project's folder (and everything in it)."""
        return self.below == "dir" and self.kind in ("delete", "file", "link")

    @property
    def created(self) -> bool:
        return self.kind != "delete" and self.below == "none"

    @property
    def action(self) -> str:
        if self.kind == "delete":
            return "deleted"
        if self.kind == "dir":
            return "made" if self.below != "dir" else ("emptied" if self.opaque else "")
        return "created" if self.below == "none" else "changed"


#: `Change.seen` when what stood there was not recorded (nothing to compare)
UNSEEN: tuple[int, ...] = ()


def identity(path: Path, *, deep: bool = False) -> tuple[int, ...] | None:
    """What stands at `path`, to tell whether it changed since: None when nothing does; inode,
    ctime, size and mode; for a folder taken with all it holds (`deep`), its inode, the newest
    ctime in it and how many entries it holds."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError:
        return (-1,)
    if not (deep and stat.S_ISDIR(st.st_mode)):
        return (st.st_ino, st.st_ctime_ns, st.st_size, st.st_mode)
    newest, count = st.st_ctime_ns, 0
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            count += 1
            try:
                newest = max(newest, os.lstat(os.path.join(root, name)).st_ctime_ns)
            except OSError:
                continue
    return (st.st_ino, newest, count)


def _below(path: Path) -> tuple[Below, os.stat_result | None]:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return "none", None
    except OSError:
        return "other", None
    if stat.S_ISREG(st.st_mode):
        return "file", st
    if stat.S_ISLNK(st.st_mode):
        return "link", st
    if stat.S_ISDIR(st.st_mode):
        return "dir", st
    return "other", st


def _opaque(path: str) -> bool:
    for name in _OPAQUE:
        try:
            if os.getxattr(path, name, follow_symlinks=False) == b"y":
                return True
        except OSError:
            continue
    return False


def same_file(up: Path, lower: Path) -> bool:
    """The file `up` holds `lower`'s content and mode (neither followed if a link)."""
    try:
        a, b = os.lstat(up), os.lstat(lower)
    except OSError:
        return False
    return stat.S_ISREG(a.st_mode) and stat.S_ISREG(b.st_mode) and _same_file(a, up, lower, b)


def _same_file(upper: os.stat_result, up: Path, lower: Path, below: os.stat_result) -> bool:
    """The upper file holds the project's content and mode (a copy-up with nothing written)."""
    if upper.st_size != below.st_size or stat.S_IMODE(upper.st_mode) != stat.S_IMODE(below.st_mode):
        return False
    try:
        with open(up, "rb") as a, open(lower, "rb") as b:
            while True:
                x, y = a.read(1 << 20), b.read(1 << 20)
                if x != y:
                    return False
                if not x:
                    return True
    except OSError:
        return False


def _same_link(up: Path, lower: Path) -> bool:
    try:
        return os.readlink(up) == os.readlink(lower)
    except OSError:
        return False


#: a temporary name of the bridge's mirror (`inside.py`'s MIRROR_TEMP and 8 hex digits)
_MIRROR_TEMP = re.compile(r"\.agent-tui-mirror-[0-9a-f]{8}")


def read_changes(upper: Path, lower: Path, started_ns: int) -> list[Change]:
    """The change set in `upper` for the project `lower`, sorted by path (a folder before what
    it holds). `started_ns`: the command's start (ns since the epoch, the file system's clock)."""
    return sorted(_walk(upper, lower, "", started_ns), key=lambda c: c.rel.split("/"))


def _walk(upper: Path, lower: Path, prefix: str, started_ns: int) -> Iterator[Change]:
    try:
        entries = list(os.scandir(upper / prefix if prefix else upper))
    except OSError:
        return
    for entry in entries:
        if _MIRROR_TEMP.fullmatch(entry.name) and not entry.is_dir(follow_symlinks=False):
            continue  # the bridge's own file, left by a shell stopped while it mirrored
        rel = f"{prefix}{entry.name}"
        low = lower / rel
        below, below_st = _below(low)
        up = Path(entry.path)
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        mode = st.st_mode
        if stat.S_ISCHR(mode) and st.st_rdev == 0:
            if below != "none":
                yield _removal(rel, low, below, started_ns)
            continue
        if stat.S_ISDIR(mode):
            opaque = below == "dir" and _opaque(entry.path)
            if below != "dir" or opaque:
                seen = identity(low) if below != "dir" else UNSEEN
                conflict = seen is not None and bool(seen) and seen[1] > started_ns
                yield Change(rel, "dir", below, up, opaque=opaque, conflict=conflict, seen=seen)
            if opaque:
                yield from _emptied(up, lower, rel, started_ns)
            yield from _walk(upper, lower, rel + "/", started_ns)
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            # a fifo, socket or device the command made: never carried into the project
            yield Change(rel, "special", below, up)
            continue
        kind: Kind = "file" if stat.S_ISREG(mode) else "link"
        seen = identity(low, deep=below == "dir")
        conflict = seen is not None and len(seen) > 1 and seen[1] > started_ns
        if kind == "file":
            same = below == "file" and below_st is not None and _same_file(st, up, low, below_st)
        else:
            same = below == "link" and _same_link(up, low)
        yield Change(rel, kind, below, up, conflict=conflict and not same, same=same, seen=seen)


def _removal(rel: str, path: Path, below: Below, started_ns: int) -> Change:
    """The deletion of what the project holds at `path`: a conflict when it, or anything in it,
    changed since the command started (a deletion must not take what someone else wrote)."""
    seen = identity(path, deep=below == "dir")
    conflict = seen is not None and len(seen) > 1 and seen[1] > started_ns
    return Change(rel, "delete", below, None, conflict=conflict, seen=seen)


def _emptied(up: Path, lower: Path, rel: str, started_ns: int) -> Iterator[Change]:
    """A folder made again from empty: what the project's one holds and the new one doesn't is
    deleted with it (each named, so each can be a conflict or kept)."""
    try:
        kept = {e.name for e in os.scandir(up)}
        below = [e.name for e in os.scandir(lower / rel)]
    except OSError:
        return
    for name in below:
        if name in kept:
            continue
        path = lower / rel / name
        kind, _ = _below(path)
        yield _removal(f"{rel}/{name}", path, kind, started_ns)
