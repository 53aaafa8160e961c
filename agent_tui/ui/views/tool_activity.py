"""What the tool-progress pane and the chat's tool blocks know about one tool call, updated from
its events: phase, subject, live output tail, searches, result. Plain Python, no Textual: the pane
keeps up with events while hidden, and the chat's blocks reuse the same bookkeeping. Memory per
call stays bounded however much output arrives.

Every tool event carries `tool_use_id` and `tool`, so routing one to its activity is a lookup
(`ToolActivities`). Text from the model, the web or a subprocess goes through `agent_tui.text`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar

from agent_tui.protocol.dispatch import TOOL_CALL_KINDS, UNHANDLED, all_kinds_but, dispatch
from agent_tui.protocol.events import (
    ApprovalDecided,
    ApprovalRequested,
    Event,
    SearchQueryUpdate,
    SearchResultsReceived,
    ToolCallReady,
    ToolCallStarted,
    ToolFinished,
    ToolProgress,
    TurnFinished,
    TurnStarted,
)
from agent_tui.text import clean_line, one_line, resolve_cr
from agent_tui.tools.subject import tool_subject

TAIL_LINES = 8  # output lines an entry shows (and the most it ever keeps)
MAX_LINE_CHARS = 400  # wider than any terminal; the CSS ellipsis does the rest
MAX_RAW_PARTIAL = 8192  # an unterminated line (progress bars) is compacted past this
MAX_SEARCHES = 32  # the API caps uses at 8; this only bounds a misbehaving stream
MAX_RESULTS_PER_SEARCH = 50
RESULT_HEAD_LINES = 20  # a finished result keeps its first and last lines for the chat block
RESULT_TAIL_LINES = 20
MAX_ENTRIES = 100  # entries per turn; the oldest are dropped beyond this

SEARCH_TOOL_NAMES = frozenset({"WebSearch", "web_search"})

# Human phrasing of `web_search_tool_result_error` codes.
SEARCH_ERROR_TEXT: dict[str, str] = {
    "max_uses_exceeded": "search limit reached",
    "too_many_requests": "rate limited, too many searches",
    "invalid_tool_input": "invalid search query",
    "query_too_long": "query too long",
    "unavailable": "search service unavailable",
    "request_too_large": "search request too large",
}


def search_error_text(code: str) -> str:
    return SEARCH_ERROR_TEXT.get(code) or f"search failed: {clean_line(code, 60)}"


class Phase(StrEnum):
    PENDING = "pending"  # input still streaming, waiting its turn, or waiting for approval
    RUNNING = "running"
    DONE = "done"
    ERROR = "error"
    STOPPED = "stopped"  # the turn ended without a result (cancelled or failed)


@dataclass(slots=True)
class SearchRecord:
    """One server-side search inside a WebSearch call."""

    index: int
    query: str = ""
    done: bool = False
    count: int = 0
    error_code: str | None = None
    results: list[tuple[str, str]] = field(default_factory=list)  # (title, url)


@dataclass(slots=True)
class ToolActivity:
    """Everything shown about one tool call, updated from its events; memory stays bounded."""

    id: str
    name: str = ""
    subject: str = ""
    phase: Phase = Phase.PENDING
    status: str = ""
    status_is_warning: bool = False
    started_at: float | None = None
    summary: str = ""
    duration_s: float | None = None
    searches: list[SearchRecord] = field(default_factory=list)
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=TAIL_LINES))
    lines_seen: int = 0  # complete output lines, counted but not kept
    result_head: list[str] = field(default_factory=list)
    result_tail: list[str] = field(default_factory=list)
    result_lines: int = 0
    _partial: str = ""  # raw, unterminated last output line

    @property
    def is_search(self) -> bool:
        return self.name in SEARCH_TOOL_NAMES or bool(self.searches)

    @property
    def finished(self) -> bool:
        return self.phase in (Phase.DONE, Phase.ERROR, Phase.STOPPED)

    @property
    def total_results(self) -> int:
        return sum(s.count for s in self.searches if s.done and not s.error_code)

    @property
    def partial_line(self) -> str:
        return clean_line(self._partial, MAX_LINE_CHARS) if self._partial else ""

    def output_tail(self, n: int = TAIL_LINES) -> list[str]:
        """The last `n` output lines, the unfinished one included."""
        lines = list(self.tail)
        if partial := self.partial_line:
            lines.append(partial)
        return lines[-n:]

    @property
    def hidden_lines(self) -> int:
        """Output lines seen but no longer kept (for an `… N earlier lines` marker)."""
        tail = self.output_tail()
        return max(0, self.lines_seen + bool(self.partial_line) - len(tail))

    def search_summary(self) -> str:
        if self.summary:
            return self.summary
        # Counted as the tool counts them: searches that ran (an error result is not a search).
        n = sum(1 for s in self.searches if s.done and s.error_code is None)
        text = f"Did {n} search{'es' if n != 1 else ''}"
        return f"{text} in {self.duration_s:.1f}s" if self.duration_s is not None else text

    def elapsed(self, now: float) -> float | None:
        if self.duration_s is not None:
            return self.duration_s
        return None if self.started_at is None else max(0.0, now - self.started_at)

    #: what one call's activity doesn't show (the pane and the chat's block draw the rest)
    IGNORED: ClassVar[frozenset[str]] = all_kinds_but(
        {
            *("tool_call_started", "tool_call_ready", "approval_requested", "approval_decided"),
            *("tool_progress", "search_query_update", "search_results_received"),
            *("tool_finished", "turn_finished"),
        }
    )
    ROUTED: ClassVar[frozenset[str]] = frozenset()

    def apply(self, event: Event, now: float) -> bool:
        """Update from one event for this tool call (`on_<kind>`); True if anything visible
        changed."""
        changed = dispatch(self, event, now)
        return False if changed is UNHANDLED else bool(changed)

    def on_tool_call_started(self, event: ToolCallStarted, now: float) -> bool:
        self.name = self.name or event.tool
        return True

    def on_tool_call_ready(self, event: ToolCallReady, now: float) -> bool:
        self.name = event.tool
        subject = tool_subject(event.tool, event.input)
        self.subject = one_line(subject, MAX_LINE_CHARS, first_line=True)
        if event.input_error:
            self.phase = Phase.ERROR
            self.status = f"invalid input: {one_line(event.input_error, 200, first_line=True)}"
        elif event.server and self.phase is Phase.PENDING:
            # the API runs its own tools as it streams: no approval, no queue
            self.phase = Phase.RUNNING
            self.started_at = now
        # A client call waits (○, no clock) until it is allowed: behind the calls before it,
        # or in the approval queue. Its clock starts at `ApprovalDecided`.
        return True

    def on_approval_requested(self, event: ApprovalRequested, now: float) -> bool:
        self.phase = Phase.PENDING
        self.status, self.status_is_warning = "awaiting approval", True
        return True

    def on_approval_decided(self, event: ApprovalDecided, now: float) -> bool:
        if event.decision == "deny":
            why = f": {one_line(event.message, 200, first_line=True)}" if event.message else ""
            self.phase = Phase.ERROR
            self.status, self.status_is_warning = f"denied{why}", False
        else:
            self.phase = Phase.RUNNING
            self.status, self.status_is_warning = "", False
            self.started_at = now  # time the run, not the wait for a keystroke
        return True

    def on_tool_progress(self, event: ToolProgress, now: float) -> bool:
        self._start(now)
        if event.tool and not self.name:
            self.name = event.tool
        if event.status:
            self.status = one_line(event.status, MAX_LINE_CHARS, first_line=True)
            self.status_is_warning = False
        if event.output:
            self._feed(event.output)
        return True

    def on_search_query_update(self, event: SearchQueryUpdate, now: float) -> bool:
        self._start(now)
        self.name = self.name or "WebSearch"
        # Not stripped: a trailing space is part of the query as far as it has arrived.
        query = clean_line(" ".join(event.query.splitlines()), MAX_LINE_CHARS)
        self._search_for_query(event.search_index).query = query
        return True

    def on_search_results_received(self, event: SearchResultsReceived, now: float) -> bool:
        self._start(now)
        self.name = self.name or "WebSearch"
        self._record_results(event)
        return True

    def on_tool_finished(self, event: ToolFinished, now: float) -> bool:
        self.name = self.name or event.tool
        self.phase = Phase.ERROR if event.is_error else Phase.DONE
        self.summary = one_line(event.summary, MAX_LINE_CHARS, first_line=True)
        self.duration_s = event.duration_s
        if event.content:
            self._keep_result(event.content)
        return True

    def on_turn_finished(self, event: TurnFinished, now: float) -> bool:
        if self.finished:
            return False
        self.phase = Phase.STOPPED
        self.summary = self.summary or ("cancelled" if event.cancelled else "no result")
        return True

    def _start(self, now: float) -> None:
        if self.phase is Phase.PENDING:
            self.phase = Phase.RUNNING
        if self.started_at is None:
            self.started_at = now

    def _search_for_query(self, index: int) -> SearchRecord:
        # A query update after the current search got its results starts the next search, so
        # this works whether or not the tool numbers its searches.
        last = self.searches[-1] if self.searches else None
        if last is not None and last.index == index and not last.done:
            return last
        return self._new_search(index)

    def _new_search(self, index: int) -> SearchRecord:
        if len(self.searches) >= MAX_SEARCHES:
            del self.searches[0]
        record = SearchRecord(index)
        self.searches.append(record)
        return record

    def _record_results(self, event: SearchResultsReceived) -> None:
        query = clean_line(" ".join(event.query.splitlines()), MAX_LINE_CHARS)
        pending = [s for s in self.searches if s.index == event.search_index and not s.done]
        record = next((s for s in reversed(pending) if s.query == query), None)
        if record is None:
            record = pending[-1] if pending else self._new_search(event.search_index)
        record.query = query or record.query
        record.done = True
        record.count = event.count
        record.error_code = event.error_code
        record.results = [
            (
                one_line(str(r.get("title") or ""), 200, first_line=True),
                one_line(str(r.get("url") or ""), 500, first_line=True),
            )
            for r in event.results[:MAX_RESULTS_PER_SEARCH]
            if isinstance(r, dict)
        ]

    def _feed(self, chunk: str) -> None:
        # O(len(chunk)): split once, then clean only the lines that can still be shown.
        parts = chunk.split("\n")
        if len(parts) == 1:
            self._partial = self._compact(self._partial + chunk)
            return
        completed = len(parts) - 1
        self.lines_seen += completed
        first = self._partial + parts[0]
        keep_from = max(1, len(parts) - 1 - TAIL_LINES)
        if keep_from == 1:
            self.tail.append(clean_line(first, MAX_LINE_CHARS))
        for raw in parts[keep_from:-1]:
            self.tail.append(clean_line(raw, MAX_LINE_CHARS))
        self._partial = self._compact(parts[-1])

    @staticmethod
    def _compact(raw: str) -> str:
        if len(raw) <= MAX_RAW_PARTIAL:
            return raw
        trailing_cr = "\r" if raw.endswith("\r") else ""
        return resolve_cr(raw)[:MAX_LINE_CHARS] + trailing_cr

    def _keep_result(self, content: str) -> None:
        lines = content.rstrip("\n").split("\n")
        self.result_lines = len(lines)
        head = lines[:RESULT_HEAD_LINES]
        tail = lines[max(RESULT_HEAD_LINES, len(lines) - RESULT_TAIL_LINES) :]
        self.result_head = [clean_line(line, MAX_LINE_CHARS) for line in head]
        self.result_tail = [clean_line(line, MAX_LINE_CHARS) for line in tail]


class ToolActivities:
    """The tool calls of the current (or last) turn, oldest first, fed every domain event.

    `apply(event, now)` returns the ids whose activity changed (nothing for events that are not
    about a tool call); `TurnStarted` clears, `TurnFinished` stops whatever never finished.
    """

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self.by_id: dict[str, ToolActivity] = {}
        #: ids dropped to stay within `max_entries` since the caller last looked
        self.dropped: list[str] = []

    def __iter__(self) -> Iterator[ToolActivity]:
        return iter(self.by_id.values())

    def __len__(self) -> int:
        return len(self.by_id)

    def get(self, tool_use_id: str) -> ToolActivity | None:
        return self.by_id.get(tool_use_id)

    def clear(self) -> None:
        self.by_id.clear()

    #: the kinds that go to the activity of the call they name
    ROUTED: ClassVar[frozenset[str]] = TOOL_CALL_KINDS
    IGNORED: ClassVar[frozenset[str]] = all_kinds_but(
        {*TOOL_CALL_KINDS, "turn_started", "turn_finished"}
    )

    def apply(self, event: Event, now: float) -> list[str]:
        """The ids whose activity changed (`on_<kind>`, or the call's own activity)."""
        changed = dispatch(self, event, now)
        if changed is not UNHANDLED:
            return list(changed)
        return self.route(event, now) if event.kind in self.ROUTED else []

    def on_turn_started(self, event: TurnStarted, now: float) -> list[str]:
        self.clear()
        return []

    def on_turn_finished(self, event: TurnFinished, now: float) -> list[str]:
        return [a.id for a in self.by_id.values() if a.apply(event, now)]

    def route(self, event: Event, now: float) -> list[str]:
        tool_use_id = getattr(event, "tool_use_id", None)
        if not tool_use_id:
            return []
        activity = self.by_id.get(tool_use_id)
        if activity is None:
            # Server tools' own blocks (a sub-request's web_search) show through the search
            # events of the client call that ran them, not as entries of their own.
            if getattr(event, "server", False):
                return []
            activity = self.by_id[tool_use_id] = ToolActivity(
                tool_use_id, getattr(event, "tool", "")
            )
            while len(self.by_id) > self.max_entries:
                oldest = next(iter(self.by_id))
                del self.by_id[oldest]
                self.dropped.append(oldest)
        return [tool_use_id] if activity.apply(event, now) else []
