"""The replay log (`store.events`): domain events as they happened, hash-chained, for replaying a
session and for its review. Appending buffers (`event_buffer`): events come per token and are
committed with the next boundary; every read writes what is buffered first. The events' module
loads with the first read: a resumed session's end is drawn from the store before any event is
read (`booting.read_ahead`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from agent_tui.sessions import chain
from agent_tui.sessions.chain import ChainCheck
from agent_tui.sessions.database import Database
from agent_tui.sessions.records import StoredEvent

if TYPE_CHECKING:
    from agent_tui.protocol.events import Event


class EventLog:
    """`store.events`: the `events` table (written by the database's `pending` buffer)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def append(self, session_id: str, event: Event) -> None:
        """Buffer a domain event for replay; committed at the next boundary (`event_buffer`)."""
        db = self._db
        with db.lock:
            if db.closed:  # fail loudly rather than drop the event
                raise RuntimeError("session store is closed")
            if db.pending.add(session_id, event):
                db.flush()

    def load(
        self, session_id: str, *, after: int = -1, limit: int | None = None
    ) -> list[StoredEvent]:
        """Recorded events with seq > `after`, in order. Sessions recorded with the earlier event
        names load through `LEGACY_KINDS`; unknown (newer) event types are skipped."""
        from agent_tui.protocol.events import EVENT_TYPES, LEGACY_KINDS, event_from_dict

        self._db.flush()
        with self._db.lock:
            rows = self._db.conn.execute(
                "SELECT seq, ts, json FROM events WHERE session_id = ? AND seq > ? "
                "ORDER BY seq LIMIT ?",
                (session_id, after, -1 if limit is None else limit),
            ).fetchall()
        out = []
        for seq, ts, text in rows:
            data = json.loads(text)
            kind = data.get("type")
            if kind in EVENT_TYPES or kind in LEGACY_KINDS:
                out.append(StoredEvent(seq, ts, event_from_dict(data)))
        return out

    def load_kinds(self, session_id: str, kinds: tuple[str, ...]) -> list[Event]:
        """The session's recorded events of these kinds, in order."""
        from agent_tui.protocol.events import event_from_dict

        self._db.flush()
        marks = ",".join("?" * len(kinds))
        with self._db.lock:
            rows = self._db.conn.execute(
                f"SELECT json FROM events WHERE session_id = ? AND type IN ({marks}) ORDER BY seq",
                (session_id, *kinds),
            ).fetchall()
        return [event_from_dict(json.loads(raw)) for (raw,) in rows]

    def last(self, session_id: str, kind: str) -> Event | None:
        """The newest recorded event of one kind (e.g. the last compaction), or None."""
        from agent_tui.protocol.events import event_from_dict

        self._db.flush()
        with self._db.lock:
            row = self._db.conn.execute(
                "SELECT json FROM events WHERE session_id = ? AND type = ? "
                "ORDER BY seq DESC LIMIT 1",
                (session_id, kind),
            ).fetchone()
        return event_from_dict(json.loads(row[0])) if row else None

    def verify_chain(self, session_id: str) -> ChainCheck:
        """Recompute the session's event hash chain (`chain.py`); names the first bad row."""
        self._db.flush()
        with self._db.lock:
            return chain.verify(self._db.conn, session_id)
