"""API messages as recorded (`store.messages`): whole messages, or block by block as each block
finishes, every call its own committed transaction (so `kill -9` mid-turn loses at most the block
in flight); reading them back whole (repaired into a valid conversation) or a page at a time for
display."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Mapping
from typing import Any

from agent_tui.redact import redact, redact_obj, secret_values
from agent_tui.sessions import search as search_mod
from agent_tui.sessions.database import Database, touch
from agent_tui.sessions.event_buffer import dumps
from agent_tui.sessions.records import Content, StoredMessage, title_from_prompt
from agent_tui.sessions.repair import repair_messages
from agent_tui.sessions.search import SEARCH_TEXT_MAX, search_text

#: the `blocks` row of a message's block still streaming (`put_draft`): after every real one
DRAFT_IDX = 1 << 30
#: how a block that was still streaming when its process ended reads back
CUT_OFF = "\n\n[cut off: agent-tui stopped while this answer was streaming]"


class MessageLog:
    """`store.messages`: the `messages` and `blocks` tables, and what they add to search."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def add(self, session_id: str, role: str, content: Content) -> int:
        """Record a whole message (a prompt, or any message not streamed); returns its seq."""
        return self.extend(session_id, [{"role": role, "content": content}])[0]

    def extend(
        self, session_id: str, messages: Iterable[Mapping[str, Any]], *, at: float | None = None
    ) -> list[int]:
        """Record whole messages in order, in one transaction; returns their seqs."""
        now = time.time() if at is None else at
        values = secret_values()
        msg_rows: list[tuple[Any, ...]] = []
        block_rows: list[tuple[Any, ...]] = []
        doc_rows: list[tuple[Any, ...]] = []
        first_prompt = ""
        with self._db.tx() as conn:
            seq = self._next_seq(conn, session_id)
            seqs: list[int] = []
            for message in messages:
                role = message["role"]
                content = redact_obj(message["content"], values)
                if isinstance(content, str):
                    msg_rows.append((session_id, seq, role, content, now))
                    if role == "user" and content.strip():
                        doc_rows.append((session_id, seq, "prompt", content[:SEARCH_TEXT_MAX]))
                else:
                    msg_rows.append((session_id, seq, role, None, now))
                    for idx, block in enumerate(content):
                        block_rows.append((session_id, seq, idx, dumps(block), now))
                        found = search_text(role, block)
                        if found:
                            doc_rows.append((session_id, seq, *found))
                if role == "user" and not first_prompt:
                    first_prompt = _prompt_text(content)
                seqs.append(seq)
                seq += 1
            touch(conn, session_id, now, messages=len(seqs))
            conn.executemany(
                "INSERT INTO messages (session_id, seq, role, text, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                msg_rows,
            )
            conn.executemany(
                "INSERT INTO blocks (session_id, message_seq, idx, json, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                block_rows,
            )
            search_mod.index(conn, doc_rows)
            if first_prompt.strip():
                self._default_title(conn, session_id, first_prompt)
        return seqs

    def begin(self, session_id: str, role: str) -> int:
        """Start a message to be filled by `append_block`; returns its seq."""
        now = time.time()
        with self._db.tx() as conn:
            seq = self._next_seq(conn, session_id)
            touch(conn, session_id, now, messages=1)
            conn.execute(
                "INSERT INTO messages (session_id, seq, role, text, created_at) "
                "VALUES (?, ?, ?, NULL, ?)",
                (session_id, seq, role, now),
            )
        return seq

    def append_block(self, session_id: str, message_seq: int, block: dict[str, Any]) -> int:
        """Commit one finished content block (or tool_result) of a begun message; returns its index.

        Buffered events are written in the same transaction.
        """
        now = time.time()
        block = redact_obj(block)
        with self._db.tx() as conn:
            row = conn.execute(
                "SELECT role, text IS NOT NULL FROM messages WHERE session_id = ? AND seq = ?",
                (session_id, message_seq),
            ).fetchone()
            if row is None:
                raise LookupError(f"session {session_id!r} has no message {message_seq}")
            role, is_text = row
            if is_text:
                raise ValueError(f"message {message_seq} has string content; cannot add blocks")
            # the finished block replaces the text kept while it streamed (`put_draft`)
            conn.execute(
                "DELETE FROM blocks WHERE session_id = ? AND message_seq = ? AND idx = ?",
                (session_id, message_seq, DRAFT_IDX),
            )
            (idx,) = conn.execute(
                "SELECT coalesce(max(idx) + 1, 0) FROM blocks "
                "WHERE session_id = ? AND message_seq = ? AND idx < ?",
                (session_id, message_seq, DRAFT_IDX),
            ).fetchone()
            conn.execute(
                "INSERT INTO blocks (session_id, message_seq, idx, json, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (session_id, message_seq, idx, dumps(block), now),
            )
            touch(conn, session_id, now)
            found = search_text(role, block)
            if found:
                search_mod.index(conn, [(session_id, message_seq, *found)])
            if role == "user" and block.get("type") == "text":
                self._default_title(conn, session_id, block.get("text") or "")
        return int(idx)

    def drop_last(self, session_id: str, message_seq: int) -> None:
        """Take back the session's last message (`message_seq`; a prompt that was never sent):
        its blocks, its search text, its count, and the title it gave a session it was alone in."""
        with self._db.tx() as conn:
            (last,) = conn.execute(
                "SELECT max(seq) FROM messages WHERE session_id = ?", (session_id,)
            ).fetchone()
            if last != message_seq:
                return
            first = conn.execute(
                "SELECT json FROM blocks WHERE session_id = ? AND message_seq = ? ORDER BY idx",
                (session_id, message_seq),
            ).fetchone()
            for table in ("blocks", "search_docs"):
                conn.execute(
                    f"DELETE FROM {table} WHERE session_id = ? AND message_seq = ?",
                    (session_id, message_seq),
                )
            conn.execute(
                "DELETE FROM messages WHERE session_id = ? AND seq = ?", (session_id, message_seq)
            )
            touch(conn, session_id, time.time(), messages=-1)
            given = title_from_prompt(json.loads(first[0]).get("text") or "") if first else ""
            if message_seq == 0 and given:
                conn.execute(
                    "UPDATE sessions SET title = '' WHERE id = ? AND title = ?", (session_id, given)
                )

    def put_draft(self, session_id: str, message_seq: int, text: str) -> None:
        """Keep the text of the block streaming now, as it stands (each call replaces the last),
        so a process killed mid-answer loses only what came since. The block that finishes
        replaces it; if none does, it loads as a text block marked cut off (`CUT_OFF`)."""
        now = time.time()
        data = dumps({"type": "text", "text": redact(text)})
        with self._db.tx() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO blocks (session_id, message_seq, idx, json, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (session_id, message_seq, DRAFT_IDX, data, now),
            )
            touch(conn, session_id, now)

    def _next_seq(self, conn: sqlite3.Connection, session_id: str) -> int:
        (seq,) = conn.execute(
            "SELECT coalesce(max(seq) + 1, 0) FROM messages WHERE session_id = ?", (session_id,)
        ).fetchone()
        return int(seq)

    def _default_title(self, conn: sqlite3.Connection, session_id: str, prompt: str) -> None:
        title = title_from_prompt(prompt)
        if title:
            conn.execute(
                "UPDATE sessions SET title = ? WHERE id = ? AND title = ''", (title, session_id)
            )

    def load(self, session_id: str, *, repair: bool = True) -> list[dict[str, Any]]:
        """The conversation as API messages, repaired into a valid one (see `repair.py`).

        With `repair=False`: exactly what was recorded. A repaired conversation may end with a
        user message of "interrupted" tool results; the API merges it with the next prompt.
        """
        messages = [m.to_api() for m in self._load_range(session_id, None, None)]
        return repair_messages(messages) if repair else messages

    def count(self, session_id: str) -> int:
        """How many messages are recorded."""
        with self._db.lock:
            sql = "SELECT count(*) FROM messages WHERE session_id = ?"
            (n,) = self._db.conn.execute(sql, (session_id,)).fetchone()
        return int(n)

    def tail(self, session_id: str, n: int, *, before: int | None = None) -> list[StoredMessage]:
        """The last `n` recorded messages with seq < `before` (all when None), oldest first.

        For display: page backwards with `before=oldest_loaded.seq`. Not repaired.
        """
        if n <= 0:
            return []
        with self._db.lock:
            sql = "SELECT seq FROM messages WHERE session_id = ?"
            args: list[Any] = [session_id]
            if before is not None:
                sql += " AND seq < ?"
                args.append(before)
            sql += " ORDER BY seq DESC LIMIT 1 OFFSET ?"
            args.append(n - 1)
            row = self._db.conn.execute(sql, args).fetchone()
            start = int(row[0]) if row else 0
            return self._load_range(session_id, start, before)

    def _load_range(
        self, session_id: str, start: int | None, end: int | None
    ) -> list[StoredMessage]:
        """Messages with start <= seq < end (None: unbounded)."""
        lo = -1 if start is None else start
        hi = (1 << 62) if end is None else end
        with self._db.lock:
            conn = self._db.conn
            rows = conn.execute(
                "SELECT seq, role, text, created_at FROM messages "
                "WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq",
                (session_id, lo, hi),
            ).fetchall()
            blocks = conn.execute(
                "SELECT message_seq, idx, json FROM blocks "
                "WHERE session_id = ? AND message_seq >= ? AND message_seq < ? "
                "ORDER BY message_seq, idx",
                (session_id, lo, hi),
            ).fetchall()
        by_seq: dict[int, list[dict[str, Any]]] = {}
        for seq, idx, text in blocks:
            block = json.loads(text)
            if idx == DRAFT_IDX:  # streamed when the process ended: what came, marked cut off
                block = {"type": "text", "text": block.get("text", "") + CUT_OFF}
            by_seq.setdefault(seq, []).append(block)
        return [
            StoredMessage(seq, role, text if text is not None else by_seq.get(seq, []), created)
            for seq, role, text, created in rows
        ]


def _prompt_text(content: Content) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(
        b.get("text", "") for b in content if b.get("type") == "text" and b.get("text")
    )
