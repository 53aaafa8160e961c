"""The replay events waiting to be written: buffered in memory, committed with the next boundary.

Events come per token, so they are not written one by one: they wait in the buffer until an event
whose class says `commit_boundary` (a finished block, a tool result, a decision, the turn's end)
arrives, until the buffer is large, or until the store flushes; then they are written in the same
transaction as whatever the store commits next. Everything is redacted on the way to disk;
streamed pieces (an event class's `delta_text`) are joined per stream first, so a secret split
across deltas is still caught.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import TYPE_CHECKING, Any

from agent_tui.redact import redact, redact_obj, secret_values
from agent_tui.sessions import chain

if TYPE_CHECKING:
    from agent_tui.protocol.events import Event

EVENT_BUFFER_MAX = 4_000

# (session id, time, kind, the event as a dict, its class's delta_text)
_Pending = tuple[str, float, str, dict[str, Any], tuple[str, str] | None]


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class EventBuffer:
    """The database's `pending` events; `Database.tx` writes them inside every commit."""

    def __init__(self) -> None:
        self._pending: list[_Pending] = []
        #: what `write` took in the transaction under way (put back if it fails)
        self._taken: list[_Pending] = []

    def __bool__(self) -> bool:
        return bool(self._pending)

    def add(self, session_id: str, event: Event) -> bool:
        """Buffer one event; True when the buffer should be committed now."""
        self._pending.append(
            (session_id, time.time(), event.kind, event.to_dict(), type(event).delta_text)
        )
        return event.commit_boundary or len(self._pending) >= EVENT_BUFFER_MAX

    def begin(self) -> None:
        """A write transaction starts: what `write` takes in it can be put back (`restore`)."""
        self._taken = []

    def restore(self) -> None:
        """The transaction failed: what `write` took in it waits again, before anything
        buffered since, for the next commit."""
        self._pending[:0] = self._taken
        self._taken = []

    def drop(self, session_id: str) -> None:
        self._pending = [e for e in self._pending if e[0] != session_id]

    def write(self, conn: sqlite3.Connection) -> None:
        """Write the buffer inside the caller's transaction."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        self._taken = pending
        # Numbered and chained inside the write transaction (not cached), so two processes
        # appending to one session cannot collide and take the block commit down with them.
        by_session: dict[str, list[tuple[float, str, str]]] = {}
        for session_id, ts, kind, data in _redacted(pending):
            by_session.setdefault(session_id, []).append((ts, kind, dumps(data)))
        ids = sorted(by_session)
        marks = ",".join("?" * len(ids))
        known = {r[0] for r in conn.execute(f"SELECT id FROM sessions WHERE id IN ({marks})", ids)}
        chained = []
        for session_id in ids:
            if session_id not in known:
                continue  # events of a deleted session are dropped
            last = chain.head(conn, session_id)
            seq, prev = (0, chain.GENESIS) if last is None else (last[0] + 1, last[1])
            rows = by_session[session_id]
            numbered = [(session_id, seq + i, *row) for i, row in enumerate(rows)]
            chained += chain.chain_rows(prev, numbered)
        conn.executemany(
            "INSERT INTO events (session_id, seq, ts, type, json, hash) VALUES (?, ?, ?, ?, ?, ?)",
            chained,
        )


def _redacted(pending: list[_Pending]) -> list[tuple[str, float, str, dict[str, Any]]]:
    """Redact a batch of events; streamed pieces are checked joined per stream, and a stream whose
    joined text held a secret is stored as one piece (its timing is lost, the secret too)."""
    values = secret_values()
    groups: dict[tuple[str, str, Any], list[int]] = {}
    out: list[tuple[str, float, str, dict[str, Any]] | None] = []
    for i, (session_id, ts, kind, data, spec) in enumerate(pending):
        if spec is None:
            out.append((session_id, ts, kind, redact_obj(data, values)))
            continue
        key_field, text_field = spec
        groups.setdefault((session_id, kind, data.get(key_field)), []).append(i)
        # Everything but the streamed text (a status line, say) is redacted on its own.
        rest = redact_obj({k: v for k, v in data.items() if k != text_field}, values)
        out.append((session_id, ts, kind, {**rest, text_field: data.get(text_field, "")}))
    for indexes in groups.values():
        text_field = pending[indexes[0]][4][1]  # type: ignore[index]
        joined = "".join(str(pending[i][3].get(text_field, "")) for i in indexes)
        clean = redact(joined, values)
        if clean is joined or clean == joined:
            continue
        first = out[indexes[0]]
        assert first is not None
        out[indexes[0]] = (first[0], first[1], first[2], {**first[3], text_field: clean})
        for i in indexes[1:]:
            out[i] = None
    return [e for e in out if e is not None]
