"""The audit: which recorded tool calls ran without the person's review, which were denied, and
what decided each (the rule and the settings file it came from).

"Ran without your review" means allowed by something other than the person (a rule, the mode,
`--approve-asks`, the built-in defaults) *and* able to change something or reach the network. So
it leaves out the tools that only read or plan (`INERT_TOOLS`, whatever allowed them) and the Bash
commands the analyser allowed by default as read-only; it keeps everything a rule or a mode
allowed that could write, run code or fetch (Bash by rule, Write/Edit in accept-edits, WebFetch of
a preapproved site, MCP tools...).
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

#: tools that only read files, search, keep the plan or hand work to a sub-agent (whose own calls
#: are audited in its session): never "unreviewed", whatever allowed them
INERT_TOOLS = ("Read", "Grep", "Glob", "TodoWrite", "Task", "BashOutput")

_INERT = ", ".join(f"'{t}'" for t in INERT_TOOLS)

#: per tool run (table alias `r`): the audit filters
RUN_FILTERS = {
    "unreviewed": (
        "r.decision = 'allow' AND coalesce(r.decided_by, '') <> 'user' "
        f"AND r.tool NOT IN ({_INERT}) "
        # the analyser's read-only commands (`ls`, `git status`) are allowed by "default"
        "AND NOT (r.tool = 'Bash' AND coalesce(r.decided_by, '') = 'default')"
    ),
    "denied": "r.decision = 'deny'",
}

#: per session (table alias `s`): sessions with at least one such call
REVIEW_FILTERS = {
    name: f"EXISTS (SELECT 1 FROM tool_runs r WHERE r.session_id = s.id AND {clause})"
    for name, clause in RUN_FILTERS.items()
}

#: `review="rule:<rule>"`: sessions where that rule decided a call (alone, or as one of the
#: rules that together allowed a compound command, stored as "A, B")
RULE_FILTER = "rule:"
RULE_CLAUSE = (
    "EXISTS (SELECT 1 FROM tool_runs r WHERE r.session_id = s.id AND "
    "instr(', ' || r.rule || ', ', ', ' || ? || ', ') > 0)"
)


def review_clause(review: str | None) -> tuple[str, list[Any]] | None:
    """The SQL condition (over sessions `s`) for an audit filter, with its arguments."""
    if review in REVIEW_FILTERS:
        return REVIEW_FILTERS[review], []
    if review and review.startswith(RULE_FILTER):
        return RULE_CLAUSE, [review[len(RULE_FILTER) :]]
    return None


@dataclass(frozen=True, slots=True)
class AuditedCall:
    """One recorded tool call, as `agent-tui sessions calls` lists it."""

    session_id: str
    started_at: float
    tool: str
    subject: str
    decision: str
    decided_by: str
    rule: str
    #: where the deciding rule came from ("user", "project", "local", "cli", "session")
    rule_source: str
    #: that source as a file (or the flag, or the session's own answers)
    source_file: str
    cwd: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def source_file(source: str, cwd: str) -> str:
    """Where rules of `source` live (several sources, "a, b", as several places)."""
    from agent_tui.paths import config_dir
    from agent_tui.permissions.settings import settings_paths

    paths = settings_paths(Path(cwd), config_dir())
    names = {
        "cli": "the command line (--allow/--deny)",
        "session": "an answer given in the session",
    }
    out = []
    for part in (p.strip() for p in source.split(",")):
        if part in paths:
            out.append(str(paths[part]))
        elif part:
            out.append(names.get(part, part))
    return ", ".join(dict.fromkeys(out))


def list_calls(
    conn: sqlite3.Connection,
    review: str,
    *,
    cwd: str | os.PathLike[str] | None = None,
    session_id: str | None = None,
    limit: int | None = None,
) -> list[AuditedCall]:
    """The calls an audit filter finds, newest first (sub-agents' calls included)."""
    from agent_tui.tools.subject import tool_subject

    sql = (
        "SELECT r.session_id, r.started_at, r.tool, r.input_json, r.decision, "
        "coalesce(r.decided_by, ''), coalesce(r.rule, ''), coalesce(r.rule_source, ''), s.cwd "
        f"FROM tool_runs r JOIN sessions s ON s.id = r.session_id WHERE {RUN_FILTERS[review]}"
    )
    args: list[Any] = []
    if cwd is not None:
        sql += " AND s.cwd = ?"
        args.append(os.path.abspath(os.fspath(cwd)))
    if session_id is not None:
        sql += " AND r.session_id = ?"
        args.append(session_id)
    sql += " ORDER BY r.started_at DESC, r.id DESC LIMIT ?"
    args.append(-1 if limit is None else limit)
    calls = []
    for sid, started, tool, raw, decision, by, rule, source, where in conn.execute(sql, args):
        try:
            tool_input = json.loads(raw)
        except ValueError:
            tool_input = {}
        subject = tool_subject(tool, tool_input if isinstance(tool_input, dict) else {})
        calls.append(
            AuditedCall(
                sid,
                started,
                tool,
                subject,
                decision,
                by,
                rule,
                source,
                source_file(source, where) if source else "",
                where,
            )
        )
    return calls
