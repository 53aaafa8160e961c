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
import secrets as _secrets
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agent_tui.protocol.content import text_of
from agent_tui.protocol.events import EVENT_TYPES, Event, Usage, event_from_dict
from agent_tui.redact import redact, redact_obj, secret_values
from agent_tui.sessions.repair import repair_messages
from agent_tui.sessions.schema import migrate

Content = str | list[dict[str, Any]]

DB_NAME = "sessions.db"
TITLE_MAX = 60
SEARCH_TEXT_MAX = 32_000  # indexed characters per block: enough to find output, bounded size
EVENT_BUFFER_MAX = 4_000

# Events after which the buffer is committed: each marks the end of a unit a crash should keep.
_BOUNDARY_EVENTS = frozenset(
    {
        "turn_start",
        "block",
        "tool_call",
        "search_results",
        "message_end",
        "error",
        "approval_request",
        "permission",
        "tool_result",
        "notice",
        "turn_end",
    }
)
# Streamed pieces whose text is joined before redaction, so a key split across deltas is caught.
_DELTA_TEXT = {
    "text": ("index", "text"),
    "thinking": ("index", "text"),
    "tool_input_delta": ("index", "partial_json"),
    "tool_progress": ("tool_use_id", "output"),
}


class SessionNotFound(LookupError):
    """No session has that id (or, for prefixes, none starts with it)."""


class AmbiguousSessionId(SessionNotFound):
    def __init__(self, prefix: str, candidates: list[str]) -> None:
        super().__init__(f"session id {prefix!r} is ambiguous: {', '.join(candidates)}")
        self.candidates = candidates


# --- records ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    title: str
    cwd: str
    model: str
    created_at: float
    updated_at: float
    message_count: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    web_search_requests: int
    cost_usd: float

    @property
    def usage(self) -> Usage:
        return Usage(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cache_creation_input_tokens=self.cache_write_tokens,
            cache_read_input_tokens=self.cache_read_tokens,
            web_search_requests=self.web_search_requests,
        )

    @property
    def total_tokens(self) -> int:
        return self.usage.total_tokens

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """A message as recorded (not repaired), with its position for paging."""

    seq: int
    role: str
    content: Content
    created_at: float

    def to_api(self) -> dict[str, Any]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class StoredEvent:
    seq: int
    ts: float
    event: Event


@dataclass(frozen=True, slots=True)
class ToolRun:
    id: int
    tool_use_id: str
    tool: str
    input: dict[str, Any]
    decision: str | None
    decided_by: str | None
    rule: str | None
    summary: str | None
    is_error: bool | None
    exit_code: int | None
    duration_s: float | None
    started_at: float
    finished_at: float | None


@dataclass(frozen=True, slots=True)
class TurnRecord:
    seq: int
    model: str | None
    stop_reason: str | None
    requests: int
    usage: Usage
    cost_usd: float
    started_at: float | None
    finished_at: float


@dataclass(frozen=True, slots=True)
class SearchHit:
    session_id: str
    title: str
    cwd: str
    updated_at: float
    message_seq: int
    kind: str  # prompt | answer | command | tool_call | tool_output | search | search_results
    snippet: str


# --- helpers --------------------------------------------------------------------------------------

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, lower case: sorts like time
_id_lock = threading.Lock()
_last_ms = 0


def new_session_id(at: float | None = None) -> str:
    """13 characters: 9 of milliseconds since the epoch, 4 random; sorts by creation time.

    Ids made by one process without `at` strictly increase even within a millisecond.
    """
    global _last_ms
    if at is None:
        with _id_lock:
            ms = max(int(time.time() * 1000), _last_ms + 1)
            _last_ms = ms
    else:
        ms = int(at * 1000)
    head = "".join(_ALPHABET[(ms >> shift) & 31] for shift in range(40, -1, -5))
    tail = "".join(_secrets.choice(_ALPHABET) for _ in range(4))
    return head + tail


def title_from_prompt(prompt: str, limit: int = TITLE_MAX) -> str:
    """The first non-empty line, whitespace collapsed, cut at a word boundary to `limit` chars."""
    line = next((ln for ln in prompt.splitlines() if ln.strip()), "")
    line = " ".join(line.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:-") + "…"


def fts_query(text: str, prefix_last: bool = True) -> str | None:
    """A safe FTS5 query: every whitespace-separated word quoted (all must match).

    Quoting makes operators and punctuation (`"`, `*`, `-`, `:`, `NEAR`, `(`) plain text; a word
    with punctuation inside (`foo-bar`, `a.b`) becomes a phrase of its parts. The last word is a
    prefix (for search-as-you-type) unless the text ends with a space or the word is shorter than 3
    characters (a 1-2 character prefix matches most of the index and is slow).
    """
    words = [w for w in text.split() if any(ch.isalnum() for ch in w)]
    if not words:
        return None
    parts = ['"' + w.replace('"', '""') + '"' for w in words]
    if prefix_last and not text[-1:].isspace() and sum(ch.isalnum() for ch in words[-1]) >= 3:
        parts[-1] += "*"
    return " ".join(parts)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _flat_strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _flat_strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _flat_strings(v)


def search_text(role: str, block: dict[str, Any]) -> tuple[str, str] | None:
    """What of a block is searchable, and as what kind (None: nothing)."""
    kind = block.get("type")
    text: str
    if kind == "text":
        out_kind = "prompt" if role == "user" else "answer"
        text = block.get("text") or ""
    elif kind == "tool_use":
        tool_input = block.get("input") or {}
        if block.get("name") == "Bash" and isinstance(tool_input, dict):
            out_kind, text = "command", str(tool_input.get("command", ""))
        else:
            out_kind = "tool_call"
            text = " ".join([str(block.get("name", "")), *_flat_strings(tool_input)])
    elif kind == "server_tool_use":
        tool_input = block.get("input") or {}
        out_kind = "search"
        text = " ".join(_flat_strings(tool_input))
    elif kind == "tool_result":
        out_kind, text = "tool_output", text_of(block.get("content"), "\n")
    elif kind == "web_search_tool_result" and isinstance(block.get("content"), list):
        out_kind = "search_results"
        text = "\n".join(
            f"{r.get('title', '')} {r.get('url', '')}"
            for r in block["content"]
            if isinstance(r, dict)
        )
    else:
        return None
    text = text.strip()
    return (out_kind, text[:SEARCH_TEXT_MAX]) if text else None


def _prompt_text(content: Content) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(
        b.get("text", "") for b in content if b.get("type") == "text" and b.get("text")
    )


_SESSION_COLS = (
    "id, title, cwd, model, created_at, updated_at, message_count, input_tokens, output_tokens, "
    "cache_read_tokens, cache_write_tokens, web_search_requests, cost_usd"
)


def _info(row: tuple[Any, ...]) -> SessionInfo:
    return SessionInfo(*row)


# --- the store ------------------------------------------------------------------------------------


class SessionStore:
    """See the module docstring for what is recorded when, and the threading rule."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if str(path) != ":memory:" and not self.path.exists():
            # Sessions hold command output; keep the file private from the start.
            self.path.parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        self._lock = threading.RLock()
        self._depth = 0
        self._events: list[tuple[str, float, str, dict[str, Any]]] = []
        self._conn: sqlite3.Connection | None = sqlite3.connect(
            str(path), isolation_level=None, check_same_thread=False, timeout=5.0
        )
        conn = self._conn
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=5000")
        conn.execute("PRAGMA temp_store=MEMORY")
        conn.execute("PRAGMA cache_size=-32000")  # 32 MB at most: big sessions, FTS merges
        migrate(conn)

    @classmethod
    def open_default(cls) -> SessionStore:
        """The store at `data_dir()/sessions.db` (honours `AGENT_TUI_HOME`)."""
        from agent_tui.paths import data_dir

        return cls(data_dir() / DB_NAME)

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

    # --- transactions ---

    @property
    def _c(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("session store is closed")
        return self._conn

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
            try:
                yield conn
                self._write_events(conn)
            except BaseException:
                self._depth = 0
                conn.execute("ROLLBACK")
                raise
            self._depth = 0
            conn.execute("COMMIT")

    def _touch(
        self, conn: sqlite3.Connection, session_id: str, now: float, messages: int = 0
    ) -> None:
        cur = conn.execute(
            "UPDATE sessions SET updated_at = ?, message_count = message_count + ? WHERE id = ?",
            (now, messages, session_id),
        )
        if cur.rowcount == 0:
            raise SessionNotFound(f"no session {session_id!r}")

    # --- sessions ---

    def create_session(
        self,
        cwd: str | os.PathLike[str],
        model: str,
        title: str | None = None,
        *,
        created_at: float | None = None,
    ) -> str:
        """A new, empty session; its title comes from the first prompt unless given here."""
        now = time.time() if created_at is None else created_at
        cwd_s = os.path.abspath(os.fspath(cwd))
        with self._tx() as conn:
            while True:
                session_id = new_session_id(None if created_at is None else created_at)
                try:
                    conn.execute(
                        "INSERT INTO sessions (id, title, cwd, model, created_at, updated_at) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (session_id, redact(title or ""), cwd_s, model, now, now),
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

    def get_session(self, session_id: str) -> SessionInfo | None:
        with self._lock:
            row = self._c.execute(
                f"SELECT {_SESSION_COLS} FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
        return _info(row) if row else None

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
        self, limit: int = 50, offset: int = 0, cwd: str | os.PathLike[str] | None = None
    ) -> list[SessionInfo]:
        """Sessions, most recently active first."""
        sql = f"SELECT {_SESSION_COLS} FROM sessions"
        args: list[Any] = []
        if cwd is not None:
            sql += " WHERE cwd = ?"
            args.append(os.path.abspath(os.fspath(cwd)))
        sql += " ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?"
        args += [limit, offset]
        with self._lock:
            rows = self._c.execute(sql, args).fetchall()
        return [_info(r) for r in rows]

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
        found = self.list_sessions(limit=1, cwd=cwd)
        return found[0] if found else None

    def delete_session(self, session_id: str) -> bool:
        """Remove a session and everything recorded for it; False if there was none."""
        with self._tx() as conn:
            self._events = [e for e in self._events if e[0] != session_id]
            for table, col in (
                ("search_docs", "session_id"),
                ("blocks", "session_id"),
                ("messages", "session_id"),
                ("events", "session_id"),
                ("tool_runs", "session_id"),
                ("turns", "session_id"),
            ):
                conn.execute(f"DELETE FROM {table} WHERE {col} = ?", (session_id,))
            return conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0

    # --- messages ---

    def add_message(self, session_id: str, role: str, content: Content) -> int:
        """Record a whole message (a prompt, or any message not streamed); returns its seq."""
        return self.import_messages(session_id, [{"role": role, "content": content}])[0]

    def import_messages(
        self, session_id: str, messages: Iterable[Mapping[str, Any]], *, at: float | None = None
    ) -> list[int]:
        """Record whole messages in order, in one transaction; returns their seqs."""
        now = time.time() if at is None else at
        values = secret_values()
        msg_rows: list[tuple[Any, ...]] = []
        block_rows: list[tuple[Any, ...]] = []
        doc_rows: list[tuple[Any, ...]] = []
        first_prompt = ""
        with self._tx() as conn:
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
                        block_rows.append((session_id, seq, idx, _dumps(block), now))
                        found = search_text(role, block)
                        if found:
                            doc_rows.append((session_id, seq, *found))
                if role == "user" and not first_prompt:
                    first_prompt = _prompt_text(content)
                seqs.append(seq)
                seq += 1
            self._touch(conn, session_id, now, messages=len(seqs))
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
            self._index(conn, doc_rows)
            if first_prompt.strip():
                self._default_title(conn, session_id, first_prompt)
        return seqs

    def begin_message(self, session_id: str, role: str) -> int:
        """Start a message to be filled by `append_block`; returns its seq."""
        now = time.time()
        with self._tx() as conn:
            seq = self._next_seq(conn, session_id)
            self._touch(conn, session_id, now, messages=1)
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
        with self._tx() as conn:
            row = conn.execute(
                "SELECT role, text IS NOT NULL FROM messages WHERE session_id = ? AND seq = ?",
                (session_id, message_seq),
            ).fetchone()
            if row is None:
                raise LookupError(f"session {session_id!r} has no message {message_seq}")
            role, is_text = row
            if is_text:
                raise ValueError(f"message {message_seq} has string content; cannot add blocks")
            (idx,) = conn.execute(
                "SELECT coalesce(max(idx) + 1, 0) FROM blocks "
                "WHERE session_id = ? AND message_seq = ?",
                (session_id, message_seq),
            ).fetchone()
            conn.execute(
                "INSERT INTO blocks (session_id, message_seq, idx, json, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (session_id, message_seq, idx, _dumps(block), now),
            )
            self._touch(conn, session_id, now)
            found = search_text(role, block)
            if found:
                self._index(conn, [(session_id, message_seq, *found)])
            if role == "user" and block.get("type") == "text":
                self._default_title(conn, session_id, block.get("text") or "")
        return int(idx)

    def _next_seq(self, conn: sqlite3.Connection, session_id: str) -> int:
        (seq,) = conn.execute(
            "SELECT coalesce(max(seq) + 1, 0) FROM messages WHERE session_id = ?", (session_id,)
        ).fetchone()
        return int(seq)

    def _index(self, conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            conn.executemany(
                "INSERT INTO search_docs (session_id, message_seq, kind, text) VALUES (?, ?, ?, ?)",
                rows,
            )

    def _default_title(self, conn: sqlite3.Connection, session_id: str, prompt: str) -> None:
        title = title_from_prompt(prompt)
        if title:
            conn.execute(
                "UPDATE sessions SET title = ? WHERE id = ? AND title = ''", (title, session_id)
            )

    def load_messages(self, session_id: str, *, repair: bool = True) -> list[dict[str, Any]]:
        """The conversation as API messages, repaired into a valid one (see `repair.py`).

        With `repair=False`: exactly what was recorded. A repaired conversation may end with a
        user message of "interrupted" tool results; the API merges it with the next prompt.
        """
        messages = [m.to_api() for m in self._load_range(session_id, None, None)]
        return repair_messages(messages) if repair else messages

    def load_messages_tail(
        self, session_id: str, n: int, *, before: int | None = None
    ) -> list[StoredMessage]:
        """The last `n` recorded messages with seq < `before` (all when None), oldest first.

        For display: page backwards with `before=oldest_loaded.seq`. Not repaired.
        """
        if n <= 0:
            return []
        with self._lock:
            sql = "SELECT seq FROM messages WHERE session_id = ?"
            args: list[Any] = [session_id]
            if before is not None:
                sql += " AND seq < ?"
                args.append(before)
            sql += " ORDER BY seq DESC LIMIT 1 OFFSET ?"
            args.append(n - 1)
            row = self._c.execute(sql, args).fetchone()
            start = int(row[0]) if row else 0
            return self._load_range(session_id, start, before)

    def _load_range(
        self, session_id: str, start: int | None, end: int | None
    ) -> list[StoredMessage]:
        """Messages with start <= seq < end (None: unbounded)."""
        lo = -1 if start is None else start
        hi = (1 << 62) if end is None else end
        with self._lock:
            conn = self._c
            rows = conn.execute(
                "SELECT seq, role, text, created_at FROM messages "
                "WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq",
                (session_id, lo, hi),
            ).fetchall()
            blocks = conn.execute(
                "SELECT message_seq, json FROM blocks "
                "WHERE session_id = ? AND message_seq >= ? AND message_seq < ? "
                "ORDER BY message_seq, idx",
                (session_id, lo, hi),
            ).fetchall()
        by_seq: dict[int, list[dict[str, Any]]] = {}
        for seq, text in blocks:
            by_seq.setdefault(seq, []).append(json.loads(text))
        return [
            StoredMessage(seq, role, text if text is not None else by_seq.get(seq, []), created)
            for seq, role, text, created in rows
        ]

    # --- events ---

    def append_event(self, session_id: str, event: Event) -> None:
        """Buffer a domain event for replay; committed at the next boundary (module docstring)."""
        with self._lock:
            if self._conn is None:  # fail loudly rather than drop the event
                raise RuntimeError("session store is closed")
            self._events.append((session_id, time.time(), event.kind, event.to_dict()))
            if event.kind in _BOUNDARY_EVENTS or len(self._events) >= EVENT_BUFFER_MAX:
                self.flush()

    def flush(self) -> None:
        """Commit buffered events now."""
        with self._lock:
            if self._events and self._conn is not None:
                with self._tx():
                    pass  # _tx writes the buffer before committing

    def _write_events(self, conn: sqlite3.Connection) -> None:
        if not self._events:
            return
        pending, self._events = self._events, []
        rows = []
        # Numbered inside the write transaction (not cached), so two processes appending to one
        # session cannot collide and take the block commit down with them.
        next_seq: dict[str, int] = {}
        for session_id, ts, kind, data in _redact_events(pending):
            seq = next_seq.get(session_id)
            if seq is None:
                (seq,) = conn.execute(
                    "SELECT coalesce(max(seq) + 1, 0) FROM events WHERE session_id = ?",
                    (session_id,),
                ).fetchone()
            next_seq[session_id] = seq + 1
            rows.append((session_id, seq, ts, kind, _dumps(data)))
        ids = sorted({r[0] for r in rows})
        marks = ",".join("?" * len(ids))
        known = {r[0] for r in conn.execute(f"SELECT id FROM sessions WHERE id IN ({marks})", ids)}
        conn.executemany(
            "INSERT INTO events (session_id, seq, ts, type, json) VALUES (?, ?, ?, ?, ?)",
            [r for r in rows if r[0] in known],  # events of a deleted session are dropped
        )

    def load_events(
        self, session_id: str, *, after: int = -1, limit: int | None = None
    ) -> list[StoredEvent]:
        """Recorded events with seq > `after`, in order; unknown (newer) event types skipped."""
        self.flush()
        with self._lock:
            rows = self._c.execute(
                "SELECT seq, ts, json FROM events WHERE session_id = ? AND seq > ? "
                "ORDER BY seq LIMIT ?",
                (session_id, after, -1 if limit is None else limit),
            ).fetchall()
        out = []
        for seq, ts, text in rows:
            data = json.loads(text)
            if data.get("type") in EVENT_TYPES:
                out.append(StoredEvent(seq, ts, event_from_dict(data)))
        return out

    # --- tool runs and turns ---

    def record_tool_run(
        self,
        session_id: str,
        tool_use_id: str,
        tool: str,
        input: dict[str, Any],
        *,
        decision: str | None = None,
        decided_by: str | None = None,
        rule: str | None = None,
        started_at: float | None = None,
        summary: str | None = None,
        is_error: bool | None = None,
        exit_code: int | None = None,
        duration_s: float | None = None,
        finished_at: float | None = None,
    ) -> int:
        """Record a tool call when it is decided (allow/deny, by what); returns the run id.

        Pass the result fields too for a one-shot record, or call `finish_tool_run` later.
        """
        now = time.time()
        values = secret_values()
        with self._tx() as conn:
            self._touch(conn, session_id, now)
            cur = conn.execute(
                "INSERT INTO tool_runs (session_id, tool_use_id, tool, input_json, decision, "
                "decided_by, rule, summary, is_error, exit_code, duration_s, started_at, "
                "finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    tool_use_id,
                    tool,
                    _dumps(redact_obj(input, values)),
                    decision,
                    decided_by,
                    None if rule is None else redact(rule, values),
                    None if summary is None else redact(summary, values),
                    None if is_error is None else int(is_error),
                    exit_code,
                    duration_s,
                    now if started_at is None else started_at,
                    finished_at,
                ),
            )
            return int(cur.lastrowid or 0)

    def finish_tool_run(
        self,
        run_id: int,
        *,
        summary: str,
        is_error: bool,
        duration_s: float | None = None,
        exit_code: int | None = None,
        finished_at: float | None = None,
    ) -> None:
        now = time.time() if finished_at is None else finished_at
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE tool_runs SET summary = ?, is_error = ?, duration_s = ?, exit_code = ?, "
                "finished_at = ? WHERE id = ? RETURNING session_id",
                (redact(summary), int(is_error), duration_s, exit_code, now, run_id),
            )
            row = cur.fetchone()
            if row is None:
                raise LookupError(f"no tool run {run_id}")
            cur.fetchall()
            self._touch(conn, row[0], now)

    def load_tool_runs(self, session_id: str) -> list[ToolRun]:
        with self._lock:
            rows = self._c.execute(
                "SELECT id, tool_use_id, tool, input_json, decision, decided_by, rule, summary, "
                "is_error, exit_code, duration_s, started_at, finished_at FROM tool_runs "
                "WHERE session_id = ? ORDER BY id",
                (session_id,),
            ).fetchall()
        return [
            ToolRun(*r[:3], json.loads(r[3]), *r[4:8], None if r[8] is None else bool(r[8]), *r[9:])
            for r in rows
        ]

    def record_turn(
        self,
        session_id: str,
        usage: Usage,
        cost_usd: float,
        *,
        stop_reason: str | None = None,
        requests: int = 1,
        model: str | None = None,
        started_at: float | None = None,
        finished_at: float | None = None,
    ) -> int:
        """Record a finished turn's usage and cost and add them to the session's totals."""
        now = time.time() if finished_at is None else finished_at
        counts = (
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_input_tokens,
            usage.cache_creation_input_tokens,
            usage.web_search_requests,
            cost_usd,
        )
        with self._tx() as conn:
            self._touch(conn, session_id, now)
            (seq,) = conn.execute(
                "SELECT coalesce(max(seq) + 1, 0) FROM turns WHERE session_id = ?", (session_id,)
            ).fetchone()
            conn.execute(
                "INSERT INTO turns (session_id, seq, model, stop_reason, requests, input_tokens, "
                "output_tokens, cache_read_tokens, cache_write_tokens, web_search_requests, "
                "cost_usd, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (session_id, seq, model, stop_reason, requests, *counts, started_at, now),
            )
            conn.execute(
                "UPDATE sessions SET input_tokens = input_tokens + ?, "
                "output_tokens = output_tokens + ?, cache_read_tokens = cache_read_tokens + ?, "
                "cache_write_tokens = cache_write_tokens + ?, "
                "web_search_requests = web_search_requests + ?, cost_usd = cost_usd + ? "
                "WHERE id = ?",
                (*counts, session_id),
            )
            return int(seq)

    def load_turns(self, session_id: str) -> list[TurnRecord]:
        with self._lock:
            rows = self._c.execute(
                "SELECT seq, model, stop_reason, requests, input_tokens, output_tokens, "
                "cache_read_tokens, cache_write_tokens, web_search_requests, cost_usd, "
                "started_at, finished_at FROM turns WHERE session_id = ? ORDER BY seq",
                (session_id,),
            ).fetchall()
        return [TurnRecord(*r[:4], Usage(r[4], r[5], r[7], r[6], r[8]), *r[9:]) for r in rows]

    # --- search and export ---

    def search(
        self,
        text: str,
        limit: int = 20,
        *,
        cwd: str | os.PathLike[str] | None = None,
        session_id: str | None = None,
        marks: tuple[str, str] = ("[", "]"),
    ) -> list[SearchHit]:
        """Full-text search over prompts, answers, commands and tool output, newest first.

        `text` is plain words (all must match; the last may be a prefix), never FTS syntax, so any
        characters are safe. `marks` wrap the matched words in `snippet`.
        """
        query = fts_query(text)
        if query is None or limit <= 0:
            return []
        cols = (
            "d.session_id, s.title, s.cwd, s.updated_at, d.message_seq, d.kind, "
            "snippet(search_fts, 0, ?, ?, '…', 12)"
        )
        args: list[Any] = [marks[0], marks[1], query]
        where = ""
        if cwd is not None:
            where += " AND s.cwd = ?"
            args.append(os.path.abspath(os.fspath(cwd)))
        if session_id is not None:
            # A session's docs are one rowid range (mostly): FTS5 seeks straight into it.
            with self._lock:
                lo, hi = self._c.execute(
                    "SELECT min(id), max(id) FROM search_docs WHERE session_id = ?", (session_id,)
                ).fetchone()
            if lo is None:
                return []
            where += " AND search_fts.rowid BETWEEN ? AND ? AND d.session_id = ?"
            args += [lo, hi, session_id]
        args.append(limit)
        # CROSS JOIN pins FTS as the outer loop: matches come newest first and the scan stops at
        # `limit`. Left to itself the planner may start from a cwd's sessions and re-run the
        # MATCH once per document, which is far slower for common words.
        sql = (
            f"SELECT {cols} FROM search_fts CROSS JOIN search_docs d ON d.id = search_fts.rowid "
            f"CROSS JOIN sessions s ON s.id = d.session_id WHERE search_fts MATCH ?{where} "
            "ORDER BY search_fts.rowid DESC LIMIT ?"
        )
        with self._lock:
            rows = self._c.execute(sql, args).fetchall()
        return [SearchHit(*r) for r in rows]

    def export_markdown(self, session_id: str) -> str:
        from agent_tui.sessions.export import export_markdown

        return export_markdown(self, session_id)

    def export_jsonl(self, session_id: str) -> str:
        from agent_tui.sessions.export import export_jsonl

        return export_jsonl(self, session_id)


def _redact_events(
    pending: list[tuple[str, float, str, dict[str, Any]]],
) -> list[tuple[str, float, str, dict[str, Any]]]:
    """Redact a batch of events; streamed pieces are checked joined per block, and a block whose
    joined text held a secret is stored as one piece (its timing is lost, the secret too)."""
    values = secret_values()
    groups: dict[tuple[str, str, Any], list[int]] = {}
    out: list[tuple[str, float, str, dict[str, Any]] | None] = []
    for i, (session_id, ts, kind, data) in enumerate(pending):
        spec = _DELTA_TEXT.get(kind)
        if spec is None:
            out.append((session_id, ts, kind, redact_obj(data, values)))
            continue
        groups.setdefault((session_id, kind, data.get(spec[0])), []).append(i)
        if kind == "tool_progress":  # the status line is not part of the joined stream
            data = {**data, "status": redact(data.get("status", ""), values)}
        out.append((session_id, ts, kind, data))
    for (_, kind, _), indexes in groups.items():
        field = _DELTA_TEXT[kind][1]
        joined = "".join(str(pending[i][3].get(field, "")) for i in indexes)
        clean = redact(joined, values)
        if clean is joined or clean == joined:
            continue
        first = out[indexes[0]]
        assert first is not None
        out[indexes[0]] = (first[0], first[1], first[2], {**first[3], field: clean})
        for i in indexes[1:]:
            out[i] = None
    return [e for e in out if e is not None]
