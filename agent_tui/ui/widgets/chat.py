"""The chat pane: user prompts, streamed assistant answers, notices.

What a frame costs follows the number of widgets on screen and how much of them must be laid out
and rendered again (measured in `benchmarks/`, see BENCHMARKS.md), so:
- an answer is a few `MarkdownSegment`s (Rich `Markdown` painted once into lines), never a tree of
  one widget per markdown block;
- while it streams, only the block in progress (the *live* part) is re-rendered, at most once per
  `LIVE_INTERVAL` however many deltas arrived; complete blocks (the *settled* part) are rendered
  when one completes; past `SEGMENT_CHARS` they are frozen into a segment rendered once; so each
  update renders little and streaming stays linear however long the answer gets;
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
from collections.abc import Callable
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets import Static

from agent_tui.ui.patches import render_caches
from agent_tui.ui.widgets.markdown_split import _SplitScanner

#: markdown beyond this many characters (since the last frozen segment) is frozen at a safe point
SEGMENT_CHARS = 2000
#: the live part is re-rendered at most this often (seconds); deltas in between are coalesced
LIVE_INTERVAL = 1 / 15
#: messages (prompts, answers, tool blocks, notices) kept mounted. Each one's widgets lengthen
#: every full garbage collection, so a session's memory and pauses level off once this many are
#: mounted (about 30 plain turns); older turns page back in when scrolled to (`EarlierMessages`).
MAX_MESSAGES = 60


def render_markdown(text: str) -> RenderableType:
    from rich.markdown import Markdown as RichMarkdown  # markdown-it is not needed at startup

    # hyperlinks=False prints each URL after its text: a person sees where a cited source points.
    return RichMarkdown(text, code_theme="monokai", hyperlinks=False)


class MarkdownSegment(Widget):
    """A piece of an answer's markdown, rendered by Rich once per width and kept as lines.

    A `Static` would render its renderable twice per change (once to measure its height, once to
    paint) and keep the parsed Markdown (thousands of tokens) alive; this keeps the source text and
    the painted lines only, and measuring its height is free.
    """

    DEFAULT_CSS = "MarkdownSegment { height: auto; }"

    def __init__(
        self,
        markdown: str = "",
        *,
        gap: bool = False,
        note: RenderableType | None = None,
        classes: str = "",
        trim: tuple[bool, bool] = (False, False),
    ) -> None:
        super().__init__(classes=classes)
        self.markdown = markdown
        self._gap = gap  # a blank line first: the one Rich puts between blocks of one document
        self._note = note
        #: (first, last): leave out the first / last painted line, the padding of a code block
        #: cut in two (see `AssistantMessage._split_fence`)
        self._trim = trim
        # Lines by (width, style, selection). Two widths are kept: a layout measures with and
        # without the vertical scrollbar, and must not re-render every segment each time.
        self._renders: dict[tuple[Any, ...], list[Strip]] = {}
        #: heights by width, kept when the lines are dropped (`drop_lines`): a layout of the
        #: chat measures every segment, and must not render the ones far off screen to do it
        self._heights: dict[int, int] = {}
        #: lines dropped far off screen: a height at a new width is estimated, not rendered
        self._dropped = False
        self._estimated: set[int] = set()

    def drop_lines(self) -> None:
        """Forget the painted lines (far off screen); they are painted again when needed."""
        self._renders.clear()
        self._dropped = True

    def update(
        self,
        markdown: str,
        *,
        gap: bool = False,
        note: RenderableType | None = None,
        trim: tuple[bool, bool] = (False, False),
    ) -> None:
        if (markdown, gap, note, trim) == (self.markdown, self._gap, self._note, self._trim):
            return
        self.markdown, self._gap, self._note, self._trim = markdown, gap, note, trim
        height = len(next(iter(self._renders.values()), ()))
        self._renders.clear()
        self._heights.clear()
        self._estimated.clear()
        self._dropped = False
        width = self.size.width
        if width and self.is_mounted and len(self._render_at(width)) == height:
            # Most deltas don't add a line: repaint only, so the screen needn't be laid out
            # again (a layout also repaints every line that moves).
            self.refresh()
        else:
            self.refresh(layout=True)

    def _render_at(self, width: int) -> list[Strip]:
        key = (width, self.visual_style, self.text_selection)
        lines = self._renders.get(key)
        if lines is None:
            parts = [render_markdown(self.markdown)] if self.markdown.strip() else []
            if self._note is not None:
                parts.append(self._note)
            lines = []
            if parts:
                visual = visualize(self, Group(*parts))
                lines = Visual.to_strips(self, visual, width, None, self.visual_style)
                first, last = self._trim
                lines = lines[int(first) : len(lines) - int(last)]
                if self._gap:
                    lines.insert(0, Strip.blank(width, self.visual_style.rich_style))
            if len(self._renders) >= 2:
                del self._renders[next(iter(self._renders))]
            self._renders[key] = lines
            if width in self._estimated:  # painted at last: lay out again if it was off
                self._estimated.discard(width)
                if self._heights.get(width) != len(lines):
                    self.call_after_refresh(self.refresh, layout=True)
            self._heights[width] = len(lines)
        return lines

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        height = self._heights.get(width)
        if height is None and self._dropped and self._heights:
            # Far off screen after a resize: scale a known height instead of rendering every
            # old answer at the new width (over a second with a long session on screen); it
            # is rendered, and laid out again if need be, when it is scrolled to.
            known, lines = min(self._heights.items(), key=lambda item: abs(item[0] - width))
            height = self._heights[width] = max(1, round(lines * known / max(1, width)))
            self._estimated.add(width)
        return len(self._render_at(width)) if height is None else height

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        lines = self._render_at(width)
        return lines[y] if y < len(lines) else Strip.blank(width, self.visual_style.rich_style)


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


class AssistantMessage(Widget):
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
        self._settled_view = MarkdownSegment(classes="settled")
        self._live_view = MarkdownSegment(classes="live")
        self._pump: asyncio.Task[None] | None = None
        self._done = False
        self.incomplete = False

    def compose(self) -> ComposeResult:
        yield self._settled_view
        yield self._live_view

    def on_mount(self) -> None:
        self._pump = asyncio.create_task(self._run())

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
        if fragment and not self._done:
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
                self._settled_view.update(settled, **self._lead(True, bool(self._frozen)))
                live = self._lead(not settled, bool(self._frozen or settled))
                self._live_view.update(self._open[cut:], **live)
            if self._done and not self._pending:
                break
            # Coalesce: whatever arrives meanwhile is rendered together at the next wake.
            await asyncio.sleep(LIVE_INTERVAL)

    async def _take_pending(self) -> None:
        self._open += "".join(self._pending)
        self._pending.clear()
        self._scanner.feed(self._open)
        if self.is_mounted:
            await self._freeze()

    async def _freeze(self) -> None:
        """Move the head of `_open` into frozen segments while it is longer than a segment."""
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
            segments.append(MarkdownSegment(head, classes="segment", **lead))
            self._frozen.append(head[len(self._reopened) :])
            self._reopened = ""
        if segments:
            await self.mount_all(segments, before=self._settled_view)

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
        self._done = True
        self._wake.set()
        if self._pump is not None:
            await self._pump
        if self._pending:  # written and finished before the pump first ran
            await self._take_pending()
        note = None
        if incomplete:
            note = Text("⚠ incomplete: the answer was cut off", style="bold yellow")
        await self._settled_view.remove()
        release_render_caches([self._settled_view])
        if self._open.strip() or note is not None:
            self._live_view.update(self._open, note=note, **self._lead(True, bool(self._frozen)))
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


class ChatView(VerticalScroll):
    """The scrolling list of messages, pruned to the newest `max_messages`.

    Anchored to the bottom: it follows new content as it streams in until the person scrolls up,
    and follows again once they scroll back down (the compositor does it, so following a stream
    costs nothing per delta).
    """

    def __init__(self, max_messages: int = MAX_MESSAGES, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_messages = max_messages
        #: a row kept above the messages (the "earlier messages" one): pruning leaves it
        self.header: Widget | None = None
        #: told the conversation index of the prompt a prune cut at (None: prune anywhere)
        self.on_pruned: Callable[[int], None] | None = None

    def on_mount(self) -> None:
        self.anchor()

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
    (see `patches/render_caches.py`)."""
    for widget in widgets:
        drop_painted_lines(widget)
    render_caches.forget_removed()
