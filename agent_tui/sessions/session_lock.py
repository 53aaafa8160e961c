"""One session, one process: a recorder holds its session's lock for as long as it records there,
so a second agent-tui `--continue`-ing the same session is told it is in use (and by which pid)
instead of interleaving its turns with the first one's.

The lock is an OS lock (`flock`) on a small file next to the database, so it dies with the process
that held it: a `kill -9` leaves no stale lock behind, whatever the file still says. The file holds
the holder's pid, only to name it. Where `fcntl` doesn't exist (Windows) sessions aren't locked.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

LOCK_DIR = "session-locks"


class SessionInUse(Exception):
    """Another process records this session now."""

    def __init__(self, session_id: str, pid: int | None) -> None:
        who = f"pid {pid}" if pid else "another process"
        super().__init__(f"session {session_id} is in use by another agent-tui ({who})")
        self.session_id = session_id
        self.pid = pid


class SessionLock:
    """A held lock on one session (`release` it, or let the process end)."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path, self._fd = path, fd

    @classmethod
    def take(cls, db: Path, session_id: str) -> SessionLock | None:
        """Lock `session_id` of the database at `db`; raises `SessionInUse` if another process
        holds it. None when there is nothing to lock with (no `fcntl`, an in-memory database, a
        directory that can't be written: the session goes on unlocked rather than stopping)."""
        if fcntl is None or str(db) == ":memory:":
            return None
        path = db.parent / LOCK_DIR / f"{session_id}.lock"
        while True:
            try:
                path.parent.mkdir(mode=0o700, exist_ok=True)
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError:
                return None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                pid = _read_pid(fd)
                os.close(fd)
                raise SessionInUse(session_id, pid) from None
            # The holder before us may have removed the file between our open and our lock:
            # then this lock is on a file nobody else will open; take the one at the path.
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except OSError:
                same = False
            if not same:
                os.close(fd)
                continue
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            return cls(path, fd)

    def release(self) -> None:
        """Let the session go (safe to call twice)."""
        if self._fd < 0:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()  # before unlocking, so no one locks a file that is going away
        os.close(self._fd)  # closing drops the flock
        self._fd = -1


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


@contextlib.contextmanager
def holding(db: Path, session_id: str) -> Iterator[None]:
    """Hold a session for a moment (to delete it); raises `SessionInUse` if a process records it."""
    lock = SessionLock.take(db, session_id)
    try:
        yield
    finally:
        if lock is not None:
            lock.release()
