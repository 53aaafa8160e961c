"""The review report: `agent-tui sessions export ID --format review` (Markdown) or `review-html`.

Built from the session's recorded events only, the rows the hash chain covers (`chain.py`), so
what the report says is what `agent-tui sessions verify` vouches for. Per turn: the prompt; every
tool call with who or what decided it (the rule and the settings file it came from, the person's
key and how long they took, the mode, a headless flag), its provenance line (where its text was
seen in untrusted text before), hunks left out of a partly approved edit, and its result; the
files the turn changed, marked when an undo or rewind took them back; the turn's cost. It ends
with the chain: the number of events, the head hash and whether it verified at export.
"""

from __future__ import annotations

import html
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_tui.protocol.events import (
    ApprovalDecided,
    ChangeRecorded,
    FilesChanged,
    FilesRestored,
    ToolCallReady,
    ToolFinished,
    TurnFinished,
    TurnStarted,
)
from agent_tui.sessions.records import SessionNotFound
from agent_tui.tools.subject import tool_subject

if TYPE_CHECKING:
    from agent_tui.sessions.store import SessionStore

#: settings sources, as the audit names them, and where they live
SOURCES = {
    "user": "user settings (<config dir>/settings.toml)",
    "project": "project settings (.agent-tui/settings.toml)",
    "local": "local settings (.agent-tui/settings.local.toml)",
    "cli": "a command-line flag (--allow / --deny)",
    "session": "a rule added for this session only",
}
KEYS = {
    "once": "y (allow once)",
    "session": "s (allow for this session)",
    "always": "a, then a or Enter (allow always)",
    "deny": "n (deny)",
}
_PARTIAL = re.compile(r"approved only part of this change: hunk\(s\) ([\d, ]+|none) of (\d+)")
RESULT_CHARS = 300

Line = tuple[str, str]  # (kind, text): h1 h2 h3 p li code hr


@dataclass
class _Call:
    tool: str
    input: dict[str, Any]
    decided: ApprovalDecided | None = None
    finished: ToolFinished | None = None
    #: what it changed on disk, as recorded when it finished (checkpoint, files)
    changed: list[ChangeRecorded] = field(default_factory=list)


@dataclass
class _Turn:
    prompt: str
    calls: dict[str, _Call] = field(default_factory=dict)
    changes: list[FilesChanged] = field(default_factory=list)
    finished: TurnFinished | None = None


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


def decided_by(d: ApprovalDecided | None) -> str:
    """Who or what decided a call, in words."""
    if d is None:
        return "never decided (invalid input or an unknown tool)"
    verdict = "allowed" if d.decision == "allow" else "denied"
    mode = f" · mode {d.mode}" if d.mode else ""
    if d.by == "user":
        key = KEYS.get(d.answer, d.answer or "a key")
        took = f" after {d.answer_s:.1f} s" if d.answer_s is not None else ""
        saved = f" · {d.kept_as} {', '.join(d.saved_rules)}" if d.saved_rules else ""
        said = f" · said: {d.message}" if d.message else ""
        return f"{verdict} by you: {key}{took}{saved}{said}{mode}"
    if d.by == "rule" and d.rule:
        where = ", ".join(SOURCES.get(s.strip(), s.strip()) for s in d.rule_source.split(","))
        return f"{verdict} by rule {d.rule} from {where or 'unknown settings'}{mode}"
    if d.by == "headless":
        flag = " with --approve-asks" if d.decision == "allow" else ""
        return f"{verdict} headless (no one to ask){flag}{mode}"
    if d.by == "mode":
        return f"{verdict} by the mode{mode}"
    return f"{verdict} by default (a read-only call or an ungated tool){mode}"


def _left_out(finished: ToolFinished | None) -> str:
    m = _PARTIAL.search(finished.content) if finished else None
    if m is None:
        return ""
    kept = [int(n) for n in re.findall(r"\d+", m.group(1))]
    total = int(m.group(2))
    left = [str(n) for n in range(1, total + 1) if n not in kept]
    return f"hunks left out: {', '.join(left)} of {total}"


def _turns(store: SessionStore, session_id: str) -> tuple[list[_Turn], dict[int, FilesRestored]]:
    turns: list[_Turn] = []
    undone: dict[int, FilesRestored] = {}
    seen: set[int] = set()  # checkpoints recorded so far: an undo takes back those from `to` on
    for stored in store.events.load(session_id):
        e = stored.event
        if isinstance(e, TurnStarted) or not turns:
            turns.append(_Turn(e.prompt if isinstance(e, TurnStarted) else "(before any prompt)"))
            if isinstance(e, TurnStarted):
                continue
        turn = turns[-1]
        if isinstance(e, ToolCallReady) and not e.server:
            turn.calls[e.tool_use_id] = _Call(e.tool, e.input)
        elif isinstance(e, ApprovalDecided):
            turn.calls.setdefault(e.tool_use_id, _Call(e.tool, {})).decided = e
        elif isinstance(e, ToolFinished):
            turn.calls.setdefault(e.tool_use_id, _Call(e.tool, {})).finished = e
        elif isinstance(e, ChangeRecorded):
            turn.calls.setdefault(e.tool_use_id, _Call(e.tool, {})).changed.append(e)
            seen.add(e.checkpoint)
        elif isinstance(e, FilesChanged):
            turn.changes.append(e)
            seen.add(e.checkpoint)
        elif isinstance(e, FilesRestored):
            for checkpoint in seen:
                if checkpoint >= e.to:
                    undone.setdefault(checkpoint, e)
        elif isinstance(e, TurnFinished):
            turn.finished = e
    return turns, undone


def _files(files: list[dict[str, Any]], restored: FilesRestored | None) -> list[Line]:
    """One line a file: created / changed / deleted, and "undone" when an undo took it back."""
    out: list[Line] = []
    for f in files:
        path = str(f.get("path", "?"))
        before, after = f.get("before"), f.get("after")
        what = "created" if before is None else "deleted" if after is None else "changed"
        mark = ""
        if restored is not None:
            kept = any(k == path or k.startswith(path + " (") for k in restored.kept)
            mark = " — kept (changed since, or not put back)" if kept else " — undone"
        out.append(("li", f"file {what}: {path}{mark}"))
    return out


def review_lines(store: SessionStore, session_id: str) -> list[Line]:
    info = store.sessions.get(session_id)
    if info is None:
        raise SessionNotFound(f"no session {session_id!r}")
    turns, undone = _turns(store, session_id)
    out: list[Line] = [
        ("h1", f"Review: {info.title or 'Untitled session'}"),
        ("li", f"Session {info.id} · {info.model} · in {info.cwd}"),
        ("li", f"Started {_when(info.created_at)} · last active {_when(info.updated_at)}"),
        (
            "li",
            f"Cost ${info.cost_usd:.4f} · {info.input_tokens} tokens in, {info.output_tokens} out",
        ),
    ]
    for n, turn in enumerate(turns, 1):
        out += [("h2", f"Turn {n}"), ("p", "Prompt:"), ("code", turn.prompt)]
        for tool_use_id, call in turn.calls.items():
            subject = tool_subject(call.tool, call.input) or tool_use_id
            out += [("h3", f"{call.tool}"), ("code", subject), ("li", decided_by(call.decided))]
            if call.decided is not None and call.decided.provenance:
                out.append(("li", f"provenance: {call.decided.provenance}"))
            left = _left_out(call.finished)
            if left:
                out.append(("li", left))
            for recorded in call.changed:
                out += _files(recorded.files, undone.get(recorded.checkpoint))
            if call.finished is not None:
                status = "error" if call.finished.is_error else "ok"
                out.append(
                    (
                        "li",
                        f"result ({status}, {call.finished.duration_s:.1f} s): "
                        + call.finished.summary,
                    )
                )
        per_call = any(c.changed for c in turn.calls.values())
        for change in turn.changes:
            if not per_call and change.files:  # recorded before changes were kept call by call
                out.append(("p", "Files the turn changed:"))
                out += _files(change.files, undone.get(change.checkpoint))
            for subject in change.unrestorable:
                out.append(("li", f"not restorable (no snapshot): {subject}"))
            for started in change.interrupted:
                what = f"{started.get('tool', 'a call')} {started.get('subject', '')}".strip()
                out.append(("li", f"interrupted, its changes never recorded: {what}"))
        if turn.finished is not None:
            how = (
                " (cancelled)"
                if turn.finished.cancelled
                else " (failed)"
                if turn.finished.failed
                else ""
            )
            out.append(
                (
                    "p",
                    f"Turn cost ${turn.finished.cost_usd:.4f}, "
                    f"{turn.finished.requests} request(s){how}",
                )
            )
    check = store.events.verify_chain(session_id)
    out += [("hr", ""), ("h2", "Hash chain")]
    out.append(("li", f"{check.rows} events · head {check.head or '(none)'}"))
    if check.ok:
        out.append(("li", "verified at export: every stored event matches the chain"))
    else:
        out.append(("li", f"BROKEN at export: {check.problem}"))
    out.append(("p", f"Check later: agent-tui sessions verify {info.id} --expect {check.head}"))
    return out


def _fence(text: str) -> str:
    ticks = "`" * max(3, max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    return f"{ticks}\n{text.rstrip()}\n{ticks}"


def export_review(store: SessionStore, session_id: str) -> str:
    """The review report as Markdown (untrusted text in fences or escaped)."""
    prefix = {"h1": "# ", "h2": "## ", "h3": "### ", "li": "- ", "p": ""}
    out: list[str] = []
    for kind, text in review_lines(store, session_id):
        if kind != "li" and out and out[-1].startswith("- "):
            out.append("")  # a list ends with a blank line
        if kind == "code":
            out += [_fence(text), ""]
        elif kind == "hr":
            out += ["---", ""]
        else:
            body = _escape_md(" ".join(text.split()))
            out.append(prefix[kind] + body)
            if kind != "li":
                out.append("")
    return "\n".join(out).rstrip() + "\n"


def _escape_md(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", text)


def export_review_html(store: SessionStore, session_id: str) -> str:
    """The review report as one standalone HTML page (everything escaped)."""
    tags = {"h1": "h1", "h2": "h2", "h3": "h3", "p": "p", "li": "li"}
    body: list[str] = []
    in_list = False
    for kind, text in review_lines(store, session_id):
        if kind == "li" and not in_list:
            body.append("<ul>")
            in_list = True
        elif kind != "li" and in_list:
            body.append("</ul>")
            in_list = False
        if kind == "code":
            body.append(f"<pre><code>{html.escape(text)}</code></pre>")
        elif kind == "hr":
            body.append("<hr>")
        else:
            tag = tags[kind]
            body.append(f"<{tag}>{html.escape(text)}</{tag}>")
    if in_list:
        body.append("</ul>")
    style = (
        "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}"
        "pre{background:#f4f4f4;padding:.5rem;overflow-x:auto;white-space:pre-wrap}"
        "h3{margin-bottom:.2rem}li{margin:.1rem 0}"
    )
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>agent-tui review</title>'
        f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
