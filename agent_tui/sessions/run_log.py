"""Tool runs (`store.runs`: how each call was decided, its result summary and timing, and the
audit views over them) and turns (`store.turns`: per-turn usage and cost, which also add up
into the session's totals)."""

from __future__ import annotations

import json
import os
import time
from typing import Any

from agent_tui.protocol.usage import Usage
from agent_tui.redact import redact, redact_obj, secret_values
from agent_tui.sessions.audit import AuditedCall, list_calls
from agent_tui.sessions.database import Database, touch
from agent_tui.sessions.event_buffer import dumps
from agent_tui.sessions.records import ToolRun, TurnRecord


class RunLog:
    """`store.runs`: the `tool_runs` table."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def record(
        self,
        session_id: str,
        tool_use_id: str,
        tool: str,
        input: dict[str, Any],
        *,
        decision: str | None = None,
        decided_by: str | None = None,
        rule: str | None = None,
        rule_source: str | None = None,
        answer: str | None = None,
        mode: str | None = None,
        provenance: str | None = None,
        answer_s: float | None = None,
        started_at: float | None = None,
        summary: str | None = None,
        is_error: bool | None = None,
        exit_code: int | None = None,
        duration_s: float | None = None,
        finished_at: float | None = None,
    ) -> int:
        """Record a tool call when it is decided (allow/deny, by what); returns the run id.

        Pass the result fields too for a one-shot record, or call `finish` later.
        """
        now = time.time()
        values = secret_values()
        with self._db.tx() as conn:
            touch(conn, session_id, now)
            cur = conn.execute(
                "INSERT INTO tool_runs (session_id, tool_use_id, tool, input_json, decision, "
                "decided_by, rule, summary, is_error, exit_code, duration_s, started_at, "
                "finished_at, rule_source, answer, mode, provenance, answer_s) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    tool_use_id,
                    tool,
                    dumps(redact_obj(input, values)),
                    decision,
                    decided_by,
                    None if rule is None else redact(rule, values),
                    None if summary is None else redact(summary, values),
                    None if is_error is None else int(is_error),
                    exit_code,
                    duration_s,
                    now if started_at is None else started_at,
                    finished_at,
                    rule_source or None,
                    answer or None,
                    mode or None,
                    redact(provenance, values) if provenance else None,
                    answer_s,
                ),
            )
            return int(cur.lastrowid or 0)

    def finish(
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
        with self._db.tx() as conn:
            cur = conn.execute(
                "UPDATE tool_runs SET summary = ?, is_error = ?, duration_s = ?, exit_code = ?, "
                "finished_at = ? WHERE id = ? RETURNING session_id",
                (redact(summary), int(is_error), duration_s, exit_code, now, run_id),
            )
            row = cur.fetchone()
            if row is None:
                raise LookupError(f"no tool run {run_id}")
            cur.fetchall()
            touch(conn, row[0], now)

    def load(self, session_id: str) -> list[ToolRun]:
        with self._db.lock:
            rows = self._db.conn.execute(
                "SELECT id, tool_use_id, tool, input_json, decision, decided_by, rule, summary, "
                "is_error, exit_code, duration_s, started_at, finished_at, rule_source, answer, "
                "mode, provenance, answer_s FROM tool_runs "
                "WHERE session_id = ? ORDER BY id",
                (session_id,),
            ).fetchall()
        return [
            ToolRun(
                id=r[0],
                tool_use_id=r[1],
                tool=r[2],
                input=json.loads(r[3]),
                decision=r[4],
                decided_by=r[5],
                rule=r[6],
                summary=r[7],
                is_error=None if r[8] is None else bool(r[8]),
                exit_code=r[9],
                duration_s=r[10],
                started_at=r[11],
                finished_at=r[12],
                rule_source=r[13],
                answer=r[14],
                mode=r[15],
                provenance=r[16],
                answer_s=r[17],
            )
            for r in rows
        ]

    def past_calls(self, cwd: str | os.PathLike[str]) -> list[tuple[str, str, int, str]]:
        """Every distinct call made in sessions started in `cwd`: (tool, input JSON, how many
        times, the newest session it was made in). For the rule simulator: one grouped query."""
        with self._db.lock:
            rows = self._db.conn.execute(
                "SELECT r.tool, r.input_json, count(*), max(r.session_id) FROM sessions s "
                "JOIN tool_runs r ON r.session_id = s.id WHERE s.cwd = ? "
                "GROUP BY r.tool, r.input_json",
                (os.path.abspath(os.fspath(cwd)),),
            ).fetchall()
        return [(str(t), str(j), int(n), str(sid)) for t, j, n, sid in rows]

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
        with self._db.lock:
            rows = self._db.conn.execute(sql, args).fetchall()
        counts: dict[str, int] = {}
        for rule, n in rows:
            for part in {rule, *rule.split(", ")}:
                counts[part] = counts.get(part, 0) + n
        return counts

    def audited(
        self,
        review: str,
        *,
        cwd: str | os.PathLike[str] | None = None,
        session_id: str | None = None,
        limit: int | None = None,
    ) -> list[AuditedCall]:
        """The tool calls that ran without review ("unreviewed") or were "denied", newest
        first, each with what decided it (`audit.list_calls`)."""
        with self._db.lock:
            return list_calls(self._db.conn, review, cwd=cwd, session_id=session_id, limit=limit)


class TurnLog:
    """`store.turns`: the `turns` table and the session totals they add up to."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def record(
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
        with self._db.tx() as conn:
            touch(conn, session_id, now)
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

    def load(self, session_id: str) -> list[TurnRecord]:
        with self._db.lock:
            rows = self._db.conn.execute(
                "SELECT seq, model, stop_reason, requests, input_tokens, output_tokens, "
                "cache_read_tokens, cache_write_tokens, web_search_requests, cost_usd, "
                "started_at, finished_at FROM turns WHERE session_id = ? ORDER BY seq",
                (session_id,),
            ).fetchall()
        return [
            TurnRecord(
                seq=r[0],
                model=r[1],
                stop_reason=r[2],
                requests=r[3],
                usage=Usage(r[4], r[5], r[7], r[6], r[8]),
                cost_usd=r[9],
                started_at=r[10],
                finished_at=r[11],
            )
            for r in rows
        ]
