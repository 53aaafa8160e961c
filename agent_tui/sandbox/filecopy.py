"""Copying a file the app doesn't trust between two open descriptors: holes stay holes (a
sparse file of a terabyte that holds nothing is copied as nothing, not written out block by
block), and the kernel copies what it can (`copy_file_range`: a reflink where the file system
shares blocks)."""

from __future__ import annotations

import errno
import os

_CHUNK = 1 << 20


def copy_fd(src: int, dst: int) -> None:
    """Copy the regular file open as `src` into the empty file open for writing as `dst`."""
    size = os.fstat(src).st_size
    offset = 0
    while offset < size:
        try:
            start = os.lseek(src, offset, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:
                break  # only a hole from here to the end
            if exc.errno != errno.EINVAL:
                raise
            start = offset  # the file system doesn't say where its holes are: all data
            end = size
        else:
            end = min(os.lseek(src, start, os.SEEK_HOLE), size)
        _copy_range(src, dst, start, end)
        offset = end
    os.ftruncate(dst, size)


def _copy_range(src: int, dst: int, start: int, end: int) -> None:
    at = start
    while at < end:
        count = min(end - at, 64 * _CHUNK)
        try:
            done = os.copy_file_range(src, dst, count, at, at)
        except OSError as exc:
            if exc.errno not in (errno.EXDEV, errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                raise
            done = _read_write(src, dst, at, min(count, _CHUNK))
        if done == 0:
            return  # the file got shorter while it was copied
        at += done


def _read_write(src: int, dst: int, at: int, count: int) -> int:
    data = os.pread(src, count, at)
    view = memoryview(data)
    written = 0
    while written < len(data):
        written += os.pwrite(dst, view[written:], at + written)
    return len(data)
