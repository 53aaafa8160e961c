"""The session database's schema, versioned with `PRAGMA user_version`.

`MIGRATIONS[i]` takes a database from version `i` to `i + 1`. Append new steps; never edit a
released one (databases in the wild have already run it). Each step is a tuple of statements run in
one `BEGIN IMMEDIATE` transaction together with the version bump, so two processes opening a fresh
database at once cannot both migrate it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from agent_tui.sessions.chain import backfill

#: a statement, or a function for what SQL alone can't do (run inside the same transaction)
Step = str | Callable[[sqlite3.Connection], None]

_V1 = (
    # Integer columns default to 0 so a crash between writes never leaves NULL totals.
    """CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL DEFAULT '',
        cwd TEXT NOT NULL,
        model TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        message_count INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cache_read_tokens INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0,
        web_search_requests INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL NOT NULL DEFAULT 0
    ) WITHOUT ROWID""",
    "CREATE INDEX sessions_updated ON sessions (updated_at, id)",
    "CREATE INDEX sessions_cwd_updated ON sessions (cwd, updated_at, id)",
    # One row per API message. `text` holds the content when it was sent as a plain string;
    # otherwise it is NULL and the content is the message's rows in `blocks`, in `idx` order.
    """CREATE TABLE messages (
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        text TEXT,
        created_at REAL NOT NULL,
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID""",
    # A content block's JSON exactly as given (unknown fields, signatures, encrypted_content).
    """CREATE TABLE blocks (
        session_id TEXT NOT NULL,
        message_seq INTEGER NOT NULL,
        idx INTEGER NOT NULL,
        json TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (session_id, message_seq, idx)
    ) WITHOUT ROWID""",
    """CREATE TABLE events (
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        ts REAL NOT NULL,
        type TEXT NOT NULL,
        json TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID""",
    """CREATE TABLE tool_runs (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        tool_use_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        input_json TEXT NOT NULL,
        decision TEXT,
        decided_by TEXT,
        rule TEXT,
        summary TEXT,
        is_error INTEGER,
        exit_code INTEGER,
        duration_s REAL,
        started_at REAL NOT NULL,
        finished_at REAL
    )""",
    "CREATE INDEX tool_runs_session ON tool_runs (session_id, tool_use_id)",
    """CREATE TABLE turns (
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        model TEXT,
        stop_reason TEXT,
        requests INTEGER NOT NULL DEFAULT 1,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cache_read_tokens INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0,
        web_search_requests INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL NOT NULL DEFAULT 0,
        started_at REAL,
        finished_at REAL NOT NULL,
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID""",
    # Searchable text (prompts, answers, commands, tool output), one row per indexed block. The
    # FTS index is external-content over this table so the text is stored once and `snippet()`
    # still works; the triggers keep the two in step. Rowids grow with time, so "newest first" is
    # FTS5's cheap descending-rowid scan rather than a sort over every match. The 3- and
    # 4-character prefix indexes make search-as-you-type fast: without them a short prefix query
    # merges the postings of every matching term (~100 ms at a million messages); longer prefixes
    # match few terms and need no index.
    """CREATE TABLE search_docs (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        message_seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        text TEXT NOT NULL
    )""",
    "CREATE INDEX search_docs_session ON search_docs (session_id)",
    """CREATE VIRTUAL TABLE search_fts USING fts5(
        text, content='search_docs', content_rowid='id',
        tokenize='unicode61 remove_diacritics 2', prefix='3 4'
    )""",
    """CREATE TRIGGER search_docs_ai AFTER INSERT ON search_docs BEGIN
        INSERT INTO search_fts (rowid, text) VALUES (new.id, new.text);
    END""",
    """CREATE TRIGGER search_docs_ad AFTER DELETE ON search_docs BEGIN
        INSERT INTO search_fts (search_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END""",
)

# The system prompt a session was started with, so a resumed session sends the same bytes (and
# reads them from the prompt cache) whatever changed around it since.
_V2 = ("ALTER TABLE sessions ADD COLUMN system_prompt TEXT",)

# A sub-agent's conversation (issue 14) is a session of its own, linked to the one that ran it;
# `--continue` never picks it.
_V3 = ("ALTER TABLE sessions ADD COLUMN parent_id TEXT",)

# Issue 15: file contents kept by checkpoints (named by git blob id, one copy per session so
# deleting a session frees them), and the audit's detail of how each tool call was decided.
_V4 = (
    """CREATE TABLE blobs (
        session_id TEXT NOT NULL,
        id TEXT NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (session_id, id)
    )""",
    "CREATE INDEX blobs_id ON blobs (id)",
    "ALTER TABLE tool_runs ADD COLUMN rule_source TEXT",
    "ALTER TABLE tool_runs ADD COLUMN answer TEXT",
    "ALTER TABLE tool_runs ADD COLUMN mode TEXT",
    "CREATE INDEX tool_runs_rule ON tool_runs (rule)",
)

# Issue 33: the hash chain over each session's events (`chain.py`), kept as rows are written;
# rows recorded before it are chained by the migration. The audit keeps where a call's command,
# URL or path was seen in untrusted text before it was asked, and how long the answer took.
_V5: tuple[Step, ...] = (
    "ALTER TABLE events ADD COLUMN hash TEXT",
    backfill,
    "ALTER TABLE tool_runs ADD COLUMN provenance TEXT",
    "ALTER TABLE tool_runs ADD COLUMN answer_s REAL",
)

MIGRATIONS: list[tuple[Step, ...]] = [_V1, _V2, _V3, _V4, _V5]
SCHEMA_VERSION = len(MIGRATIONS)


class SchemaError(RuntimeError):
    """The database was written by a newer agent-tui (or is not a session database)."""


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the database up to `SCHEMA_VERSION`; returns the version it started at.

    `conn` must be in autocommit mode (`isolation_level=None`) so the explicit transaction holds.
    """
    start = user_version(conn)
    if start == SCHEMA_VERSION:
        return start
    if start > SCHEMA_VERSION:
        raise SchemaError(
            f"session database is version {start}, newer than this agent-tui understands "
            f"({SCHEMA_VERSION}); upgrade agent-tui"
        )
    conn.execute("BEGIN IMMEDIATE")
    try:
        current = user_version(conn)  # another process may have migrated while we waited
        for version in range(current, SCHEMA_VERSION):
            for step in MIGRATIONS[version]:
                if callable(step):
                    step(conn)
                else:
                    conn.execute(step)
            conn.execute(f"PRAGMA user_version = {version + 1}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return start
