"""The sessions themselves (`store.sessions`): creating, finding (by id prefix, newest first,
by what was said in them), titling and deleting them."""

from __future__ import annotations

import os
import sqlite3
import time
from typing import Any

from agent_tui.redact import redact
from agent_tui.sessions import search as search_mod
from agent_tui.sessions.audit import review_clause
from agent_tui.sessions.database import Database, touch
from agent_tui.sessions.records import (
    SESSION_COLS,
    AmbiguousSessionId,
    SearchHit,
    SessionInfo,
    SessionNotFound,
    new_session_id,
    session_info,
)

#: every table holding a session's records, by its session column (deleted with the session)
_RECORD_TABLES = ("search_docs", "blocks", "messages", "events", "tool_runs", "turns", "blobs")


class SessionCatalog:
    """`store.sessions`: the `sessions` table (and the search index's queries)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def create(
        self,
        cwd: str | os.PathLike[str],
        model: str,
        title: str | None = None,
        *,
        created_at: float | None = None,
        parent_id: str | None = None,
    ) -> str:
        """A new, empty session; its title comes from the first prompt unless given here.
        `parent_id`: the session whose sub-agent this one is."""
        now = time.time() if created_at is None else created_at
        cwd_s = os.path.abspath(os.fspath(cwd))
        with self._db.tx() as conn:
            while True:
                session_id = new_session_id(None if created_at is None else created_at)
                try:
                    conn.execute(
                        "INSERT INTO sessions (id, title, cwd, model, created_at, updated_at, "
                        "parent_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (session_id, redact(title or ""), cwd_s, model, now, now, parent_id),
                    )
                    return session_id
                except sqlite3.IntegrityError:  # same millisecond and random tail: try again
                    continue

    def set_title(self, session_id: str, title: str) -> None:
        with self._db.tx() as conn:
            touch(conn, session_id, time.time())
            conn.execute(
                "UPDATE sessions SET title = ? WHERE id = ?", (redact(title.strip()), session_id)
            )

    def set_system_prompt(self, session_id: str, text: str) -> None:
        with self._db.tx() as conn:
            conn.execute(
                "UPDATE sessions SET system_prompt = ? WHERE id = ?", (redact(text), session_id)
            )

    def system_prompt(self, session_id: str) -> str | None:
        with self._db.lock:
            row = self._db.conn.execute(
                "SELECT system_prompt FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
        return row[0] if row else None

    def get(self, session_id: str) -> SessionInfo | None:
        with self._db.lock:
            row = self._db.conn.execute(
                f"SELECT {SESSION_COLS} FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
        return session_info(row) if row else None

    def resolve(self, prefix: str) -> str:
        """The full id of the one session whose id starts with `prefix` (like git)."""
        prefix = prefix.strip().lower()
        if not prefix:
            raise SessionNotFound("empty session id")
        with self._db.lock:
            rows = self._db.conn.execute(
                "SELECT id FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT 6",
                (prefix, prefix + "\uffff"),
            ).fetchall()
        ids: list[str] = [r[0] for r in rows]
        if prefix in ids:
            return prefix
        if not ids:
            raise SessionNotFound(f"no session matches {prefix!r}")
        if len(ids) > 1:
            raise AmbiguousSessionId(prefix, ids)
        return ids[0]

    def recent(
        self,
        limit: int = 50,
        offset: int = 0,
        cwd: str | os.PathLike[str] | None = None,
        *,
        hide_empty: bool = False,
        hide_failed: bool = False,
        top_level: bool = False,
        review: str | None = None,
    ) -> list[SessionInfo]:
        """Sessions, most recently active first; optionally without those that never got an
        answer (`hide_empty`) or whose last turn failed or was cancelled (`hide_failed`)."""
        sql = f"SELECT {SESSION_COLS} FROM sessions s"
        where: list[str] = []
        args: list[Any] = []
        if cwd is not None:
            where.append("cwd = ?")
            args.append(os.path.abspath(os.fspath(cwd)))
        if hide_empty:
            where.append("message_count >= 2")
        if top_level:  # not a sub-agent's conversation
            where.append("parent_id IS NULL")
        audit = review_clause(review)  # "unreviewed", "denied", "rule:<rule>" (`audit.py`)
        if audit is not None:
            where.append(audit[0])
            args += audit[1]
        if hide_failed:
            where.append(
                "NOT EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id AND t.stop_reason "
                "IS NULL AND t.seq = (SELECT max(seq) FROM turns WHERE session_id = s.id))"
            )
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?"
        args += [limit, offset]
        with self._db.lock:
            rows = self._db.conn.execute(sql, args).fetchall()
        return [session_info(r) for r in rows]

    def count(self, cwd: str | os.PathLike[str] | None = None) -> int:
        sql, args = "SELECT count(*) FROM sessions", []
        if cwd is not None:
            sql, args = sql + " WHERE cwd = ?", [os.path.abspath(os.fspath(cwd))]
        with self._db.lock:
            return int(self._db.conn.execute(sql, args).fetchone()[0])

    def latest(self, cwd: str | os.PathLike[str]) -> SessionInfo | None:
        """The most recently active session in `cwd` (for `--continue`)."""
        found = self.recent(limit=1, cwd=cwd, top_level=True)
        return found[0] if found else None

    def delete(self, session_id: str) -> bool:
        """Remove a session and everything recorded for it; False if there was none."""
        with self._db.tx() as conn:
            self._db.pending.drop(session_id)
            for table in _RECORD_TABLES:
                conn.execute(f"DELETE FROM {table} WHERE session_id = ?", (session_id,))
            return conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0

    def search(
        self,
        text: str,
        limit: int = 20,
        *,
        cwd: str | os.PathLike[str] | None = None,
        session_id: str | None = None,
        marks: tuple[str, str] = ("[", "]"),
        review: str | None = None,
    ) -> list[SearchHit]:
        """Full-text search of what was said, newest first (see `search.search`), in the
        sessions an audit filter (`review`, as for `recent`) finds."""
        with self._db.lock:
            return search_mod.search(
                self._db.conn,
                text,
                limit,
                cwd=cwd,
                session_id=session_id,
                marks=marks,
                sessions=review_clause(review),
            )
