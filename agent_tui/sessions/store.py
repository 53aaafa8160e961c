"""The durable session store: SQLite (stdlib `sqlite3`, WAL) at `data_dir()/sessions.db`.

What is recorded, and when:

- API messages exactly as sent/received. An assistant message is recorded block by block as each
  block finishes (`begin_message` + `append_block`), a user message of tool results result by
  result, anything else whole (`add_message`). Every such call is its own committed transaction, so
  `kill -9` mid-turn loses at most the block in flight.
- Domain events for replay (`append_event`). They come per token, so they are buffered and written
  in the same transaction as the next block / tool result / decision, when a boundary event (a
  finished block, tool result, decision, turn end, …) arrives, when the buffer is large, or on
  `flush()` / `close()`. A crash loses the buffered events of the block in flight, nothing older.
- Tool runs (decision, deciding rule, result summary, exit code, timing) and per-turn usage/cost.

Everything written passes through `agent_tui.redact` first: secret env values, `sk-ant-…` keys and
`Authorization` / `x-api-key` header values never reach the file.

Threads: one `SessionStore` may be shared by any number of threads. It holds one connection
(`check_same_thread=False`) and every public method takes an internal re-entrant lock, so calls are
serialized. Writes are small transactions (well under a millisecond to a few ms), so calling them
from the UI's event loop is acceptable; `search`, `load_messages` of a big session and `export_*`
are better run in a worker thread. Several processes may share the file (WAL, 5 s busy timeout).

Durability: `synchronous=NORMAL` in WAL mode keeps every committed transaction across a process
crash (`kill -9`); only an OS crash or power loss can drop the last few commits.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from agent_tui.protocol.events import Event, event_from_dict
from agent_tui.redact import redact
from agent_tui.sessions import chain
from agent_tui.sessions import search as search_mod
from agent_tui.sessions.audit import AuditedCall, list_calls, review_clause
from agent_tui.sessions.chain import ChainCheck
from agent_tui.sessions.checkpoint_log import CheckpointLog
from agent_tui.sessions.event_log import load_events
from agent_tui.sessions.message_log import MessageLog
from agent_tui.sessions.records import (
    SESSION_COLS,
    AmbiguousSessionId,
    SearchHit,
    SessionInfo,
    SessionNotFound,
    StoredEvent,
    StoreUnavailable,
    new_session_id,
    session_info,
)
from agent_tui.sessions.run_log import RunLog
from agent_tui.sessions.schema import SchemaError, migrate

DB_NAME = "sessions.db"


class SessionStore(MessageLog, RunLog, CheckpointLog):
    """See the module docstring for what is recorded when, and the threading rule."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        self.path = Path(path)
        if str(path) != ":memory:" and not self.path.exists():
            # Sessions hold command output; keep the file private from the start.
            self.path.parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        self._conn = sqlite3.connect(
            str(path), isolation_level=None, check_same_thread=False, timeout=5.0
        )
        conn = self._conn
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=5000")
            conn.execute("PRAGMA temp_store=MEMORY")
            conn.execute("PRAGMA cache_size=-32000")  # 32 MB at most: big sessions, FTS merges
            migrate(conn)
        except BaseException:
            conn.close()
            self._conn = None
            raise

    @classmethod
    def open_default(cls) -> SessionStore:
        """The store at `data_dir()/sessions.db` (honours `AGENT_TUI_HOME`). A file there that
        can't be opened (not a database, a directory, no access, a newer agent-tui's schema)
        raises `StoreUnavailable`, with the path, and is left as it is."""
        from agent_tui.paths import data_dir

        path = data_dir() / DB_NAME
        try:
            return cls(path)
        except (sqlite3.Error, OSError, SchemaError) as exc:
            raise StoreUnavailable(f"cannot open the session database {path}: {exc}") from exc

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Write buffered events and close; safe to call twice."""
        with self._lock:
            if self._conn is None:
                return
            try:
                self.flush()
            finally:
                self._conn.close()
                self._conn = None

    # --- sessions ---

    def create_session(
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
        with self._tx() as conn:
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
        with self._tx() as conn:
            self._touch(conn, session_id, time.time())
            conn.execute(
                "UPDATE sessions SET title = ? WHERE id = ?", (redact(title.strip()), session_id)
            )

    def set_system_prompt(self, session_id: str, text: str) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE sessions SET system_prompt = ? WHERE id = ?", (redact(text), session_id)
            )

    def get_system_prompt(self, session_id: str) -> str | None:
        with self._lock:
            row = self._c.execute(
                "SELECT system_prompt FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
        return row[0] if row else None

    def get_session(self, session_id: str) -> SessionInfo | None:
        with self._lock:
            row = self._c.execute(
                f"SELECT {SESSION_COLS} FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
        return session_info(row) if row else None

    def resolve_id(self, prefix: str) -> str:
        """The full id of the one session whose id starts with `prefix` (like git)."""
        prefix = prefix.strip().lower()
        if not prefix:
            raise SessionNotFound("empty session id")
        with self._lock:
            rows = self._c.execute(
                "SELECT id FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT 6",
                (prefix, prefix + "\uffff"),
            ).fetchall()
        ids = [r[0] for r in rows]
        if prefix in ids:
            return prefix
        if not ids:
            raise SessionNotFound(f"no session matches {prefix!r}")
        if len(ids) > 1:
            raise AmbiguousSessionId(prefix, ids)
        return ids[0]

    def list_sessions(
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
        with self._lock:
            rows = self._c.execute(sql, args).fetchall()
        return [session_info(r) for r in rows]

    def rule_counts(self, cwd: str | os.PathLike[str] | None = None) -> dict[str, int]:
        """How many tool calls each rule decided (in `cwd`'s sessions): rule text -> count. A
        compound command allowed by several rules counts for each."""
        sql = "SELECT r.rule, count(*) FROM tool_runs r"
        args: list[Any] = []
        if cwd is not None:
            sql += " JOIN sessions s ON s.id = r.session_id WHERE s.cwd = ? AND"
            args.append(os.path.abspath(os.fspath(cwd)))
        else:
            sql += " WHERE"
        sql += " r.rule IS NOT NULL AND coalesce(r.decided_by, '') <> 'user' GROUP BY r.rule"
        with self._lock:
            rows = self._c.execute(sql, args).fetchall()
        counts: dict[str, int] = {}
        for rule, n in rows:
            for part in {rule, *rule.split(", ")}:
                counts[part] = counts.get(part, 0) + n
        return counts

    def count_sessions(self, cwd: str | os.PathLike[str] | None = None) -> int:
        with self._lock:
            if cwd is None:
                return int(self._c.execute("SELECT count(*) FROM sessions").fetchone()[0])
            return int(
                self._c.execute(
                    "SELECT count(*) FROM sessions WHERE cwd = ?",
                    (os.path.abspath(os.fspath(cwd)),),
                ).fetchone()[0]
            )

    def latest_session(self, cwd: str | os.PathLike[str]) -> SessionInfo | None:
        """The most recently active session in `cwd` (for `--continue`)."""
        found = self.list_sessions(limit=1, cwd=cwd, top_level=True)
        return found[0] if found else None

    def delete_session(self, session_id: str) -> bool:
        """Remove a session and everything recorded for it; False if there was none."""
        with self._tx() as conn:
            self._events.drop(session_id)
            for table, col in (
                ("search_docs", "session_id"),
                ("blocks", "session_id"),
                ("messages", "session_id"),
                ("events", "session_id"),
                ("tool_runs", "session_id"),
                ("turns", "session_id"),
                ("blobs", "session_id"),
            ):
                conn.execute(f"DELETE FROM {table} WHERE {col} = ?", (session_id,))
            return conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0

    # --- events ---

    def append_event(self, session_id: str, event: Event) -> None:
        """Buffer a domain event for replay; committed at the next boundary (`event_log.py`)."""
        with self._lock:
            if self._conn is None:  # fail loudly rather than drop the event
                raise RuntimeError("session store is closed")
            if self._events.add(session_id, event):
                self.flush()

    def load_events(
        self, session_id: str, *, after: int = -1, limit: int | None = None
    ) -> list[StoredEvent]:
        """Recorded events with seq > `after`, in order (see `event_log.load_events`)."""
        self.flush()
        with self._lock:
            return load_events(self._c, session_id, after=after, limit=limit)

    def last_event(self, session_id: str, kind: str) -> Event | None:
        """The newest recorded event of one kind (e.g. the last compaction), or None."""
        self.flush()
        with self._lock:
            row = self._c.execute(
                "SELECT json FROM events WHERE session_id = ? AND type = ? "
                "ORDER BY seq DESC LIMIT 1",
                (session_id, kind),
            ).fetchone()
        return event_from_dict(json.loads(row[0])) if row else None

    def verify_chain(self, session_id: str) -> ChainCheck:
        """Recompute the session's event hash chain (`chain.py`); names the first bad row."""
        self.flush()
        with self._lock:
            return chain.verify(self._c, session_id)

    # --- search ---

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
        """Full-text search, newest first (see `search.search`), in the sessions an audit
        filter (`review`, as for `list_sessions`) finds."""
        with self._lock:
            return search_mod.search(
                self._c,
                text,
                limit,
                cwd=cwd,
                session_id=session_id,
                marks=marks,
                sessions=review_clause(review),
            )

    def audited_calls(
        self,
        review: str,
        *,
        cwd: str | os.PathLike[str] | None = None,
        session_id: str | None = None,
        limit: int | None = None,
    ) -> list[AuditedCall]:
        """The tool calls that ran without review ("unreviewed") or were "denied", newest
        first, each with what decided it (`audit.list_calls`)."""
        with self._lock:
            return list_calls(self._c, review, cwd=cwd, session_id=session_id, limit=limit)


__all__ = [
    "DB_NAME",
    "AmbiguousSessionId",
    "SearchHit",
    "SessionInfo",
    "SessionNotFound",
    "SessionStore",
    "StoredEvent",
]
