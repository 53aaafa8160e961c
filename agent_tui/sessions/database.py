"""The session database: one SQLite connection, a re-entrant lock, nestable transactions.

`SessionStore` is a `Database` with one part per kind of record (`store.sessions`,
`store.messages`, `store.runs`, `store.turns`, `store.checkpoints`, `store.events`); each part
holds a reference to the database and owns its tables' SQL. A part writes inside `tx()` (one
small committed transaction each, nesting into `batch()`) and reads under `lock` through
`conn`. Replay events wait in `pending` and are written inside every commit (`event_buffer`).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from agent_tui.sessions.event_buffer import EventBuffer
from agent_tui.sessions.faults import on_full_disk
from agent_tui.sessions.records import SessionNotFound
from agent_tui.sessions.schema import migrate


class Database:
    """Safe to share between threads: every part's call takes `lock`, so calls are serialized."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.lock = threading.RLock()
        self._depth = 0
        #: replay events waiting for the next commit
        self.pending = EventBuffer()
        self.path = Path(path)
        if str(path) != ":memory:" and not self.path.exists():
            # Sessions hold command output; keep the file private from the start.
            self.path.parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        conn = sqlite3.connect(
            str(path), isolation_level=None, check_same_thread=False, timeout=5.0
        )
        self._conn: sqlite3.Connection | None = conn
        try:
            self._open(conn)
        except sqlite3.Error as exc:
            conn.close()
            self._conn = None
            raise on_full_disk(exc, self.path) from exc
        except BaseException:
            conn.close()
            self._conn = None
            raise

    def _open(self, conn: sqlite3.Connection) -> None:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=5000")
        conn.execute("PRAGMA temp_store=MEMORY")
        conn.execute("PRAGMA cache_size=-32000")  # 32 MB at most: big sessions, FTS merges
        migrate(conn)

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection, for reads under `lock` (writes go through `tx`)."""
        if self._conn is None:
            raise RuntimeError("session store is closed")
        return self._conn

    @property
    def closed(self) -> bool:
        return self._conn is None

    def close(self) -> None:
        """Write buffered events and close; safe to call twice."""
        with self.lock:
            if self._conn is None:
                return
            try:
                self.flush()
            finally:
                self._conn.close()
                self._conn = None

    def flush(self) -> None:
        """Commit buffered events now."""
        with self.lock:
            if self.pending and self._conn is not None:
                with self.tx():
                    pass  # tx writes the buffer before committing

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group many calls into one transaction (imports, benchmarks); nests freely."""
        with self.tx():
            yield

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (BEGIN IMMEDIATE … COMMIT), or a part of the one under way."""
        with self.lock:
            conn = self.conn
            if self._depth:
                self._depth += 1
                try:
                    yield conn
                finally:
                    self._depth -= 1
                return
            conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            self.pending.begin()
            try:
                yield conn
                self.pending.write(conn)
                conn.execute("COMMIT")
            except BaseException as failed:
                # SQLite may have rolled back already (a full disk, a damaged page); a COMMIT
                # that failed leaves the transaction open. Either way nothing of it stays, and
                # the buffered events wait for the next commit (the store fails soft).
                if conn.in_transaction:
                    with suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                self.pending.restore()
                if isinstance(failed, sqlite3.Error):
                    full = on_full_disk(failed, self.path)
                    if full is not failed:
                        raise full from failed
                raise
            finally:
                self._depth = 0

    @property
    def in_tx(self) -> bool:
        """A transaction is under way (a write now nests into it)."""
        return self._depth > 0


def touch(conn: sqlite3.Connection, session_id: str, now: float, messages: int = 0) -> None:
    """Mark a session active now (and count `messages` more); raises if there is no such session.
    Every part calls it inside its write transaction."""
    cur = conn.execute(
        "UPDATE sessions SET updated_at = ?, message_count = message_count + ? WHERE id = ?",
        (now, messages, session_id),
    )
    if cur.rowcount == 0:
        raise SessionNotFound(f"no session {session_id!r}")
