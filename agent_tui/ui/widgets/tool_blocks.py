"""Tool calls as they appear in the chat: compact, collapsed blocks the person can expand.

`SearchBlock` (WebSearch) collapses to `Did N searches in X.Ys · N results`; expanded, it lists
each query with its results' titles and links. `ToolBlock` itself (every other tool) shows the tool,
its subject (command / path / url) and the result summary; expanded, the output, capped to its
first and last lines. Both take the tool call's events through `handle(event)`, before or after
mounting; `tool_block_for(tool_use_id, name)` picks the right one.

The body is built only when expanded, so collapsed blocks cost one header line each.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.reactive import reactive
from textual.style import Style
from textual.widget import Widget
from textual.widgets import Static

from agent_tui.protocol.dispatch import TOOL_CALL_KINDS, UNHANDLED, all_kinds_but, dispatch
from agent_tui.protocol.events import Event, TurnFinished
from agent_tui.ui.views.tool_activity import SEARCH_TOOL_NAMES, Phase, SearchRecord, ToolActivity
from agent_tui.ui.widgets.tool_rows import (
    TOOL_COMPONENT_CLASSES,
    Row,
    header_row,
    phase_icon,
    row_content,
    search_row,
    summary_style,
)

__all__ = ["SearchBlock", "ToolBlock", "tool_block_for"]

_EXPANDED, _COLLAPSED = "▼", "▶"
_SAFE_LINK_SCHEMES = ("https://", "http://")


def _event_tool_id(event: Event) -> str | None:
    return getattr(event, "tool_use_id", None)


class ToolBlock(Widget, can_focus=True):
    """Base for the chat's tool blocks: a header line and a body shown when expanded."""

    COMPONENT_CLASSES = TOOL_COMPONENT_CLASSES
    BINDINGS = [Binding("enter,space", "open_or_close", "Expand / collapse", show=False)]

    expanded: reactive[bool] = reactive(False, init=False)

    def __init__(
        self,
        tool_use_id: str,
        name: str = "",
        *,
        expanded: bool = False,
        clock: Callable[[], float] = time.monotonic,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.activity = ToolActivity(tool_use_id, name)
        self._clock = clock
        self._header = Static(classes="tool-block-header")
        self._body = Static(classes="tool-block-body")
        self.set_reactive(ToolBlock.expanded, expanded)
        self.set_class(expanded, "-expanded")

    @property
    def tool_use_id(self) -> str:
        return self.activity.id

    @property
    def header_text(self) -> str:
        return self.header_content().plain

    @property
    def body_text(self) -> str:
        return self.body_content().plain

    #: what goes on to the block's call (`ToolActivity`): its own events (a turn's end too)
    ROUTED: ClassVar[frozenset[str]] = TOOL_CALL_KINDS
    IGNORED: ClassVar[frozenset[str]] = all_kinds_but(ROUTED | {"turn_finished"})

    def handle(self, event: Event) -> None:
        """Apply an event of this tool call and a turn's end (others are ignored)."""
        handled = dispatch(self, event) is not UNHANDLED
        if not handled and event.kind in self.ROUTED and _event_tool_id(event) == self.activity.id:
            self._apply(event)

    def on_turn_finished(self, event: TurnFinished) -> None:
        self._apply(event)  # a call still running when its turn ends is shown as stopped

    def _apply(self, event: Event) -> None:
        if self.activity.apply(event, self._clock()):
            self.set_class(self.activity.phase is Phase.ERROR, "-error")
            self._sync()

    def toggle(self) -> None:
        self.expanded = not self.expanded

    def action_open_or_close(self) -> None:
        self.toggle()

    def on_click(self, event: events.Click) -> None:
        # The header toggles; the body does not, so its text and links can be selected.
        if event.widget is not self._body:
            event.stop()
            self.toggle()

    # Any tool's block: `✓ Bash  git status  exit 0 · 3 lines · 0.2s`; expanded, the output.
    # (`SearchBlock` draws WebSearch's own.)

    def header_content(self) -> Content:
        activity = self.activity
        row = self._chevron() + header_row(activity, phase_icon(activity, None))
        if activity.finished and activity.summary:
            row += [("  ", ""), (activity.summary, summary_style(activity))]
        elif activity.status:
            style = ".tool--warning" if activity.status_is_warning else ".tool--dim"
            row += [("  ", ""), (activity.status, style)]
        return row_content(row)

    def body_content(self) -> Content:
        activity = self.activity
        lines: list[Content] = []
        if activity.status and activity.finished:
            lines.append(Content.styled(activity.status, ".tool--dim"))
        if activity.result_lines:
            head, tail = activity.result_head, activity.result_tail
            omitted = activity.result_lines - len(head) - len(tail)
        else:  # still running, or no result text: what the live output left behind
            head, tail, omitted = [], activity.output_tail(), activity.hidden_lines
        lines += [Content.styled(line, ".tool--output") for line in head]
        if omitted > 0:
            noun = "line" if omitted == 1 else "lines"
            lines.append(Content.styled(f"… {omitted:,} {noun} not shown …", ".tool--dim"))
        lines += [Content.styled(line, ".tool--output") for line in tail]
        if not lines:
            lines.append(Content.styled("(no output)", ".tool--dim"))
        return Content("\n").join(lines)

    def compose(self) -> ComposeResult:
        yield self._header
        yield self._body

    def on_mount(self) -> None:
        self._draw()  # catch up on events handled before mounting

    def watch_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")
        self._sync()

    def _chevron(self) -> Row:
        return [(_EXPANDED if self.expanded else _COLLAPSED, ".tool--dim"), (" ", "")]

    def _sync(self) -> None:
        if self.is_mounted:
            self._draw()

    def _draw(self) -> None:
        self._header.update(self.header_content())
        if self.expanded:
            self._body.update(self.body_content())


class SearchBlock(ToolBlock):
    """A WebSearch call: collapsed to its summary and result count; expanded, every query with
    its results' titles and links."""

    def header_content(self) -> Content:
        activity = self.activity
        row = self._chevron()
        if activity.finished:
            row.append((activity.search_summary(), summary_style(activity)))
            if activity.searches:
                total = activity.total_results
                row.append((f" · {total} result{'s' if total != 1 else ''}", ".tool--count"))
        elif activity.searches:
            row += [phase_icon(activity, None), (" ", ""), *search_row(activity.searches[-1])]
        else:
            row += header_row(activity, phase_icon(activity, None))
        return row_content(row)

    def body_content(self) -> Content:
        lines: list[Content] = []
        for search in self.activity.searches:
            lines.append(row_content(search_row(search, prefix="search: ")))
            lines += self._result_lines(search)
        if not lines:
            lines.append(Content.styled("no searches", ".tool--dim"))
        return Content("\n").join(lines)

    @staticmethod
    def _result_lines(search: SearchRecord) -> list[Content]:
        lines: list[Content] = []
        for title, url in search.results:
            lines.append(Content.assemble("  • ", (title or url or "(untitled)", ".tool--subject")))
            if url:
                link = Content.styled(url, ".tool--link")
                if url.startswith(_SAFE_LINK_SCHEMES):
                    # A terminal hyperlink, only for web URLs (no file:, javascript:, …).
                    link = link.stylize(Style(link=url))
                lines.append(Content("    ") + link)
        return lines


def tool_block_for(
    tool_use_id: str,
    name: str,
    *,
    expanded: bool = False,
    clock: Callable[[], float] = time.monotonic,
) -> ToolBlock:
    """The chat block for a tool call: a `SearchBlock` for WebSearch, else a `ToolBlock`."""
    cls = SearchBlock if name in SEARCH_TOOL_NAMES else ToolBlock
    return cls(tool_use_id, name, expanded=expanded, clock=clock)
