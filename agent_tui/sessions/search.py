"""Full-text search over sessions: what of a block is indexed, safe FTS5 queries, and the query
itself (newest matches first, stopping at the limit)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from typing import Any

from agent_tui.protocol.content import text_of
from agent_tui.sessions.records import SearchHit

SEARCH_TEXT_MAX = 32_000  # indexed characters per block: enough to find output, bounded size


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


def index(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
    """Add (session_id, message_seq, kind, text) documents to the index."""
    if rows:
        conn.executemany(
            "INSERT INTO search_docs (session_id, message_seq, kind, text) VALUES (?, ?, ?, ?)",
            rows,
        )


def search(
    conn: sqlite3.Connection,
    text: str,
    limit: int = 20,
    *,
    cwd: str | os.PathLike[str] | None = None,
    session_id: str | None = None,
    marks: tuple[str, str] = ("[", "]"),
    sessions: tuple[str, list[Any]] | None = None,
) -> list[SearchHit]:
    """Full-text search over prompts, answers, commands and tool output, newest first.

    `text` is plain words (all must match; the last may be a prefix), never FTS syntax, so any
    characters are safe. `marks` wrap the matched words in `snippet`. `sessions`: an SQL
    condition over the session (alias `s`) and its arguments, e.g. an audit filter.
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
        lo, hi = conn.execute(
            "SELECT min(id), max(id) FROM search_docs WHERE session_id = ?", (session_id,)
        ).fetchone()
        if lo is None:
            return []
        where += " AND search_fts.rowid BETWEEN ? AND ? AND d.session_id = ?"
        args += [lo, hi, session_id]
    if sessions is not None:
        where += f" AND {sessions[0]}"
        args += sessions[1]
    args.append(limit)
    # CROSS JOIN pins FTS as the outer loop: matches come newest first and the scan stops at
    # `limit`. Left to itself the planner may start from a cwd's sessions and re-run the
    # MATCH once per document, which is far slower for common words.
    sql = (
        f"SELECT {cols} FROM search_fts CROSS JOIN search_docs d ON d.id = search_fts.rowid "
        f"CROSS JOIN sessions s ON s.id = d.session_id WHERE search_fts MATCH ?{where} "
        "ORDER BY search_fts.rowid DESC LIMIT ?"
    )
    return [SearchHit(*r) for r in conn.execute(sql, args).fetchall()]
