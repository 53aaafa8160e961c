"""How sessions look in the browser: a row of the list and the preview of one session, built as
Rich `Text` (never parsed as markup) from untrusted stored text through `agent_tui.text`."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any, Literal

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from agent_tui.protocol.content import text_of
from agent_tui.sessions.records import SessionInfo, StoredMessage
from agent_tui.text import one_line
from agent_tui.tools.subject import tool_subject

#: messages shown in the preview pane
PREVIEW_MESSAGES = 12
PREVIEW_BLOCK_CHARS = 400
# Private-use characters mark the matched words in search snippets: they cannot come from the
# stored text's markup, and they are split out before the text is shown.
MARK_OPEN, MARK_CLOSE = "\ue000", "\ue001"


@dataclass(frozen=True, slots=True)
class BrowserChoice:
    action: Literal["resume", "replay"]
    session_id: str


@dataclass(frozen=True, slots=True)
class Row:
    info: SessionInfo
    snippet: str = ""  # the best search match, with MARK_OPEN/MARK_CLOSE around the hits


def when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def short_cwd(cwd: str) -> str:
    home = os.path.expanduser("~")
    if home not in ("", "/") and (cwd == home or cwd.startswith(home + os.sep)):
        return "~" + cwd[len(home) :]
    return cwd


def cost(usd: float) -> str:
    return f"${usd:.4f}"


def _plain(text: str, limit: int | None = None, *, strip: bool = True) -> str:
    """Untrusted text as one line: every line break and blank run one space (a preview reads
    like prose), control characters spelled out (`agent_tui.text`)."""
    line = one_line(text, limit, sep=" ")
    if not strip:  # a snippet piece keeps the blank that separates it from its neighbour
        lead = " " if text[:1].isspace() else ""
        tail = " " if text[-1:].isspace() and text.strip() else ""
        line = lead + line + tail
    return line


def _snippet(snippet: str) -> Text:
    out = Text(style="italic")
    for i, part in enumerate(snippet.strip().split(MARK_OPEN)):
        hit, _, rest = part.partition(MARK_CLOSE) if i else ("", "", part)
        if hit:
            out.append(_plain(hit, strip=False), style="bold reverse")
        out.append(_plain(rest, strip=False))
    return out


def session_row(row: Row) -> RenderableType:
    info = row.info
    grid = Table.grid(expand=True, padding=(0, 1))
    grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    grid.add_column(justify="right", no_wrap=True)
    title = _plain(info.title) or "(untitled)"
    grid.add_row(Text(title, style="bold"), Text(when(info.updated_at)))
    counts = f"{info.message_count} msgs · {cost(info.cost_usd)}"
    where = _plain(short_cwd(info.cwd))
    from agent_tui.worktree import branch_of

    if branch := branch_of(info.cwd):
        where += f" · ⎇ {_plain(branch)}"
    grid.add_row(Text(where, style="dim"), Text(counts, style="dim"))
    if row.snippet:
        grid.add_row(Text("  ").append_text(_snippet(row.snippet)), "")
    return grid


#: lines of one text block in the preview
PREVIEW_BLOCK_LINES = 12


def _text_lines(text: str) -> list[str]:
    """A text block's lines as written (markdown keeps its headings, lists and paragraphs; a
    preview of it joined into one line read as `# Hello … **agent-tui**'s …`), blank runs as one
    blank line, cut at PREVIEW_BLOCK_CHARS or PREVIEW_BLOCK_LINES with `…`."""
    lines: list[str] = []
    left = PREVIEW_BLOCK_CHARS
    for raw in text[: PREVIEW_BLOCK_CHARS + 1].strip().splitlines():
        line = one_line(raw, left, sep=" ") if raw.strip() else ""
        if not line and (not lines or not lines[-1]):
            continue
        if len(lines) == PREVIEW_BLOCK_LINES or left <= 0:
            lines.append("…")
            break
        lines.append(line)
        left -= len(line) + 1
    if len(text.strip()) > PREVIEW_BLOCK_CHARS and lines and lines[-1] != "…":
        lines[-1] = lines[-1].rstrip("…") + "…"
    return [line if line else " " for line in lines]


def _block_lines(role: str, block: dict[str, Any]) -> list[tuple[str, str]]:
    """(text, style) lines for one content block in the preview."""
    kind = block.get("type")
    if kind == "text":
        return [(line, "") for line in _text_lines(block.get("text") or "")]
    if kind in ("tool_use", "server_tool_use"):
        name = block.get("name", "tool")
        subject = tool_subject(name, block.get("input"))
        return [(f"→ {name}: {_plain(str(subject), PREVIEW_BLOCK_CHARS)}", "cyan")]
    if kind == "tool_result":
        content = text_of(block.get("content", ""), " ")
        style = "red" if block.get("is_error") else "dim"
        return [(f"← {_plain(str(content), PREVIEW_BLOCK_CHARS)}", style)]
    if kind == "web_search_tool_result":
        results = block.get("content")
        count = len(results) if isinstance(results, list) else 0
        return [(f"← {count} search results", "dim")]
    if kind in ("thinking", "redacted_thinking"):
        return [("(thinking)", "dim italic")]
    return []


def preview(info: SessionInfo, messages: list[StoredMessage], snippet: str = "") -> Text:
    out = Text()
    out.append(_plain(info.title) or "(untitled)", style="bold")
    out.append("\n")
    out.append(f"{info.id} · {_plain(info.model)} · {_plain(short_cwd(info.cwd))}\n", style="dim")
    out.append(
        f"started {when(info.created_at)} · last active {when(info.updated_at)}\n"
        f"{info.message_count} messages · {info.total_tokens:,} tokens · {cost(info.cost_usd)}\n",
        style="dim",
    )
    if snippet:
        out.append("match: ", style="dim")
        out.append_text(_snippet(snippet))
        out.append("\n")
    if not messages:
        out.append("\n(no messages)", style="dim italic")
    hidden = max(0, info.message_count - len(messages))
    if hidden and messages:
        out.append(f"\n… {hidden} earlier messages\n", style="dim italic")
    for message in messages:
        content = message.content
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        lines = [ln for b in blocks for ln in _block_lines(message.role, b) if ln[0]]
        if not lines:
            continue
        out.append("\nyou\n" if message.role == "user" else "\nassistant\n", style="bold")
        for text, style in lines:
            out.append(f"  {text}\n", style=style)
    return out
