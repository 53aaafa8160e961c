"""File operations for restores that go only where a checkpoint recorded (issue 29, item 8).

A checkpoint records resolved paths: no folder on the way to a recorded file was a symbolic
link. A symlink planted there since (`ln -s /elsewhere sub`) would make a plain write or delete
land outside the project. Here every folder below the project root is opened without following
links (`O_NOFOLLOW`), one at a time, and the write, rename or delete is done relative to the last
one, so what is checked is what is changed: no window between a check and the change. A path
outside the root (a Write the person approved there) is walked the same way from `/`.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Protocol

#: the name every temporary file put beside a target has: `.<name>.agent-tui-<token>.tmp`
TEMP_MARK = ".agent-tui-"
TEMP_SUFFIX = ".tmp"

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def temp_name(name: str) -> str:
    return f".{name[:180]}{TEMP_MARK}{os.urandom(4).hex()}{TEMP_SUFFIX}"


def is_temp_name(name: str) -> bool:
    return name.startswith(".") and TEMP_MARK in name and name.endswith(TEMP_SUFFIX)


class Journal(Protocol):
    """Where a temporary file is named before it is made (`scratch.Scratch`)."""

    def journal(self, target: Path) -> Path | None: ...

    def done(self, entry: Path | None) -> None: ...


class Refused(OSError):
    """The path does not resolve where it did: it is not touched."""


def _walk(root: Path, path: Path) -> tuple[Path, list[str]]:
    try:
        return root, list(path.relative_to(root).parts)
    except ValueError:
        return Path(path.anchor or "/"), list(path.parts[1:])


def refusal(root: Path, path: Path) -> str:
    """Why `path` can't be restored safely now ("" when it can): a folder on its way is a
    symbolic link or not a folder. Reads only; `open_parent` checks again when it acts."""
    start, parts = _walk(root, path)
    at = start
    for part in parts[:-1]:
        at = at / part
        try:
            mode = os.lstat(at).st_mode
        except FileNotFoundError:
            return ""  # made afresh (as a real folder) if needed
        except OSError as exc:
            return f"{_shown(at, root)}: {exc.strerror or exc}"
        if stat.S_ISLNK(mode):
            return f"{_shown(at, root)} is now a symbolic link (to {_link(at)}); not followed"
        if not stat.S_ISDIR(mode):
            return f"{_shown(at, root)} is no longer a folder"
    return ""


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _link(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"


@contextmanager
def open_parent(root: Path, path: Path, *, create: bool) -> Iterator[int]:
    """A descriptor of `path`'s folder reached from `root` without following a symbolic link
    (missing folders are made when `create`). Raises `Refused` when a folder on the way is a
    link or not a folder, FileNotFoundError when one is missing and not `create`."""
    start, parts = _walk(root, path)
    fd = os.open(start, _DIR_FLAGS)
    try:
        for part in parts[:-1]:
            try:
                nxt = os.open(part, _DIR_FLAGS | _NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with suppress(FileExistsError):
                    os.mkdir(part, dir_fd=fd)
                nxt = _open_no_follow(part, fd, path, root)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise Refused(errno.ELOOP, _why(fd, part, path, root)) from None
                raise
            os.close(fd)
            fd = nxt
        yield fd
    finally:
        os.close(fd)


def _open_no_follow(part: str, fd: int, path: Path, root: Path) -> int:
    try:
        return os.open(part, _DIR_FLAGS | _NOFOLLOW, dir_fd=fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise Refused(errno.ELOOP, _why(fd, part, path, root)) from None
        raise


def _why(fd: int, part: str, path: Path, root: Path) -> str:
    try:
        is_link = stat.S_ISLNK(os.stat(part, dir_fd=fd, follow_symlinks=False).st_mode)
    except OSError:
        is_link = False
    what = "is now a symbolic link; not followed" if is_link else "is no longer a folder"
    return f"a folder on the way to {_shown(path, root)} ({part}) {what}"


def delete(root: Path, path: Path) -> None:
    """Remove the file (or symbolic link) at `path`; a missing one is fine."""
    with suppress(FileNotFoundError), open_parent(root, path, create=False) as fd:
        os.unlink(path.name, dir_fd=fd)


def write(root: Path, path: Path, data: bytes, *, executable: bool, scratch: Journal) -> None:
    """Put `data` at `path` atomically (a temporary file beside it, renamed over it): the file
    keeps its permission bits, with the execute bits as git's mode says."""
    with open_parent(root, path, create=True) as fd:
        try:
            st = os.stat(path.name, dir_fd=fd, follow_symlinks=False)
            mode: int | None = stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None
        except FileNotFoundError:
            mode = None
        if mode is not None and not os.access(path.name, os.W_OK, dir_fd=fd):
            raise PermissionError(errno.EACCES, "the file is read-only", str(path))
        if mode is None:  # a new file: the usual 0o666 less the umask
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        mode = (mode | (mode & 0o444) >> 2) if executable else mode & ~0o111
        with _temporary(path, fd, scratch) as tmp:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
            out = os.open(tmp, flags, 0o600, dir_fd=fd)
            with os.fdopen(out, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
                os.fchmod(f.fileno(), mode)
            os.replace(tmp, path.name, src_dir_fd=fd, dst_dir_fd=fd)


def symlink(root: Path, path: Path, target: str, *, scratch: Journal) -> None:
    """Make `path` a symbolic link to `target` (replacing what is there, atomically)."""
    with open_parent(root, path, create=True) as fd, _temporary(path, fd, scratch) as tmp:
        os.symlink(target, tmp, dir_fd=fd)
        os.replace(tmp, path.name, src_dir_fd=fd, dst_dir_fd=fd)


@contextmanager
def _temporary(path: Path, fd: int, scratch: Journal) -> Iterator[str]:
    """A temporary name beside `path`, journaled first so a kill leaves nothing for good."""
    tmp = temp_name(path.name)
    entry = scratch.journal(path.parent / tmp)
    try:
        yield tmp
    finally:
        with suppress(OSError):
            os.unlink(tmp, dir_fd=fd)  # gone already once renamed into place
        scratch.done(entry)
