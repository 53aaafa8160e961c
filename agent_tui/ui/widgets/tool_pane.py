"""The tool-progress pane: one live entry per tool call of the current turn, newest last.

Feed it every domain event with `ToolPane.handle(event)`; it ignores the ones it has no use for.
The last turn stays visible until the next `TurnStarted` clears it.

State lives in `ToolActivity` (plain Python, no Textual), so the pane can keep up with events
while hidden and the chat's tool blocks (`tool_blocks.py`) can reuse the same bookkeeping.
All text that comes from the model, the web or a subprocess is shown as plain `Content` (never
markup) after escape sequences and control characters are stripped.
"""

from __future__ import annotations

import json
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from textual import events
from textual.containers import VerticalScroll
from textual.content import Content, Span
from textual.timer import Timer
from textual.widget import Widget

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

__all__ = [
    "SEARCH_ERROR_TEXT",
    "TOOL_COMPONENT_CLASSES",
    "Phase",
    "SearchRecord",
    "ToolActivity",
    "ToolEntry",
    "ToolPane",
    "clean_line",
    "entry_rows",
    "one_line",
    "row_content",
    "search_error_text",
]

TAIL_LINES = 8  # output lines an entry shows (and the most it ever keeps)
MAX_LINE_CHARS = 400  # wider than any terminal; the CSS ellipsis does the rest
MAX_RAW_PARTIAL = 8192  # an unterminated line (progress bars) is compacted past this
MAX_SEARCHES = 32  # the API caps uses at 8; this only bounds a misbehaving stream
MAX_RESULTS_PER_SEARCH = 50
RESULT_HEAD_LINES = 20  # a finished result keeps its first and last lines for the chat block
RESULT_TAIL_LINES = 20
MAX_ENTRIES = 100  # entries per turn; the oldest are dropped beyond this
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK_S = 1 / 8

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

# Component classes shared by the pane entries and the chat blocks, styled in their .tcss files.
TOOL_COMPONENT_CLASSES: set[str] = {
    "tool--name",
    "tool--subject",
    "tool--dim",
    "tool--running",
    "tool--ok",
    "tool--error",
    "tool--warning",
    "tool--query",
    "tool--count",
    "tool--output",
    "tool--link",
}


# --- untrusted text ------------------------------------------------------------------------------

# CSI, OSC (BEL or ST terminated), DCS/SOS/PM/APC strings, and two-byte escapes.
_ESCAPE_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)
_TRAILING_ESCAPE_RE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*)?$")  # cut off mid-sequence
# C0/C1 controls and the bidi overrides that can make text read differently than it is.
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_WHITESPACE_RE = re.compile(r"\s+")


def clean_line(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """One line of untrusted text made safe to draw: no escapes, no controls, bounded length."""
    if "\x1b" in text or "\x9b" in text:
        text = _ESCAPE_RE.sub("", _TRAILING_ESCAPE_RE.sub("", text))
    if "\t" in text:
        text = text.expandtabs(4)
    text = _CONTROL_RE.sub("", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """A subject (command, query, url) as a single line; a multi-line command ends in ` …`."""
    first, newline, _rest = text.strip().partition("\n")
    line = _WHITESPACE_RE.sub(" ", clean_line(first, limit * 2)).strip()
    if newline:
        line += " …"
    return line if len(line) <= limit else line[: limit - 1] + "…"


def search_error_text(code: str) -> str:
    return SEARCH_ERROR_TEXT.get(code) or f"search failed: {clean_line(code, 60)}"


def _resolve_cr(raw: str) -> str:
    """What a terminal would show for a line with carriage returns: the text after the last one."""
    raw = raw.rstrip("\r")
    return raw.rsplit("\r", 1)[-1] if "\r" in raw else raw


def _subject(name: str, tool_input: dict[str, Any]) -> str:
    for key in ("command", "url", "query", "path", "file_path", "pattern"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return one_line(value)
    if not tool_input:
        return ""
    return one_line(json.dumps(tool_input, ensure_ascii=False, default=str))


# --- state ---------------------------------------------------------------------------------------


class Phase(StrEnum):
    PENDING = "pending"  # input still streaming, or waiting for approval
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
        return clean_line(_resolve_cr(self._partial)) if self._partial else ""

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
        n = len(self.searches)
        text = f"Did {n} search{'es' if n != 1 else ''}"
        return f"{text} in {self.duration_s:.1f}s" if self.duration_s is not None else text

    def elapsed(self, now: float) -> float | None:
        if self.duration_s is not None:
            return self.duration_s
        return None if self.started_at is None else max(0.0, now - self.started_at)

    def apply(self, event: Event, now: float) -> bool:
        """Update from one event for this tool call; True if anything visible changed."""
        match event:
            case ToolCallStarted():
                self.name = self.name or event.name
            case ToolCallReady():
                self.name = event.name
                self.subject = _subject(event.name, event.input)
                if event.input_error:
                    self.phase = Phase.ERROR
                    self.status = f"invalid input: {one_line(event.input_error, 200)}"
                elif self.phase is Phase.PENDING:
                    self.phase = Phase.RUNNING
                    self.started_at = now
            case ApprovalRequested():
                self.phase = Phase.PENDING
                self.status, self.status_is_warning = "awaiting approval", True
            case ApprovalDecided():
                if event.decision == "deny":
                    reason = f": {one_line(event.message, 200)}" if event.message else ""
                    self.phase = Phase.ERROR
                    self.status, self.status_is_warning = f"denied{reason}", False
                else:
                    self.phase = Phase.RUNNING
                    self.status, self.status_is_warning = "", False
                    self.started_at = now  # time the run, not the wait for a keystroke
            case ToolProgress():
                self._start(now)
                if event.name and not self.name:
                    self.name = event.name
                if event.status:
                    self.status, self.status_is_warning = one_line(event.status), False
                if event.output:
                    self._feed(event.output)
            case SearchQueryUpdate():
                self._start(now)
                self.name = self.name or "WebSearch"
                # Not stripped: a trailing space is part of the query as far as it has arrived.
                query = clean_line(" ".join(event.query.splitlines()))
                self._search_for_query(event.search_index).query = query
            case SearchResultsReceived():
                self._start(now)
                self.name = self.name or "WebSearch"
                self._record_results(event)
            case ToolFinished():
                self.name = self.name or event.name
                self.phase = Phase.ERROR if event.is_error else Phase.DONE
                self.summary = one_line(event.summary)
                self.duration_s = event.duration_s
                if event.content:
                    self._keep_result(event.content)
            case TurnFinished():
                if self.finished:
                    return False
                self.phase = Phase.STOPPED
                self.summary = self.summary or ("cancelled" if event.cancelled else "no result")
            case _:
                return False
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
        query = clean_line(" ".join(event.query.splitlines()))
        pending = [s for s in self.searches if s.index == event.search_index and not s.done]
        record = next((s for s in reversed(pending) if s.query == query), None)
        if record is None:
            record = pending[-1] if pending else self._new_search(event.search_index)
        record.query = query or record.query
        record.done = True
        record.count = event.count
        record.error_code = event.error_code
        record.results = [
            (one_line(str(r.get("title") or ""), 200), one_line(str(r.get("url") or ""), 500))
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
            self.tail.append(clean_line(_resolve_cr(first)))
        for raw in parts[keep_from:-1]:
            self.tail.append(clean_line(_resolve_cr(raw)))
        self._partial = self._compact(parts[-1])

    @staticmethod
    def _compact(raw: str) -> str:
        if len(raw) <= MAX_RAW_PARTIAL:
            return raw
        trailing_cr = "\r" if raw.endswith("\r") else ""
        return _resolve_cr(raw)[:MAX_LINE_CHARS] + trailing_cr

    def _keep_result(self, content: str) -> None:
        lines = content.rstrip("\n").split("\n")
        self.result_lines = len(lines)
        head = lines[:RESULT_HEAD_LINES]
        tail = lines[max(RESULT_HEAD_LINES, len(lines) - RESULT_TAIL_LINES) :]
        self.result_head = [clean_line(_resolve_cr(line)) for line in head]
        self.result_tail = [clean_line(_resolve_cr(line)) for line in tail]


# --- rendering -----------------------------------------------------------------------------------
# Entries are described as rows of (text, style) pairs, which are cheap to build on every event;
# they become one `Content` only when the widget is painted, at most once a frame.

Segment = tuple[str, str]  # (text, component-class style such as ".tool--ok")
Row = list[Segment]

_PHASE_STYLE = {
    Phase.PENDING: ".tool--dim",
    Phase.RUNNING: ".tool--running",
    Phase.DONE: ".tool--ok",
    Phase.ERROR: ".tool--error",
    Phase.STOPPED: ".tool--warning",
}
_PHASE_ICON = {
    Phase.PENDING: "○",
    Phase.DONE: "✓",
    Phase.ERROR: "✗",
    Phase.STOPPED: "■",
}
_INDENT: Segment = ("  ", "")


def phase_icon(activity: ToolActivity, spinner_frame: int | None) -> Segment:
    """✓ / ✗ / ■ when finished; a spinner frame (or a still dot) while running."""
    if activity.phase is Phase.RUNNING:
        icon = "●" if spinner_frame is None else SPINNER[spinner_frame % len(SPINNER)]
    else:
        icon = _PHASE_ICON[activity.phase]
    return (icon, _PHASE_STYLE[activity.phase])


def header_row(activity: ToolActivity, icon: Segment, elapsed: float | None = None) -> Row:
    row: Row = [icon, (" ", ""), (activity.name or "tool", ".tool--name")]
    if activity.subject:
        row += [("  ", ""), (activity.subject, ".tool--subject")]
    # Only once it is worth watching; also keeps fast tools (and snapshots) free of a clock.
    if elapsed is not None and elapsed >= 1.0 and activity.phase is Phase.RUNNING:
        row.append((f"  {elapsed:.1f}s", ".tool--dim"))
    return row


def search_row(search: SearchRecord, prefix: str = "searching: ") -> Row:
    row: Row = [(prefix, ".tool--dim"), (search.query, ".tool--query")]
    if search.error_code:
        row.append((f"  {search_error_text(search.error_code)}", ".tool--warning"))
    elif search.done:
        noun = "result" if search.count == 1 else "results"
        row.append((f"  {search.count} {noun}", ".tool--count"))
    return row


def summary_style(activity: ToolActivity) -> str:
    return ".tool--error" if activity.phase is Phase.ERROR else _PHASE_STYLE[activity.phase]


def entry_rows(activity: ToolActivity, icon: Segment, elapsed: float | None) -> list[Row]:
    """The pane entry for one tool call: a header row, then the indented body."""
    return [header_row(activity, icon, elapsed), *([_INDENT, *r] for r in body_rows(activity))]


def body_rows(activity: ToolActivity) -> list[Row]:
    rows: list[Row] = []
    if activity.is_search:
        rows += [search_row(s) for s in activity.searches]
    # WebFetch reports its final status as the summary too; say it once.
    if activity.status and not (activity.finished and activity.status == activity.summary):
        style = ".tool--warning" if activity.status_is_warning else ".tool--dim"
        if activity.phase is Phase.ERROR and not activity.summary:
            style = ".tool--error"
        rows.append([(activity.status, style)])
    if not activity.is_search:
        tail = activity.output_tail()
        # A replayed Bash call may come without progress events; its result has the output.
        if not tail and activity.result_lines and activity.name == "Bash":
            tail = (activity.result_head + activity.result_tail)[-TAIL_LINES:]
            hidden = activity.result_lines - len(tail)
        else:
            hidden = activity.hidden_lines
        if hidden > 0:
            noun = "line" if hidden == 1 else "lines"
            rows.append([(f"… {hidden:,} earlier {noun}", ".tool--dim")])
        rows += [[(line, ".tool--output")] for line in tail]
    if activity.finished:
        summary = activity.search_summary() if activity.is_search else activity.summary
        if summary:
            rows.append([(summary, summary_style(activity))])
    return rows


def rows_to_content(rows: list[Row]) -> Content:
    """One `Content` for all rows (plain text and spans; never parsed as markup)."""
    texts: list[str] = []
    spans: list[Span] = []
    position = 0
    for n, row in enumerate(rows):
        if n:
            texts.append("\n")
            position += 1
        for text, style in row:
            if style and text:
                spans.append(Span(position, position + len(text), style))
            texts.append(text)
            position += len(text)
    return Content("".join(texts), spans)


def row_content(row: Row) -> Content:
    return rows_to_content([row])


class ToolEntry(Widget):
    """One tool call in the pane; `sync()` after its activity changed."""

    COMPONENT_CLASSES = TOOL_COMPONENT_CLASSES

    def __init__(self, activity: ToolActivity, pane: ToolPane) -> None:
        super().__init__(classes=f"-{activity.phase}")
        self.activity = activity
        self._pane = pane
        self._rows: list[Row] = []
        self._content: Content | None = None
        self._phase = activity.phase
        self.sync()

    @property
    def text(self) -> str:
        """The entry as plain text, as drawn (before width truncation)."""
        return self.render().plain

    def sync(self) -> bool:
        """Re-describe the entry from its activity; True if its height changed."""
        activity = self.activity
        pane = self._pane
        icon = phase_icon(activity, pane.spinner_frame)
        rows = entry_rows(activity, icon, activity.elapsed(pane.now()))
        resized = len(rows) != len(self._rows)
        self._rows = rows
        self._content = None
        if activity.phase is not self._phase:
            self.remove_class(f"-{self._phase}")
            self.add_class(f"-{activity.phase}")
            self._phase = activity.phase
        # A layout pass only when the entry's height changes; most updates repaint one widget.
        self.refresh(layout=resized)
        return resized

    def render(self) -> Content:
        if self._content is None:
            self._content = rows_to_content(self._rows)
        return self._content


class ToolPane(VerticalScroll):
    """Tool activity of the current turn. Feed it events with `handle`; it keeps the last turn
    on screen until the next `TurnStarted`.

    While hidden (`display = False`) it only updates `ToolActivity` state; widgets are mounted
    and refreshed when it is shown again. Pass `clock` and `animate=False` for deterministic
    output (tests, snapshots).
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        animate: bool = True,
        max_entries: int = MAX_ENTRIES,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.now = clock
        self.animate = animate
        self.max_entries = max_entries
        self.spinner_frame: int | None = 0 if animate else None
        self._activities: dict[str, ToolActivity] = {}
        self._entries: dict[str, ToolEntry] = {}
        self._dirty: set[str] = set()
        self._flush_scheduled = False
        self._shown = False
        self._ticker: Timer | None = None

    # --- public API ---

    @property
    def activities(self) -> list[ToolActivity]:
        """Tool calls of the current (or last) turn, oldest first."""
        return list(self._activities.values())

    def entry(self, tool_use_id: str) -> ToolEntry | None:
        return self._entries.get(tool_use_id)

    def handle(self, event: Event) -> None:
        """Apply one domain event; cheap, and safe to call for every event of a turn."""
        if isinstance(event, TurnStarted):
            self.clear()
            return
        if isinstance(event, TurnFinished):
            now = self.now()
            self._dirty.update(a.id for a in self._activities.values() if a.apply(event, now))
        else:
            activity = self._activity_for(event)
            if activity is None or not activity.apply(event, self.now()):
                return
            self._dirty.add(activity.id)
        self._schedule_flush()

    def clear(self) -> None:
        self._activities.clear()
        self._dirty.clear()
        self._entries.clear()
        if self.is_mounted:
            self.remove_children()
        self._update_ticker()

    # --- internals ---

    def _activity_for(self, event: Event) -> ToolActivity | None:
        match event:
            case ToolCallStarted() | ToolCallReady():
                tool_id, name = event.id, event.name
                # Server tools' own blocks (a sub-request's web_search) are shown through the
                # search events of the client call that ran them, not as entries of their own.
                if event.server and tool_id not in self._activities:
                    return None
            case SearchQueryUpdate() | SearchResultsReceived():
                tool_id, name = event.tool_use_id, "WebSearch"
            case ToolProgress() | ToolFinished():
                tool_id, name = event.tool_use_id, event.name
            case ApprovalRequested() | ApprovalDecided():
                tool_id, name = event.tool_use_id, event.tool
            case _:
                return None
        activity = self._activities.get(tool_id)
        if activity is None:
            activity = self._activities[tool_id] = ToolActivity(tool_id, name)
            while len(self._activities) > self.max_entries:
                oldest = next(iter(self._activities))
                del self._activities[oldest]
                self._dirty.discard(oldest)
                if (entry := self._entries.pop(oldest, None)) is not None:
                    entry.remove()
        return activity

    @property
    def _live(self) -> bool:
        return self._shown and self.display and self.is_mounted

    def _schedule_flush(self) -> None:
        # Coalesce: any number of events handled before the next message costs one flush.
        if self._flush_scheduled or not self._live:
            return
        self._flush_scheduled = True
        self.call_later(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        if not self._live:
            return
        following = self.scroll_y >= self.max_scroll_y
        grew = False
        new: list[ToolEntry] = []
        for tool_id in self._dirty:
            activity = self._activities.get(tool_id)
            if activity is None:
                continue
            if (entry := self._entries.get(tool_id)) is None:
                entry = self._entries[tool_id] = ToolEntry(activity, self)
                new.append(entry)
            else:
                grew = entry.sync() or grew
        self._dirty.clear()
        if new:
            order = {tool_id: n for n, tool_id in enumerate(self._activities)}
            new.sort(key=lambda e: order[e.activity.id])
            self.mount_all(new)
        if following and (new or grew):
            # Follow the newest activity, unless the person scrolled up to read something.
            self.call_after_refresh(self.scroll_end, animate=False, immediate=True)
        self._update_ticker()

    def _update_ticker(self) -> None:
        if self._ticker is None:
            return
        if self._live and any(a.phase is Phase.RUNNING for a in self._activities.values()):
            self._ticker.resume()
        else:
            self._ticker.pause()

    def _tick(self) -> None:
        if self.spinner_frame is not None:
            self.spinner_frame += 1
        running = [e for e in self._entries.values() if e.activity.phase is Phase.RUNNING]
        for entry in running:
            entry.sync()
        if not running:
            self._update_ticker()

    def on_mount(self) -> None:
        if self.animate:
            self._ticker = self.set_interval(TICK_S, self._tick, pause=True)

    def on_show(self, event: events.Show) -> None:
        self._shown = True
        # Catch up on everything that happened while hidden, in one go.
        self._dirty.update(self._activities)
        self._schedule_flush()

    def on_hide(self, event: events.Hide) -> None:
        self._shown = False
        self._update_ticker()
