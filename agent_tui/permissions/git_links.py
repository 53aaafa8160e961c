"""The submodules `git status` and `git diff` descend into: the gitlinks of a repository's index
(entries of mode 160000) whose folder in the work tree holds a `.git` (a folder, or a file naming
one under `.git/modules/`). git runs `status` inside each of them, at any depth, and so runs what
each one's own configuration and hooks name (core.fsmonitor, a post-index-change hook, filters).

The index is read here, not by git: a repository's files are read before git may run in it.
Cheap on big trees: most indexes hold no gitlink, and the mode's four bytes (00 00 e0 00) not
being in the file at all says so without walking its entries; a walk is cached by the file's
size and time. The entries are read by the sandbox's index reader (`sandbox/git_index.py`:
versions 2, 3 and 4, SHA-1 and SHA-256 names), a split index's shared part too; an index that
can't be read is reported as such (the caller asks).
"""

from __future__ import annotations

import os
import struct
from functools import lru_cache
from pathlib import Path

from agent_tui.sandbox.git_index import IndexError_, index_entries

_GITLINK = 0o160000
_GITLINK_BYTES = struct.pack(">I", _GITLINK)


class IndexUnreadable(Exception):
    pass


def gitlinks(git_dir: Path, hash_size: int = 20) -> list[str]:
    """The paths of the gitlinks in `git_dir`'s index (split index included); [] without an
    index. `hash_size`: the repository's object names' (20: SHA-1, 32: SHA-256), as git reads
    the index. Raises IndexUnreadable for an index in a form this can't read."""
    paths = _cached(git_dir / "index", hash_size)
    try:
        # a split index keeps most entries in a shared file beside it (core.splitIndex)
        shared = sorted(p for p in os.listdir(git_dir) if p.startswith("sharedindex."))
    except OSError:
        shared = []
    for name in shared:
        paths += [p for p in _cached(git_dir / name, hash_size) if p not in paths]
    return paths


def _cached(index: Path, hash_size: int) -> list[str]:
    try:
        st = index.stat()
    except OSError:
        return []
    return list(_read(str(index), st.st_mtime_ns, st.st_size, st.st_ino, hash_size))


@lru_cache(maxsize=256)
def _read(path: str, mtime_ns: int, size: int, ino: int, hash_size: int) -> tuple[str, ...]:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise IndexUnreadable(f"{path}: {e.strerror}") from None
    if _GITLINK_BYTES not in data:
        return ()  # no entry can have the gitlink mode
    try:
        entries = index_entries(data, hash_size)  # the sandbox's reader of the same file
    except (IndexError_, ValueError, IndexError, struct.error):
        raise IndexUnreadable(f"{path}: an index this check can't read") from None
    return tuple(p for p, (mode, _) in entries.items() if mode == _GITLINK)


def populated(worktree: Path, path: str) -> Path | None:
    """The `.git` of a gitlink's folder in the work tree, if it is checked out there."""
    dot = worktree / path / ".git"
    return dot if os.path.lexists(dot) else None
