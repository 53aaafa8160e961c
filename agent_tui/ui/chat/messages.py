"""The chat pane: user prompts, streamed assistant answers, notices.

What a frame costs follows the number of widgets on screen and how much of them must be laid out
and rendered again (measured in `benchmarks/`, see BENCHMARKS.md), so:
- an answer is a few `MarkdownSegment`s (Rich `Markdown` painted once into lines), never a tree of
  one widget per markdown block;
- while it streams, only the block in progress (the *live* part) is re-rendered, at most once per
  `LIVE_INTERVAL` however many deltas arrived; a complete block (in the *settled* part) is
  rendered once, when it completes (`markdown_pieces`); past `SEGMENT_CHARS` the settled blocks
  are frozen into a segment painted from those lines; so each update renders little;
- a fast stream is taken `INTAKE_CHARS` a step, with the screen's paint between steps: no step,
  and no layout, renders much however fast the text comes (no callback over 30 ms of CPU,
  benchmarks/bench_callbacks.py); each step renders at the width the answer is (or, before its
  first layout, will be) laid out at, so layouts find its lines measured; no collection starts
  inside a step's rendering (`collect_after`);
- frozen segments sit in groups of `GROUP_SEGMENTS`, and groups on shelves of `SHELF_GROUPS`: a
  layout while it streams places a few shelves, the groups of the last one and the segments of
  the last group (the full ones far from the view are parked: `chat_parking`), not every segment
  or group, so streaming stays linear however long the answer gets;
- a resize's layout renders no markdown: segments get a height scaled from one known (a height
  at a width already seen is kept); those the new layout shows are rendered before its paint, in
  callbacks of their own, and the screen is laid out again there if one differs from its
  estimate (`speedups/screen_resize_once`: no frame with an estimated height); other width
  changes render only the segments the view showed (`ChatView._mark_in_view`); finished answers
  far from the view are laid out as that height alone, their segments not arranged
  (`chat_parking`);
- pieces are cut only where rendering them apart looks exactly like rendering the whole (see
  `_SplitScanner`): an answer doesn't change its look, or its height, when it finishes;
- finishing re-renders only the unfrozen tail: a 200 KB answer is never rendered as a whole (that
  alone would hold the event loop for over a second);
- the view is anchored to the bottom, so following a stream costs nothing per delta;
- only the newest `max_messages` messages stay mounted; older ones are pruned from the screen (the
  conversation itself keeps them).
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Static

from agent_tui.speedups.collect_after import collections_after
from agent_tui.ui.chat.markdown_pieces import PieceCache, reference_definitions, render_markdown
from agent_tui.ui.chat.markdown_segment import MarkdownSegment
from agent_tui.ui.chat.markdown_split import _SplitScanner
from agent_tui.ui.chat.parking import Parkable, ParkableAnswer
from agent_tui.ui.chat.view import (
    MAX_MESSAGES,
    ChatView,
    drop_painted_lines,
    release_render_caches,
)

__all__ = [
    "MAX_MESSAGES",
    "AssistantMessage",
    "ChatView",
    "MarkdownSegment",
    "NoticeMessage",
    "UserMessage",
    "drop_painted_lines",
    "release_render_caches",
    "render_markdown",
]

#: markdown beyond this many characters (since the last frozen segment) is frozen at a safe point
SEGMENT_CHARS = 2000
#: characters of a stream taken in per step of an answer's pump: a faster stream is painted in
#: several steps (each bounded), with the paint of the screen in between
INTAKE_CHARS = 1000
#: frozen segments per `SegmentGroup`
GROUP_SEGMENTS = 8
#: groups per `SegmentShelf`
SHELF_GROUPS = 4
#: the live part is re-rendered at most this often (seconds); deltas in between are coalesced
LIVE_INTERVAL = 1 / 15


class UserMessage(Static):
    def __init__(self, text: str, turn_index: int | None = None) -> None:
        # Prompts are the person's own words, but shown literally all the same.
        super().__init__(Text(text), classes="message user")
        #: where the prompt is in the conversation: a pruned chat pages back in from there
        self.turn_index = turn_index


class NoticeMessage(Static):
    """Something the app says in the chat (never the person's words): a marker by level."""

    MARKS: ClassVar[dict[str, str]] = {"info": "· ", "warning": "⚠ ", "error": "✗ "}

    def __init__(self, text: str, level: str = "info") -> None:
        super().__init__(Text(self.MARKS.get(level, "") + text), classes=f"message notice {level}")
        self.text = text


class SegmentGroup(Parkable):
    """Some frozen segments of an answer, one after the other (see `_mount_frozen`); parked
    with its answer when far from the view (`chat_parking`)."""

    DEFAULT_CSS = "SegmentGroup { height: auto; layout: vertical; }"


class SegmentShelf(Parkable):
    """Some groups of an answer's frozen segments, one after the other: a layout of a long
    answer places its shelves, not all its groups (each full one far from the view parked)."""

    DEFAULT_CSS = "SegmentShelf { height: auto; layout: vertical; }"


class AssistantMessage(ParkableAnswer):
    """One answer. While it streams: frozen segments (rendered once each), then the *settled*
    part (complete blocks, re-rendered when a block completes), then the *live* part (the block
    in progress, re-rendered at most every `LIVE_INTERVAL`): each update renders little."""

    def __init__(self) -> None:
        super().__init__(classes="message assistant")
        self._frozen: list[str] = []  # finished segments' markdown (as the model wrote it)
        self._open = ""  # the markdown after the last frozen segment: settled + live
        #: the fence line `_open` starts with when a long code block was cut (not the model's)
        self._reopened = ""
        self._pending: list[str] = []
        self._scanner = _SplitScanner()  # split points of `_open`
        self._wake = asyncio.Event()
        #: the settled blocks' lines while it streams: each block renders once
        self._pieces = PieceCache()
        #: the link reference definitions its frozen segments make, for all its views while it
        #: streams (`_define`; once finished, those of the whole text)
        self._references = ""
        self._settled_view = MarkdownSegment(classes="settled", pieces=self._pieces)
        self._live_view = MarkdownSegment(classes="live")
        self._pump: asyncio.Task[None] | None = None
        self._group: SegmentGroup | None = None  # the group frozen segments go into
        self._shelf: SegmentShelf | None = None  # the shelf new groups go onto
        self._ending = False  # `finish` was called: nothing more is written
        self.incomplete = False

    def compose(self) -> ComposeResult:
        yield self._settled_view
        yield self._live_view

    def on_mount(self) -> None:
        self._pump = asyncio.create_task(self._run())

    def on_unmount(self) -> None:
        """Removed while it streams (cleared, pruned, the app closing): its pump stops, so
        nothing is rendered or mounted for a widget no longer on a screen; what was written
        stays in `text`."""
        if self._pump is not None:
            self._pump.cancel()

    @property
    def text(self) -> str:
        open_text = self._open[len(self._reopened) :]
        return "".join(self._frozen) + open_text + "".join(self._pending)

    def _lead(self, starts_open: bool, after: bool) -> dict[str, Any]:
        """How a view that shows text from `_open` begins: after a cut code block, right where
        its first piece ended (no gap, no top padding); otherwise with the usual blank line
        when something (`after`) comes before it."""
        if starts_open and self._reopened:
            return {"gap": False, "trim": (True, False)}
        return {"gap": after}

    def write(self, fragment: str) -> None:
        """Queue a fragment (called synchronously from the event listener)."""
        if fragment and not self._ending:
            self._pending.append(fragment)
            self._wake.set()

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._pending:
                await self._take_pending()
                cut = self._scanner.last
                settled = self._open[:cut]
                width = self._width()
                lead = self._lead(True, bool(self._frozen))
                live = self._lead(not settled, bool(self._frozen or settled))
                with collections_after():  # one due runs after this step's rendering
                    self._settled_view.update(settled, width=width, **lead)
                    self._live_view.update(self._open[cut:], width=width, **live)
            if self._ending and not self._pending:
                break
            if self._pending:  # a backlog (a fast stream): the next step after this paint
                self._wake.set()
                await asyncio.sleep(0)
            else:  # coalesce: whatever arrives meanwhile is rendered together at the next wake
                await asyncio.sleep(LIVE_INTERVAL)

    async def _take_pending(self) -> None:
        """Take up to `INTAKE_CHARS` of what was written (the rest waits for the next step),
        freeze what is long enough, and paint the new segments here: each step of the pump, and
        the layout after it, then renders about that much markdown, however fast it streams."""
        pending = "".join(self._pending)
        self._pending[:] = [pending[INTAKE_CHARS:]] if len(pending) > INTAKE_CHARS else []
        self._open += pending[:INTAKE_CHARS]
        self._scanner.feed(self._open)
        if self.is_mounted:
            await self._freeze(self._width())

    def _width(self) -> int:
        """The width the answer's views are painted at: theirs once laid out; before the
        answer's first layout, the one the chat will give them, so the steps a fast stream
        takes before that layout render at it (not all in the layout)."""
        width = self._settled_view.size.width
        chat = self.parent
        if width or not isinstance(chat, Widget):
            return width
        around = sum(w.styles.gutter.width + w.styles.margin.width for w in (self, self._live_view))
        return max(0, chat.scrollable_content_region.width - around)

    async def _freeze(self, width: int) -> None:
        """Move the head of `_open` into frozen segments while it is longer than a segment;
        they are painted at `width` as they are mounted."""
        segments: list[MarkdownSegment] = []
        while len(self._open) > SEGMENT_CHARS:
            cut = self._scanner.cut(SEGMENT_CHARS)
            if not cut:
                # one long block: a code fence is cut in two, any other block stays live
                piece = self._split_fence()
                if piece is None:
                    break
                segments.append(piece)
                continue
            head, self._open = self._open[:cut], self._open[cut:]
            lead = self._lead(True, bool(self._frozen))
            segments.append(MarkdownSegment(head, classes="segment", pieces=self._pieces, **lead))
            self._frozen.append(head[len(self._reopened) :])
            self._reopened = ""
            self._define(head)
        for segment in segments:
            segment.references = self._references
        await self._mount_frozen(segments, width)

    def _define(self, frozen: str) -> None:
        """The link reference definitions a segment just frozen makes (a block, never cut in
        two), for every view of the answer: a link to one in a segment frozen before or
        written after resolves as it streams, not only once the answer is finished. Rare, so
        the views already shown render again (those out of view when next painted)."""
        found = reference_definitions(frozen)
        if not found:
            return
        self._references = f"{self._references}\n{found}" if self._references else found
        for view in self.query(MarkdownSegment):  # frozen segments, the settled and live views
            view.define(self._references)

    async def _mount_frozen(self, segments: list[MarkdownSegment], width: int) -> None:
        """Mount frozen segments in groups of `GROUP_SEGMENTS`, the groups on shelves of
        `SHELF_GROUPS`: a layout while the answer streams then measures a few shelves, the last
        one's groups (a full one keeps its arrangement) and the open group's segments, not
        every segment or group of a long answer (which made streaming 200 KB take more than
        twice as long as 100 KB). Each is painted at `width` once styled, before the mount is
        awaited: a layout that runs meanwhile finds it measured (its blocks were mostly
        painted), instead of rendering it."""
        while segments:
            group = self._group
            if group is None or len(group.children) >= GROUP_SEGMENTS:
                shelf = self._shelf
                if shelf is None or len(shelf.children) >= SHELF_GROUPS:
                    shelf = self._shelf = SegmentShelf()
                    await self.mount(shelf, before=self._settled_view)
                group = self._group = SegmentGroup()
                await shelf.mount(group)
            room = GROUP_SEGMENTS - len(group.children)
            mounting = group.mount_all(segments[:room])  # styled now, mounted once awaited
            with collections_after():
                for segment in segments[:room] if width else ():
                    segment.paint_ahead(width)
            await mounting
            segments = segments[room:]

    def _split_fence(self) -> MarkdownSegment | None:
        """Freeze the head of a long code block still being written: its complete lines up to
        about a segment's length become a segment of their own, closed by a fence line of ours
        and without its bottom padding; the rest goes on from a fence line of ours, without its
        top padding. Painted one after the other they look like the one block, so a file shown
        whole streams at the cost of its last lines, not of all of it on every update."""
        fence = self._scanner.open_fence
        if fence is None:
            return None
        marker, start = fence
        if not self._open.startswith(marker, start):  # indented (in a list): leave it whole
            return None
        body = self._open.index("\n", start) + 1
        cut = self._open.rfind("\n", body, max(SEGMENT_CHARS, body + 1)) + 1
        if cut <= body:
            cut = self._open.find("\n", body) + 1
        # after a line of code: Rich leaves out a code block's blank lines at its end
        while cut > body and not self._open[self._open.rfind("\n", 0, cut - 1) + 1 : cut].strip():
            cut = self._open.rfind("\n", 0, cut - 1) + 1
        if cut <= body:
            return None  # not one complete line of code yet
        opening = self._open[start:body]
        first = self._lead(True, bool(self._frozen))
        first["trim"] = (first.get("trim", (False, False))[0], True)
        piece = MarkdownSegment(f"{self._open[:cut]}{marker}\n", classes="segment", **first)
        self._frozen.append(self._open[len(self._reopened) : cut])
        self._open, self._reopened = opening + self._open[cut:], opening
        self._scanner = _SplitScanner()
        self._scanner.feed(self._open)
        return piece

    async def finish(self, incomplete: bool = False) -> None:
        """Stop streaming; settled and live become one last segment (frozen ones stay as they
        are: a long answer is never re-rendered as a whole)."""
        self.incomplete = incomplete
        self._ending = True
        self._wake.set()
        if self._pump is not None:
            await asyncio.wait([self._pump])  # (cancelled if it was removed: not an error)
        if not self.is_attached:  # removed while it streamed: nothing to show it on
            self.done.set()
            return
        while self._pending:  # written and finished before the pump first ran
            await self._take_pending()
        note = None
        if incomplete:
            note = Text("⚠ incomplete: the answer was cut off", style="bold yellow")
        await self._settled_view.remove()
        release_render_caches([self._settled_view])
        if self._open.strip() or note is not None:
            self._live_view.pieces = self._pieces  # the settled blocks' lines are rendered
            lead = self._lead(True, bool(self._frozen))
            with collections_after():
                self._live_view.update(self._open, note=note, **lead)
            self._live_view.set_classes("segment final")
        elif self._frozen:
            await self._live_view.remove()
            release_render_caches([self._live_view])
            self._live_view = self.query(MarkdownSegment).last()
            self._live_view.add_class("final")
        else:
            self.display = False
        # a removed view keeps its painted lines: not held for as long as the message lives
        self._settled_view = self._live_view
        # nor the pieces' lines: a finished answer renders its segments whole (at a new width)
        segments = list(self.query(MarkdownSegment))
        for segment in segments:
            segment.pieces = None
        self._pieces.clear()
        if self._frozen:  # links in one segment to what another defines, resolved as the whole
            references = reference_definitions(self.text)
            for segment in segments if references else ():
                segment.define(references)
        self.done.set()  # drawn whole, its last segment final; parked from now on
