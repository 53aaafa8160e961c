"""The approvals pane: what was allowed or denied this session, by which rule or by the person.

Feed it `ApprovalDecided` events with `ApprovalsLog.add(event)` (or every domain event with
`handle(event)`, which ignores the rest). Newest last; only the last `max_entries` are kept.
Styles: `agent_tui/ui/styles/approvals_log.tcss` (add it to the App's CSS_PATH).
"""

from __future__ import annotations

from collections import deque
from typing import ClassVar

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from agent_tui.protocol.dispatch import all_kinds_but, dispatch
from agent_tui.protocol.events import ApprovalDecided, Event
from agent_tui.text import one_line, visible

DEFAULT_MAX_ENTRIES = 200
SUBJECT_CHARS = 80  # the dialog showed it whole; here it only has to be recognisable
MESSAGE_CHARS = 120


def _by(event: ApprovalDecided) -> str:
    if event.by == "rule":
        return f"rule {visible(event.rule)}" if event.rule else "rule"
    return {"user": "you", "mode": "mode", "headless": "headless"}.get(event.by, visible(event.by))


def entry_content(event: ApprovalDecided) -> Content:
    """One log entry: a summary line, then what was saved or told, if anything."""
    allowed = event.decision == "allow"
    mark = ("✓ allowed", "bold $text-success") if allowed else ("✗ denied ", "bold $text-error")
    # Content never parses markup: a subject like `echo [red]x` shows exactly so.
    lines = [
        Content.assemble(
            mark,
            "  ",
            (visible(event.tool), "bold"),
            "  ",
            one_line(event.subject, SUBJECT_CHARS),
            ("  by ", "$text-muted"),
            (_by(event), "$text-muted"),
        )
    ]
    if event.saved_rules:
        rules = ", ".join(visible(rule) for rule in event.saved_rules)
        kept = f"    {event.kept_as} "
        lines.append(Content.assemble((kept, "$text-muted"), (rules, "$text-accent")))
    if event.message:
        lines.append(
            Content.assemble(("    told ", "$text-muted"), one_line(event.message, MESSAGE_CHARS))
        )
    return Content("\n").join(lines)


class ApprovalsLog(VerticalScroll):
    """A scrolling list of this session's approval decisions."""

    def __init__(
        self,
        *,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.max_entries = max_entries
        self._entries: deque[ApprovalDecided] = deque(maxlen=max_entries)
        self._rows: deque[Static] = deque()
        self._composed = False

    @property
    def entries(self) -> tuple[ApprovalDecided, ...]:
        """The decisions shown, oldest first."""
        return tuple(self._entries)

    def compose(self) -> ComposeResult:
        yield Static("No approvals yet.", id="empty")
        # Entries added before the widget was mounted (e.g. a resumed session's replay).
        self._composed = True
        for event in self._entries:
            yield self._new_row(event)

    ROUTED: ClassVar[frozenset[str]] = frozenset()
    IGNORED: ClassVar[frozenset[str]] = all_kinds_but({"approval_decided"})

    def handle(self, event: Event) -> None:
        dispatch(self, event)

    def on_approval_decided(self, event: ApprovalDecided) -> None:
        self.add(event)

    def add(self, event: ApprovalDecided) -> None:
        self._entries.append(event)
        self.add_class("-has-entries")
        if self._composed:
            # Follow the newest entry, unless the person has scrolled up to read older ones.
            follow = self.is_vertical_scroll_end
            self.mount(self._new_row(event))
            if follow:
                self.call_after_refresh(self.scroll_end, animate=False)
            while len(self._rows) > self.max_entries:
                self._rows.popleft().remove()

    def show(self, entries: tuple[ApprovalDecided, ...]) -> None:
        """Show these decisions instead (a replay's end puts the live session's back)."""
        self.clear()
        for event in entries:
            self.add(event)

    def clear(self) -> None:
        self._entries.clear()
        while self._rows:
            self._rows.popleft().remove()
        self.remove_class("-has-entries")

    def _new_row(self, event: ApprovalDecided) -> Static:
        kind = "-allow" if event.decision == "allow" else "-deny"
        row = Static(entry_content(event), classes=f"entry {kind}")
        self._rows.append(row)
        return row
