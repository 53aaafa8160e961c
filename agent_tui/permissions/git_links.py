"""The submodules `git status` and `git diff` descend into: the gitlinks of a repository's index
(entries of mode 160000) whose folder in the work tree holds a `.git` (a folder, or a file naming
one under `.git/modules/`). git runs `status` inside each of them, at any depth, and so runs what
each one's own configuration and hooks name (core.fsmonitor, a post-index-change hook, filters).

The index is read here, not by git: a repository's files are read before git may run in it.
Cheap on big trees: most indexes hold no gitlink, and the mode's four bytes (00 00 e0 00) not
being in the file at all says so without walking its entries; a walk is cached by the file's
size and time. Versions 2, 3 and 4, SHA-1 and SHA-256 names, and a split index's shared part
are read; an index this can't read is reported as such (the caller asks).
"""

from __future__ import annotations

import os
import struct
from functools import lru_cache
from pathlib import Path

_GITLINK = 0o160000
_GITLINK_BYTES = struct.pack(">I", _GITLINK)
_HEADER = struct.Struct(">4sII")


class IndexUnreadable(Exception):
    pass


def gitlinks(git_dir: Path) -> list[str]:
    """The paths of the gitlinks in `git_dir`'s index (split index included); [] without an
    index. Raises IndexUnreadable for an index in a form this can't read."""
    paths = _cached(git_dir / "index")
    try:
        # a split index keeps most entries in a shared file beside it (core.splitIndex)
        shared = sorted(p for p in os.listdir(git_dir) if p.startswith("sharedindex."))
    except OSError:
        shared = []
    for name in shared:
        paths += [p for p in _cached(git_dir / name) if p not in paths]
    return paths


def _cached(index: Path) -> list[str]:
    try:
        st = index.stat()
    except OSError:
        return []
    return list(_read(str(index), st.st_mtime_ns, st.st_size, st.st_ino))


@lru_cache(maxsize=256)
def _read(path: str, mtime_ns: int, size: int, ino: int) -> tuple[str, ...]:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise IndexUnreadable(f"{path}: {e.strerror}") from None
    if _GITLINK_BYTES not in data:
        return ()  # no entry can have the gitlink mode
    for hash_size in (20, 32):
        try:
            return tuple(p for p, mode in _entries(data, hash_size) if mode == _GITLINK)
        except (ValueError, struct.error, UnicodeDecodeError):
            continue
    raise IndexUnreadable(f"{path}: an index this check can't read")


def _entries(data: bytes, hash_size: int) -> list[tuple[str, int]]:
    signature, version, count = _HEADER.unpack_from(data, 0)
    if signature != b"DIRC" or version not in (2, 3, 4):
        raise ValueError("not an index")
    out: list[tuple[str, int]] = []
    pos, previous = _HEADER.size, b""
    fixed = 40 + hash_size  # ctime, mtime, dev, ino, mode, uid, gid, size, then the name
    for _ in range(count):
        start = pos
        (mode,) = struct.unpack_from(">I", data, pos + 24)
        (flags,) = struct.unpack_from(">H", data, pos + fixed)
        pos += fixed + 2
        if version >= 3 and flags & 0x4000:
            pos += 2  # extended flags
        if version == 4:
            strip, pos = _varint(data, pos)
            end = data.index(b"\0", pos)
            if strip > len(previous):
                raise ValueError("a bad path prefix")
            name = previous[: len(previous) - strip] + data[pos:end]
            pos = end + 1
        else:
            end = data.index(b"\0", pos)
            name = data[pos:end]
            pos = start + ((end - start + 8) // 8) * 8  # 1 to 8 NULs pad the entry
        length = flags & 0x0FFF
        if length != min(len(name), 0x0FFF) or pos > len(data):
            raise ValueError("an entry that doesn't add up")
        previous = name
        out.append((name.decode("utf-8"), mode))
    return out


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """git's offset encoding (varint.c): 7 bits a byte, each continuation adding one."""
    byte = data[pos]
    value = byte & 0x7F
    pos += 1
    while byte & 0x80:
        byte = data[pos]
        value = ((value + 1) << 7) | (byte & 0x7F)
        pos += 1
    return value, pos


def populated(worktree: Path, path: str) -> Path | None:
    """The `.git` of a gitlink's folder in the work tree, if it is checked out there."""
    dot = worktree / path / ".git"
    return dot if os.path.lexists(dot) else None
