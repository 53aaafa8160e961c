"""Helpers for the store-fault tests: a store that fails on demand, a damaged and a newer database,
and a small tmpfs that fills up."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agent_tui.sessions.schema import SCHEMA_VERSION
from agent_tui.sessions.store import SessionStore

DISK_FULL = "database or disk is full"


class FaultyStore(SessionStore):
    """A real store whose writes fail with `fault` (SQLite's own message) while it is set."""

    fault: str | None = None
    failed_writes = 0

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        if self.fault is not None and not self.in_tx:
            self.failed_writes += 1
            raise sqlite3.OperationalError(self.fault)
        with super().tx() as conn:
            yield conn


def make_sessions(db: Path, cwd: Path, n: int = 3) -> list[str]:
    """A database with `n` small sessions (each with a denied tool call)."""
    ids = []
    with SessionStore(db) as store:
        for i in range(n):
            sid = store.sessions.create(cwd, "claude-test")
            store.messages.add(sid, "user", f"prompt number {i} " + "words " * 400)
            store.messages.add(sid, "assistant", [{"type": "text", "text": "answer " * 400}])
            store.runs.record(sid, f"toolu_{i}", "Bash", {"command": "rm -rf /"}, decision="deny")
            ids.append(sid)
    return ids


def schema_pages() -> int:
    """How many pages a new, empty session database has (its schema)."""
    with SessionStore(":memory:") as store:
        return int(store.conn.execute("PRAGMA page_count").fetchone()[0])


def damage(db: Path, *, schema: bool = False) -> None:
    """Overwrite pages with garbage: those holding the data (the schema stays readable, so the
    file opens and reads fail), or with `schema` every page but the header's."""
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = int(conn.execute("PRAGMA page_size").fetchone()[0])
    first = 2 if schema else schema_pages() + 1
    size = db.stat().st_size
    with open(db, "r+b") as f:
        for number in range(first, size // page + 1):
            f.seek((number - 1) * page)
            f.write(bytes([0xA5]) * page)


def make_newer(db: Path) -> None:
    """A database as a newer agent-tui leaves it (a higher schema version)."""
    with SessionStore(db):
        pass
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")


@contextmanager
def small_tmpfs(where: Path, size: str = "2m") -> Iterator[Path | None]:
    """A tmpfs of `size` mounted at `where` (None when mounting isn't allowed here)."""
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        yield None
        return
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        yield None
        return
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(directory: Path) -> Path:
    """Fill the file system `directory` is on; returns the filler (delete it to free space)."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for size in (65536, 512, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)
    return filler
