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
at or after the command's start is someone else's write (`Change.conflict`).
"""

from __future__ import annotations

import os
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
                yield Change(rel, "delete", below, None, conflict=_touched(low, below, started_ns))
            continue
        conflict = below_st is not None and below_st.st_ctime_ns > started_ns
        if stat.S_ISDIR(mode):
            opaque = below == "dir" and _opaque(entry.path)
            if below != "dir" or opaque:
                yield Change(rel, "dir", below, up, opaque=opaque, conflict=conflict)
            if opaque:
                yield from _emptied(up, lower, rel, started_ns)
            yield from _walk(upper, lower, rel + "/", started_ns)
            continue
        if stat.S_ISREG(mode):
            same = below == "file" and below_st is not None and _same_file(st, up, low, below_st)
            yield Change(rel, "file", below, up, conflict=conflict and not same, same=same)
        elif stat.S_ISLNK(mode):
            same = below == "link" and _same_link(up, low)
            yield Change(rel, "link", below, up, conflict=conflict and not same, same=same)
        else:  # a fifo, socket or device the command made: never carried into the project
            yield Change(rel, "special", below, up)


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
        yield Change(
            f"{rel}/{name}", "delete", kind, None, conflict=_touched(path, kind, started_ns)
        )


def _touched(path: Path, below: Below, started_ns: int) -> bool:
    """Whether anything at or under `path` in the project changed since the command started
    (a deletion must not take what someone else wrote meanwhile)."""
    try:
        if os.lstat(path).st_ctime_ns > started_ns:
            return True
    except OSError:
        return False
    if below != "dir":
        return False
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            try:
                if os.lstat(os.path.join(root, name)).st_ctime_ns > started_ns:
                    return True
            except OSError:
                continue
    return False
