"""The chat's scrolling list of messages (`ChatView`), pruned to the newest `MAX_MESSAGES`, and
what frees the lines its messages painted (see `chat` for the messages themselves)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widget import Widget

from agent_tui.speedups import render_caches, screen_resize_once
from agent_tui.ui.chat import parking as chat_parking
from agent_tui.ui.chat.markdown_segment import MarkdownSegment
from agent_tui.ui.chat.parking import Parkable, ParkableAnswer

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.layout import DockArrangeResult

#: messages (prompts, answers, tool blocks, notices) kept mounted. Each one's widgets lengthen
#: every full garbage collection, so a session's memory and pauses level off once this many are
#: mounted (about 30 plain turns); older turns page back in when scrolled to (`EarlierMessages`).
MAX_MESSAGES = 60

#: refreshes `ChatView.after_shown` waits at most for a widget to be laid out
SHOWN_TRIES = 200


class ChatView(VerticalScroll):
    """The scrolling list of messages, pruned to the newest `max_messages`.

    Anchored to the bottom: it follows new content as it streams in until the person scrolls up,
    and follows again once they scroll back down (the compositor does it, so following a stream
    costs nothing per delta).

    Its scrollbar's column is kept from the start (`scrollbar-gutter: stable`): when the first
    answer overflows the view, the text doesn't jump one column narrower, and what was painted
    isn't rendered again at that width (every segment a fast first answer had taken, in one
    frame: 40-90 ms of CPU, benchmarks/bench_callbacks.py).
    """

    DEFAULT_CSS = "ChatView { scrollbar-gutter: stable; }"

    def __init__(self, max_messages: int = MAX_MESSAGES, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_messages = max_messages
        #: a row kept above the messages (the "earlier messages" one): pruning leaves it
        self.header: Widget | None = None
        #: told the conversation index of the prompt a prune cut at (None: prune anywhere)
        self.on_pruned: Callable[[int], None] | None = None
        self._arranged_width = 0

    def on_mount(self) -> None:
        self.anchor()

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        if size.width != self._arranged_width:  # a resize: re-wrap only what is in view
            self._arranged_width = size.width
            self._mark_in_view(estimate=screen_resize_once.estimating())
            for child in self.children:  # and lay out in full only what is near it
                if isinstance(child, ParkableAnswer):
                    child.park()
        else:  # an answer streaming: only its part near the view is placed
            for child in self.children:
                if isinstance(child, ParkableAnswer):
                    child.park_full_groups()  # (a finished one: nothing)
        arrangement = super().arrange(size, optimal)
        chat_parking.unpark_near(arrangement, self.scroll_y, size)
        return arrangement

    def _mark_in_view(self, estimate: bool = False) -> None:
        """Tell each answer's segments whether the view showed them (by the last layout): at a
        new width only those are rendered for the layout, the others get a scaled height and
        are rendered (and laid out again if need be) when they are painted. With `estimate`
        (a resize's first layout: `screen_resize_once` renders what it shows in callbacks of
        their own and lays out again before the paint) none is rendered for the layout."""
        top, bottom = self.scroll_y, self.scroll_y + self.size.height
        if estimate:
            top = bottom = -1.0
        for child in self.children:
            region = child.virtual_region
            shown = region.y < bottom and region.bottom > top
            if isinstance(child, ParkableAnswer) and child.parked:
                shown = False  # its segments were not placed (far from the view)
            if isinstance(child, MarkdownSegment):
                child.in_view = shown
                continue
            for segment in child.query(MarkdownSegment):
                y, node, placed = region.y, cast("DOMNode | None", segment), shown
                while node is not child and isinstance(node, Widget):  # in a group or not
                    y += node.virtual_region.y
                    placed = placed and not (isinstance(node, Parkable) and node.parked)
                    node = node.parent
                segment.in_view = placed and y < bottom and y + segment.outer_size.height > top

    def after_shown(
        self, widget: Widget, callback: Callable[[], object], *, tries: int = SHOWN_TRIES
    ) -> None:
        """Call `callback` once `widget`, mounted in this chat, is laid out and the frame that
        shows it is painted: a mount is done a few loop turns later, its layout and paint at
        the next frame after that (Textual paints a layout in the same update, or, inside a
        batch, in the message right after it). After `tries` refreshes without it (a widget
        that never gets a size), the callback is called all the same, never kept waiting."""

        def check(left: int) -> None:
            if widget.is_attached and widget.size.height > 0:
                self.call_later(callback)  # after a batch's deferred paint, if there was one
            elif left <= 0:
                self.call_after_refresh(callback)
            else:
                self.call_after_refresh(check, left - 1)

        self.call_after_refresh(check, tries)

    async def add(self, widget: Widget) -> Widget:
        await self.mount(widget)
        await self._prune()
        return widget

    def append(self, widget: Widget) -> Widget:
        """Mount from synchronous code (event listeners); prunes old messages soon after."""
        self.mount(widget)
        if len(self.children) >= self.max_messages:
            self.call_after_refresh(self._prune)
        return widget

    async def _prune(self) -> None:
        """Keep the newest `max_messages`; with `on_pruned`, cut at a prompt (whole turns go,
        and the conversation can page them back in from there). Not while the person has
        scrolled up to read: what they read stays until they are back at the bottom."""
        messages = [child for child in self.children if child is not self.header]
        excess = len(messages) - self.max_messages
        if excess <= 0 or self.scroll_y < self.max_scroll_y - self.size.height:
            return
        cut, index = excess, None
        if self.on_pruned is not None:
            for cut in range(excess, len(messages)):
                if (index := getattr(messages[cut], "turn_index", None)) is not None:
                    break
            else:
                cut = excess  # one turn longer than the cap: cut inside it
        pruned = messages[:cut]
        await self.remove_children(pruned)
        release_render_caches(pruned)
        if index is not None and self.on_pruned is not None:
            self.on_pruned(index)

    def trim_offscreen(self) -> int:
        """Drop the painted lines of messages more than a screen above the view (they are
        painted again if scrolled to). What a full garbage collection walks is then the lines
        near the view, not those of every mounted message: measured in bench_long_session.py.
        Returns how many messages were trimmed."""
        top = self.scroll_y - self.size.height
        trimmed = 0
        for child in self.children:
            if child.virtual_region.bottom >= top:
                break
            trimmed += 1
            drop_painted_lines(child)
        return trimmed


def drop_painted_lines(widget: Widget) -> None:
    """Forget the lines `widget` and its children painted: Textual's line cache of each, and a
    `MarkdownSegment`'s own (painted again if they are shown)."""
    for node in (widget, *widget.walk_children(Widget, with_self=False)):
        render_caches.forget_lines(node)
        if isinstance(node, MarkdownSegment):
            node.drop_lines()


def release_render_caches(widgets: list[Widget]) -> None:
    """Free what removed widgets rendered, now rather than when the collector gets to them
    (see `speedups/render_caches.py`)."""
    for widget in widgets:
        drop_painted_lines(widget)
    render_caches.forget_removed()
