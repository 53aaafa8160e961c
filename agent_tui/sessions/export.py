"""Exports: a readable Markdown transcript, and the API messages as JSON Lines."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.sessions.records import SessionNotFound, ToolRun

if TYPE_CHECKING:
    from agent_tui.sessions.store import SessionStore

RESULT_MAX = 10_000  # characters of one tool result in the transcript; the JSONL has all of it


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def _fence(text: str, lang: str = "") -> str:
    """A code fence longer than any backtick run inside `text`, so it cannot be closed early."""
    longest, run = 0, 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def _clip(text: str, limit: int = RESULT_MAX) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit} more characters)"


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                parts.append(block.get("text", ""))
            else:
                parts.append(f"[{block.get('type', 'block')}]")
        return "\n".join(parts)
    return ""


def _decision(run: ToolRun | None) -> str:
    if run is None or run.decision is None:
        return ""
    how = f"by rule `{run.rule}`" if run.rule else f"by {run.decided_by or 'unknown'}"
    word = "allowed" if run.decision == "allow" else "denied"
    return f" — {word} {how}"


def _money(cost: float) -> str:
    return f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"


def export_dir() -> Path:
    """Where transcripts go by default: the data dir, not the project (which may be a repository
    the transcript shouldn't land in)."""
    from agent_tui.paths import data_dir

    return data_dir() / "exports"


def export_file_name(session_id: str) -> str:
    return f"agent-tui-{session_id}.md"


def write_markdown(store: SessionStore, session_id: str, path: Path) -> None:
    """Write a session's Markdown transcript to `path` (its folder made); raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(export_markdown(store, session_id), encoding="utf-8")


def export_markdown(store: SessionStore, session_id: str) -> str:
    info = store.sessions.get(session_id)
    if info is None:
        raise SessionNotFound(f"no session {session_id!r}")
    runs = {r.tool_use_id: r for r in store.runs.load(session_id)}
    out = [
        f"# {info.title or 'Untitled session'}",
        "",
        f"- Session: `{info.id}`",
        f"- Directory: `{info.cwd}`",
        f"- Model: `{info.model}`",
        f"- Started: {_when(info.created_at)} · last active: {_when(info.updated_at)}",
        f"- Messages: {info.message_count} · tokens: {info.input_tokens} in, "
        f"{info.output_tokens} out, {info.cache_read_tokens} cache read, "
        f"{info.cache_write_tokens} cache write · web searches: {info.web_search_requests}"
        f" · cost: {_money(info.cost_usd)}",
        "",
    ]
    return _transcript(out, store.messages.load(session_id, repair=False), runs)


def memory_markdown(messages: list[dict[str, Any]], *, cwd: str, model: str, why: str) -> str:
    """A transcript of a conversation the session database doesn't hold (it failed: `why`),
    from the messages in memory, so the person can keep it anyway."""
    out = [
        "# Unrecorded session",
        "",
        f"- Directory: `{cwd}`",
        f"- Model: `{model}`",
        f"- Exported: {_when(time.time())} from memory: not in the session database ({why})",
        "",
    ]
    return _transcript(out, messages, {})


def _transcript(out: list[str], messages: list[dict[str, Any]], runs: dict[str, ToolRun]) -> str:
    last_role = None
    for message in messages:
        role, content = message["role"], message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if role == "user" and all(b.get("type") == "tool_result" for b in blocks):
            heading = None  # results read as part of the assistant's tool calls
        else:
            heading = "## You" if role == "user" else "## Claude"
        if heading and heading != last_role:
            out += [heading, ""]
            last_role = heading
        for block in blocks:
            out += _block_md(block, runs)
    return "\n".join(out).rstrip() + "\n"


def _block_md(block: dict[str, Any], runs: dict[str, ToolRun]) -> list[str]:
    kind = block.get("type")
    if kind == "text":
        return [block.get("text", ""), ""]
    if kind == "thinking":
        text = block.get("thinking", "")
        return ["<details><summary>Thinking</summary>", "", text, "", "</details>", ""]
    if kind == "redacted_thinking":
        return ["_(redacted thinking)_", ""]
    if kind == "tool_use":
        run = runs.get(block.get("id", ""))
        tool_input = block.get("input") or {}
        head = f"**Tool call** `{block.get('name')}`{_decision(run)}"
        if block.get("name") == "Bash" and isinstance(tool_input, dict) and "command" in tool_input:
            body = _fence(str(tool_input["command"]), "sh")
        else:
            body = _fence(json.dumps(tool_input, indent=2, ensure_ascii=False), "json")
        lines = [head, "", body, ""]
        if run is not None and run.exit_code is not None:
            lines += [f"_exit code {run.exit_code}_", ""]
        return lines
    if kind == "tool_result":
        label = "**Result (error)**" if block.get("is_error") else "**Result**"
        text = _result_text(block.get("content"))
        return [label, "", _fence(_clip(text)) if text else "_(empty)_", ""]
    if kind == "server_tool_use":
        tool_input = block.get("input") or {}
        query = tool_input.get("query") if isinstance(tool_input, dict) else None
        if query is not None:
            return [f"**Web search:** {query}", ""]
        return [f"**Server tool** `{block.get('name')}`", "", _fence(json.dumps(tool_input)), ""]
    if kind == "web_search_tool_result":
        content = block.get("content")
        if isinstance(content, dict):
            return [f"_search failed: {content.get('error_code', 'error')}_", ""]
        results = [r for r in content or [] if isinstance(r, dict)]
        lines = [f"{len(results)} results:", ""]
        lines += [f"- [{r.get('title') or r.get('url')}]({r.get('url')})" for r in results]
        return [*lines, ""]
    return [f"_[{kind} block]_", ""]


def export_jsonl(store: SessionStore, session_id: str, *, repair: bool = True) -> str:
    """One API message a line: repaired (a valid conversation) unless `repair=False`."""
    if store.sessions.get(session_id) is None:
        raise SessionNotFound(f"no session {session_id!r}")
    messages = store.messages.load(session_id, repair=repair)
    return "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages)
