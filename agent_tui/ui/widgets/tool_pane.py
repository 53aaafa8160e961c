"""The tool-progress pane: one live entry per tool call of the current turn, newest last.

Feed it every domain event with `ToolPane.handle(event)`; it ignores the ones it has no use for.
The last turn stays visible until the next `TurnStarted` clears it. State lives in
`ToolActivities` (`ui/views/tool_activity.py`, no Textual), so the pane keeps up with events while
hidden; rows are drawn by `tool_rows.py`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.timer import Timer
from textual.widget import Widget

from agent_tui.protocol.dispatch import TOOL_CALL_KINDS, all_kinds_but, dispatch
from agent_tui.protocol.events import Event, ToolCallReady, TurnStarted
from agent_tui.ui.views.tool_activity import MAX_ENTRIES, Phase, ToolActivities, ToolActivity
from agent_tui.ui.widgets.plan import PlanView, todos_of
from agent_tui.ui.widgets.shells_list import ShellsList
from agent_tui.ui.widgets.tool_rows import (
    TOOL_COMPONENT_CLASSES,
    Row,
    entry_rows,
    fit_rows,
    phase_icon,
    rows_to_content,
)

TICK_S = 1 / 8


class ToolEntry(Widget):
    """One tool call in the pane; `sync()` after its activity changed."""

    COMPONENT_CLASSES = TOOL_COMPONENT_CLASSES

    def __init__(self, activity: ToolActivity, pane: ToolPane) -> None:
        super().__init__(classes=f"-{activity.phase}")
        self.activity = activity
        self._pane = pane
        self._rows: list[Row] = []
        self._content: Content | None = None
        self._width = 0  # what `_content` was fitted to
        self._phase = activity.phase
        self.sync()

    @property
    def text(self) -> str:
        """The entry as plain text, before it is fitted to the pane's width."""
        return rows_to_content(self._rows).plain

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
        width = self.content_size.width
        if self._content is None or width != self._width:
            self._content = rows_to_content(fit_rows(self._rows, width))
            self._width = width
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
        self.spins = animate
        self.max_entries = max_entries
        self.spinner_frame: int | None = 0 if animate else None
        self._activities = ToolActivities(max_entries)
        self._entries: dict[str, ToolEntry] = {}
        self._dirty: set[str] = set()
        self._flush_scheduled = False
        self._shown = False
        self._ticker: Timer | None = None
        self.plan = PlanView()
        #: the background shells, above the turn's calls (`ShellsList.follow` a registry)
        self.shells = ShellsList()

    # --- public API ---

    @property
    def activities(self) -> list[ToolActivity]:
        """Tool calls of the current (or last) turn, oldest first."""
        return list(self._activities)

    def entry(self, tool_use_id: str) -> ToolEntry | None:
        return self._entries.get(tool_use_id)

    #: what goes on to the calls' entries (`ToolActivities`): a turn's start is the pane's own
    ROUTED: ClassVar[frozenset[str]] = TOOL_CALL_KINDS | {"turn_finished"}
    IGNORED: ClassVar[frozenset[str]] = all_kinds_but(
        {*TOOL_CALL_KINDS, "turn_started", "turn_finished"}
    )

    def handle(self, event: Event) -> None:
        """Apply one domain event (`on_<kind>`, then the entries); cheap, and safe to call for
        every event of a turn."""
        dispatch(self, event)
        if event.kind in self.ROUTED:
            self.route(event)

    def route(self, event: Event) -> None:
        changed = self._activities.apply(event, self.now())
        for dropped in self._activities.dropped:
            self._dirty.discard(dropped)
            if (entry := self._entries.pop(dropped, None)) is not None:
                entry.remove()
        self._activities.dropped.clear()
        if changed:
            self._dirty.update(changed)
            self._schedule_flush()

    def on_turn_started(self, event: TurnStarted) -> None:
        self.clear()  # a new turn: the last one's calls go (the plan stays)

    def on_tool_call_ready(self, event: ToolCallReady) -> None:
        if event.tool == "TodoWrite":
            todos = todos_of(event.input)
            if todos is not None:
                self.show_plan(todos)

    def show_plan(self, todos: list[dict[str, Any]]) -> None:
        """The model's plan, kept at the top across turns until it writes a new one."""
        self.plan.show_plan(todos)

    def take_calls(self) -> ToolActivities:
        """The calls shown, taken off the pane for `put_back` (a replay draws its own here)."""
        calls = self._activities
        self._activities = ToolActivities(self.max_entries)
        self.clear()
        return calls

    def put_back(self, calls: ToolActivities) -> None:
        """Show the calls `take_calls` took, as they were."""
        self.clear()
        self._activities = calls
        self._dirty.update(calls.by_id)
        self._schedule_flush()

    def clear(self) -> None:
        """Forget the turn's tool calls (the plan stays)."""
        self._activities.clear()
        self._dirty.clear()
        self._entries.clear()
        if self.is_mounted:
            self.query(ToolEntry).remove()
        self._update_ticker()

    # --- internals ---

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
            order = {tool_id: n for n, tool_id in enumerate(self._activities.by_id)}
            new.sort(key=lambda e: order[e.activity.id])
            self.mount_all(new)
        if following and (new or grew):
            # Follow the newest activity, unless the person scrolled up to read something.
            self.call_after_refresh(self.scroll_end, animate=False, immediate=True)
        self._update_ticker()

    def _update_ticker(self) -> None:
        if self._ticker is None:
            return
        if self._live and any(a.phase is Phase.RUNNING for a in self._activities):
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

    def compose(self) -> ComposeResult:
        yield self.plan
        yield self.shells

    def on_mount(self) -> None:
        if self.spins:
            self._ticker = self.set_interval(TICK_S, self._tick, pause=True)

    def on_show(self, event: events.Show) -> None:
        self._shown = True
        # Catch up on everything that happened while hidden, in one go.
        self._dirty.update(self._activities.by_id)
        self._schedule_flush()

    def on_hide(self, event: events.Hide) -> None:
        self._shown = False
        self._update_ticker()
