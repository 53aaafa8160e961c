"""Finished answers far from the view are *parked* at a resize: laid out as one box of known
height, their segments neither measured nor placed.

A resize lays the whole chat out at the new width, and Textual's layout costs about the same per
widget however little it renders: with 100 KB of earlier answers on screen (~90 widgets, most of
them the answers' segments and their groups) that layout alone took 20–30 ms of CPU in one
event-loop callback (benchmarks/bench_callbacks.py). So at a width change every finished answer
is parked first: its height at the new width is the sum of its segments' heights — known, or
scaled as `MarkdownSegment` estimates them, the very figures its own layout would find — and its
children are left out of the arrangement. The answers the layout then finds within a view's
height of the view are unparked before their children are arranged; of those, only the shelves
of groups and the groups of segments (`chat.SegmentShelf`, `chat.SegmentGroup`) within a view's
height of it are unparked in turn, a level at a time (a 25 KB answer is ~15 widgets: the one
partly in view lays out only its part near the view). The others cost one widget each.

A parked answer is never painted parked: what is shown changes by a layout or a scroll, and each
places the chat's children through `ChatView.arrange` (a scroll too: Textual places the widgets
in view again), which unparks every answer within a view's height of where the view will be
before its children are arranged in that same pass. Its height doesn't change when it is
unparked (the same segment heights), so nothing moves; the scrollbar's size is the chat's real
height; its text (`AssistantMessage.text`, the widgets themselves) is all still there. An answer
whose children could add a gutter or a margin to that sum (another stylesheet) is not parked.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual.geometry import NULL_SPACING, Region, Size
from textual.layout import DockArrangeResult
from textual.widget import Widget

from agent_tui.speedups.textual_privates import layout_key
from agent_tui.ui.chat.markdown_segment import MarkdownSegment


class Parkable(Widget):
    """A widget that can be laid out as its height alone (`content_height`), its children not
    arranged, while `parked`: a finished answer, one of its shelves of groups, or a group of
    its segments. Unparked, it unparks those of its own that its arrangement places near where
    the view will be (`_windows`, set by the layout of what holds it), and tells them where."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: laid out as its height alone, its children not arranged
        self.parked = False
        #: where the view will be, in its own content's space (by `_unpark_near`)
        self._windows: list[Region] = []
        #: its height while parked, and what it was summed for (`summed_height`)
        self._summed: tuple[tuple[object, ...], int] | None = None

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        if self.parked:
            return DockArrangeResult([], set(), NULL_SPACING)  # none of its children placed
        arrangement = super().arrange(size, optimal)
        if self._windows:
            _unpark_near(arrangement, self._windows)
        return arrangement

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self.parked:
            height = self.summed_height(container, width)
            if height is not None:
                return height
            self.parked = False  # its children's sum is not its height: laid out as usual
        return super().get_content_height(container, viewport, width)

    def summed_height(self, container: Size, width: int) -> int | None:
        """`content_height`, summed again only when something under it changed since: each
        layout while an answer streams measures its parked shelves and groups (their segments
        are frozen), and summing every segment each time made a layout's cost grow with the
        answer. What says "changed" is what keys Textual's own box-model cache
        (`speedups.textual_privates.layout_key`); without it, summed every time."""
        changes = layout_key(self)
        key = (width, changes)
        if changes is not None and self._summed is not None and self._summed[0] == key:
            return self._summed[1]
        height = content_height(self, container, width)
        self._summed = None if height is None else (key, height)
        return height


class ParkableAnswer(Parkable):
    """An answer that can be parked (`chat.AssistantMessage`): once `finished`, `park` lays it
    out as its height alone until the chat unparks it (`unpark_near`); its shelves and groups
    of segments (`chat.SegmentShelf`, `chat.SegmentGroup`) are parked with it, and stay parked
    while it is unparked until they come near the view: an answer partly in view lays out only
    its groups near the view."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: set once its segments are all written and frozen, no more to come (`finished`)
        self.done = asyncio.Event()

    @property
    def finished(self) -> bool:
        return self.done.is_set()

    def park(self) -> None:
        """From the next layout on, be laid out as its height alone until unparked (when
        finished: the segments of an answer still streaming change), its shelves and groups
        too."""
        self.parked = self.finished and self.display
        if self.parked:
            _park_within(self)

    def park_full_groups(self) -> None:
        """While it streams: park its shelves and groups that are full (frozen segments, no
        more to come) — at each level all but the last, the one being filled — and what the
        view had unparked in them; the layout then unparks those near the view
        (`_unpark_near`). Without it every layout of a streaming answer placed all its
        segments, and then all its groups: its cost grew with the answer, and as layouts come
        once a frame, the streaming time grew faster than the answer (bench_streaming.py).
        Its cost is the answer's shelves and the last one's groups, not every group."""
        if self.finished or not self.display:
            return
        node: Widget = self
        while True:
            holders = [child for child in node.children if isinstance(child, Parkable)]
            if not holders:
                return
            for full in holders[:-1]:
                if full.display and not full.parked:
                    full.parked = True
                    _park_within(full)
            node = holders[-1]


def _park_within(widget: Widget) -> None:
    """Park every shelf and group under `widget` (shown ones)."""
    for child in widget.children:
        if isinstance(child, Parkable) and child.display:
            child.parked = True
            _park_within(child)


def unpark_near(arrangement: DockArrangeResult, scroll_y: float, size: Size) -> None:
    """Unpark the answers `arrangement` (the chat's, at `size`) places near where the view will
    be: at the bottom if it follows the chat, else where it was (`scroll_y`, as far down as the
    chat now goes). Their children are then arranged, in the same layout, and of those their
    shelves and groups near that place are unparked (`Parkable.arrange`)."""
    bottom = max(0, arrangement.total_region.bottom - size.height)
    windows = [
        Region(0, top, size.width, size.height) for top in {bottom, min(round(scroll_y), bottom)}
    ]
    _unpark_near(arrangement, windows)


def _unpark_near(arrangement: DockArrangeResult, windows: list[Region]) -> None:
    """Unpark what `arrangement` places near `windows` (in its space), and tell each parkable
    it places where those of `windows` near it are, in its own content's space."""
    for placement in arrangement.placements:
        child = placement.widget
        if not isinstance(child, Parkable):
            continue
        region = placement.region
        near = [window for window in windows if _near(region, window)]
        if child.parked:
            child.parked = not near
        gutter = child.styles.gutter
        child._windows = [
            window.translate((-region.x - gutter.left, -region.y - gutter.top)) for window in near
        ]


def _near(region: Region, window: Region) -> bool:
    """Within a view's height of `window` (the view, in the chat's virtual space)."""
    return region.overlaps(window.grow((window.height, 0, window.height, 0)))


def content_height(widget: Widget, container: Size, width: int) -> int | None:
    """The height of `widget`'s content at `width`, summed from its segments' heights (as the
    layout gets them); None when a child could make the layout's figure differ (a gutter, a
    margin, a size of its own, another layout, something not a segment)."""
    total = 0
    for child in widget.children:
        if not child.display:
            continue
        styles = child.styles
        if (
            styles.margin != NULL_SPACING
            or styles.gutter != NULL_SPACING
            or styles.width is not None
            or styles.min_height is not None
            or styles.max_height is not None
            or styles.is_docked
            or styles.overlay == "screen"
        ):
            return None
        if isinstance(child, MarkdownSegment):
            total += child.get_content_height(container, container, width)
            continue
        if styles.height is None or not styles.height.is_auto or child.layout.name != "vertical":
            return None
        if isinstance(child, Parkable):
            height = child.summed_height(container, width)
        else:
            height = content_height(child, container, width)
        if height is None:
            return None
        total += height
    return total
