"""Where a pending call's command, URL or path came from: untrusted text seen earlier.

`ProvenanceIndex` watches the conversation (a `ConversationObserver`): every tool result (a
fetched page, a file read, a command's output, an MCP result) and every web search result is
normalised and kept as it arrives, labelled with the call that produced it ("WebFetch
https://…"). Before a call is decided, `find(tool, input)` looks for the call's command (Bash),
URL (WebFetch, and URLs inside a command) or path (Read / Write / Edit) in that text, and
`line()` says it for the approval dialog: "this command text appeared in WebFetch https://… 2
steps ago".

Matching is on normalised text (quotes and backticks dropped, whitespace collapsed, case folded)
and tolerates small edits: a needle not found verbatim is looked for around where pieces of it
(anchors) occur, and counts when most of it matches there (`SIMILAR`). Memory is bounded: the
newest `MAX_CHARS` of text are kept, older results are dropped whole. The work is done as text
arrives; a lookup scans at most `MAX_CHARS` a few times with `str.find`, a few milliseconds.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from agent_tui.text import one_line
from agent_tui.tools.subject import tool_subject

#: characters of normalised untrusted text kept (older results are dropped whole)
MAX_CHARS = 2_000_000
#: characters kept of one result (its start)
MAX_DOC_CHARS = 200_000
#: needles shorter than this (normalised) match too much to mean anything
MIN_NEEDLE = 10
#: share of the needle's characters that must match near an anchor (small edits allowed)
SIMILAR = 0.85
_ANCHOR = 10
_CANDIDATES = 24
_URL = re.compile(r"https?://[^\s'\"`<>|;&)]+")
_QUOTES = str.maketrans("", "", "'\"`")
_SPACE = re.compile(r"\s+")
_PATH_TOOLS = ("Read", "Write", "Edit")


def normalise(text: str) -> str:
    text = text.replace("\\\n", " ").translate(_QUOTES)
    return _SPACE.sub(" ", text).strip().casefold()


@dataclass(frozen=True, slots=True)
class Source:
    """One piece of untrusted text as kept (normalised), labelled with the call it came from and the
    step it arrived at."""

    label: str
    step: int
    text: str


@dataclass(frozen=True, slots=True)
class Found:
    """One needle seen before: what it was ("command", "URL", "path"), where, and how exactly."""

    what: str
    source: Source
    steps_ago: int
    exact: bool
    others: int = 0

    def line(self) -> str:
        ago = "in this step" if self.steps_ago <= 0 else f"{self.steps_ago} step"
        ago += "s ago" if self.steps_ago > 1 else (" ago" if self.steps_ago == 1 else "")
        text = "this" if self.exact else "nearly this (small edits)"
        more = f" (and {self.others} more)" if self.others else ""
        return f"{text} {self.what} text appeared in {self.source.label} {ago}{more}"


class ProvenanceIndex:
    def __init__(self, max_chars: int = MAX_CHARS) -> None:
        self.max_chars = max_chars
        self._sources: deque[Source] = deque()
        self._chars = 0
        self._labels: dict[str, str] = {}
        #: tool results seen so far: a call's "steps ago" counts them
        self.steps = 0

    # ConversationObserver
    def message_started(self, role: str) -> None:
        pass

    def prompt_withdrawn(self) -> None:
        pass  # a prompt is no tool result

    def block_added(self, block: dict[str, Any]) -> None:
        kind = block.get("type")
        if kind in ("tool_use", "server_tool_use"):
            name = str(block.get("name") or "tool")
            tool_input = block.get("input")
            self._labels[str(block.get("id"))] = _label(
                name, tool_input if isinstance(tool_input, dict) else {}
            )
        elif kind == "tool_result":
            label = self._labels.pop(str(block.get("tool_use_id")), "a tool's output")
            self.add(label, _text(block.get("content")))
            self.steps += 1
        elif kind == "web_search_tool_result" and isinstance(block.get("content"), list):
            label = self._labels.pop(str(block.get("tool_use_id")), "WebSearch results")
            results = [r for r in block["content"] if isinstance(r, dict)]
            self.add(label, "\n".join(f"{r.get('title', '')} {r.get('url', '')}" for r in results))
            self.steps += 1

    def seed(self, messages: list[dict[str, Any]]) -> None:
        """Index a resumed conversation's blocks, oldest first, as if they had just arrived."""
        for message in messages:
            content = message.get("content")
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict):
                    self.block_added(block)

    def add(self, label: str, text: str) -> None:
        """Keep one piece of untrusted text (normalised, bounded)."""
        norm = normalise(text[: MAX_DOC_CHARS * 2])[:MAX_DOC_CHARS]
        if len(norm) < MIN_NEEDLE:
            return
        self._sources.append(Source(label, self.steps, norm))
        self._chars += len(norm)
        while self._chars > self.max_chars and len(self._sources) > 1:
            self._chars -= len(self._sources.popleft().text)

    @property
    def chars(self) -> int:
        return self._chars

    def find(self, tool: str, tool_input: dict[str, Any]) -> Found | None:
        """The newest untrusted text the call's command, URL or path appeared in, or None."""
        for what, needle in _needles(tool, tool_input):
            hits = [
                (s, m) for s in reversed(self._sources) if (m := _match(needle, s.text)) is not None
            ]
            if hits:
                source, exact = hits[0]
                return Found(what, source, self.steps - source.step, exact, len(hits) - 1)
        return None

    def line(self, tool: str, tool_input: dict[str, Any]) -> str:
        found = self.find(tool, tool_input)
        return found.line() if found else ""


def _label(name: str, tool_input: dict[str, Any]) -> str:
    if name in ("web_search", "WebSearch"):
        return f"WebSearch results for {one_line(str(tool_input.get('query', '')), 60)!r}"
    subject = one_line(tool_subject(name, tool_input), 80)
    if name == "Bash":
        return f"the output of `{subject}`"
    if name.startswith("mcp__"):
        return f"{name}'s result"
    return f"{name} {subject}".strip()


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def _needles(tool: str, tool_input: dict[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if tool == "Bash" and isinstance(tool_input.get("command"), str):
        command = tool_input["command"]
        out.append(("command", command))
        out += [("URL", url) for url in _URL.findall(command)]
    elif tool == "WebFetch" and isinstance(tool_input.get("url"), str):
        out.append(("URL", tool_input["url"]))
    elif tool in _PATH_TOOLS or tool.startswith("mcp__"):
        subject = tool_subject(tool, tool_input)
        if subject:
            out.append(("path" if tool in _PATH_TOOLS else "input", subject))
    return [(what, n) for what, text in out if len(n := normalise(text)) >= MIN_NEEDLE]


def _match(needle: str, text: str) -> bool | None:
    """True: verbatim (normalised); False: nearly (small edits); None: not there."""
    if needle in text:
        return True
    size = len(needle)
    if size < 2 * _ANCHOR:
        return None
    anchor_at = sorted({0, size // 3, 2 * size // 3, size - _ANCHOR})
    slack = size // 8 + 2
    tried: set[int] = set()
    for offset in anchor_at:
        anchor = needle[offset : offset + _ANCHOR]
        pos = text.find(anchor)
        while pos >= 0 and len(tried) < _CANDIDATES:
            start = max(0, pos - offset - slack)
            if start not in tried:
                tried.add(start)
                window = text[start : pos - offset + size + slack]
                blocks = SequenceMatcher(None, needle, window, autojunk=False).get_matching_blocks()
                if sum(b.size for b in blocks) >= SIMILAR * size:
                    return False
            pos = text.find(anchor, pos + 1)
    return None
