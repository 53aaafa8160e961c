"""The paths a git index holds, read from the file itself (no git run): versions 2, 3 and 4,
SHA-1 or SHA-256 object names. The commit gate compares a command's new `.git/index` with the
project's, so an index that now holds `.claude/settings.json` (which the person's next
`git checkout -- .` would write) is seen before it lands.
"""

from __future__ import annotations

import struct
from pathlib import Path

#: ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4 bytes each)
_STAT = 40
_EXTENDED = 0x4000


class IndexError_(ValueError):
    """Not a git index this reader understands."""


def index_entries(data: bytes, hash_size: int = 20) -> dict[str, tuple[int, bytes]]:
    """path -> (mode, object name) for every entry (stage 0 and conflicts alike)."""
    if len(data) < 12 or data[:4] != b"DIRC":
        raise IndexError_("not a git index")
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        raise IndexError_(f"index version {version}")
    out: dict[str, tuple[int, bytes]] = {}
    at, previous = 12, b""
    for _ in range(count):
        start = at
        if at + _STAT + hash_size + 2 > len(data):
            raise IndexError_("truncated index")
        mode = struct.unpack(">I", data[at + 24 : at + 28])[0]
        at += _STAT
        name = data[at : at + hash_size]
        at += hash_size
        flags = struct.unpack(">H", data[at : at + 2])[0]
        at += 2
        if version >= 3 and flags & _EXTENDED:
            at += 2
        if version == 4:
            strip, at = _varint(data, at)
            end = data.index(b"\0", at)
            path = previous[: len(previous) - strip] + data[at:end]
            at = end + 1
        else:
            end = data.index(b"\0", at)
            path = data[at:end]
            # entries are padded with 1-8 NULs to a multiple of 8 bytes
            at = start + ((end - start) // 8 + 1) * 8
        previous = path
        out[path.decode("utf-8", "surrogateescape")] = (mode, name)
    return out


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """Git's offset encoding (each continuation adds one before shifting)."""
    byte = data[at]
    value = byte & 0x7F
    at += 1
    while byte & 0x80:
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
        at += 1
    return value, at


def read_index(path: Path, hash_size: int = 20) -> dict[str, tuple[int, bytes]]:
    """The entries of the index at `path` ({} when there is none)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    return index_entries(data, hash_size)


def added(old: dict[str, tuple[int, bytes]], new: dict[str, tuple[int, bytes]]) -> list[str]:
    """The paths `new` holds that `old` doesn't, or holds with other content or mode."""
    return sorted(p for p, entry in new.items() if old.get(p) != entry)
