"""The hash chain over a session's stored events: tamper evidence for the replay log.

Each row of `events` carries `hash = sha256(previous row's hash + "\\n" + the row's canonical
content)`, computed when the row is written (`event_buffer.EventBuffer.write`), never at export. The
canonical content is the JSON array `[session_id, seq, ts, type, json]` (compact, `ts` as Python
writes a float), so any change to a stored row, a row taken out of the middle, or rows swapped
break the chain at that row. `verify` recomputes it and names the first row that no longer
matches.

What it can't prove: someone with the file can rebuild the whole chain after an edit, and rows
cut off the end leave a shorter chain that still holds. The review report prints the head hash;
keep it (or pass it to `agent-tui sessions verify ID --expect HASH`) to anchor a session.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass

#: the "previous hash" of a session's first event
GENESIS = ""


def row_hash(prev: str, session_id: str, seq: int, ts: float, kind: str, text: str) -> str:
    import hashlib  # at the first event written: `hashlib` is 2 ms of a start (issue 34)

    canon = json.dumps(
        [session_id, seq, float(ts), kind, text], ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(f"{prev}\n{canon}".encode()).hexdigest()


def chain_rows(
    prev: str, rows: Iterable[tuple[str, int, float, str, str]]
) -> list[tuple[str, int, float, str, str, str]]:
    """Rows of one session, in seq order, with their hashes appended (chained from `prev`)."""
    out = []
    for session_id, seq, ts, kind, text in rows:
        prev = row_hash(prev, session_id, seq, ts, kind, text)
        out.append((session_id, seq, ts, kind, text, prev))
    return out


def head(conn: sqlite3.Connection, session_id: str) -> tuple[int, str] | None:
    """(seq, hash) of the session's last stored event, or None when it has none."""
    row = conn.execute(
        "SELECT seq, hash FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    return None if row is None else (int(row[0]), row[1] or GENESIS)


def backfill(conn: sqlite3.Connection) -> None:
    """Schema step: chain the events recorded before the chain existed (oldest first)."""
    cur = conn.execute(
        "SELECT session_id, seq, ts, type, json FROM events ORDER BY session_id, seq"
    )
    prev, current, batch = GENESIS, None, []
    for session_id, seq, ts, kind, text in cur:
        if session_id != current:
            prev, current = GENESIS, session_id
        prev = row_hash(prev, session_id, seq, ts, kind, text)
        batch.append((prev, session_id, seq))
        if len(batch) >= 5_000:
            _write_hashes(conn, batch)
            batch = []
    _write_hashes(conn, batch)


def _write_hashes(conn: sqlite3.Connection, batch: list[tuple[str, str, int]]) -> None:
    if batch:
        conn.executemany("UPDATE events SET hash = ? WHERE session_id = ? AND seq = ?", batch)


@dataclass(frozen=True, slots=True)
class ChainCheck:
    """What `verify` found: `bad_seq` is None when every row matches."""

    rows: int
    head: str
    bad_seq: int | None = None
    problem: str = ""

    @property
    def ok(self) -> bool:
        return self.bad_seq is None


def verify(conn: sqlite3.Connection, session_id: str) -> ChainCheck:
    """Recompute the session's chain; the first row whose stored hash doesn't follow from the
    previous row's hash and its own content is named (a missing seq counts as a break)."""
    prev, rows = GENESIS, 0
    cur = conn.execute(
        "SELECT seq, ts, type, json, hash FROM events WHERE session_id = ? ORDER BY seq",
        (session_id,),
    )
    for seq, ts, kind, text, stored in cur:
        if seq != rows:
            missing = "s" if seq - rows > 1 else ""
            return ChainCheck(rows, prev, rows, f"event{missing} {rows}–{seq - 1} missing")
        if not (isinstance(text, str) and isinstance(kind, str) and isinstance(ts, int | float)):
            return ChainCheck(rows, prev, seq, f"event {seq} holds a value of the wrong type")
        expected = row_hash(prev, session_id, seq, ts, kind, text)
        if stored != expected:
            what = "has no hash" if not stored else "does not match its hash"
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(ts)))
            return ChainCheck(rows, prev, seq, f"event {seq} ({kind}, {when}) {what}")
        prev, rows = stored, rows + 1
    return ChainCheck(rows, prev)
