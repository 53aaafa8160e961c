"""The session store's base: one SQLite connection, a re-entrant lock, nestable transactions.

The store is assembled from this base and the logs (`message_log`, `run_log`); each log's methods
use `_tx()` for writes (one small committed transaction each, nesting into `batch()`) and `_lock`
plus `_c` for reads. Buffered replay events are written inside every commit (`event_log`).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from agent_tui.sessions.event_log import EventLog
from agent_tui.sessions.records import SessionNotFound


class StoreBase:
    _conn: sqlite3.Connection | None

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._depth = 0
        self._events = EventLog()

    @property
    def _c(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("session store is closed")
        return self._conn

    def flush(self) -> None:
        """Commit buffered events now."""
        with self._lock:
            if self._events and self._conn is not None:
                with self._tx():
                    pass  # _tx writes the buffer before committing

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group many calls into one transaction (imports, benchmarks); nests freely."""
        with self._tx():
            yield

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._c
            if self._depth:
                self._depth += 1
                try:
                    yield conn
                finally:
                    self._depth -= 1
                return
            conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            self._events.begin()
            try:
                yield conn
                self._events.write(conn)
                conn.execute("COMMIT")
            except BaseException:
                # SQLite may have rolled back already (a full disk, a damaged page); a COMMIT
                # that failed leaves the transaction open. Either way nothing of it stays, and
                # the buffered events wait for the next commit (the store fails soft).
                if conn.in_transaction:
                    with suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                self._events.restore()
                raise
            finally:
                self._depth = 0

    def _touch(
        self, conn: sqlite3.Connection, session_id: str, now: float, messages: int = 0
    ) -> None:
        cur = conn.execute(
            "UPDATE sessions SET updated_at = ?, message_count = message_count + ? WHERE id = ?",
            (now, messages, session_id),
        )
        if cur.rowcount == 0:
            raise SessionNotFound(f"no session {session_id!r}")
