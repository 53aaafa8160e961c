"""The chat pane: user prompts, streamed assistant answers, notices.

What a frame costs follows the number of widgets on screen and how much of them must be laid out
and rendered again (measured in `benchmarks/`, see BENCHMARKS.md), so:
- a streaming answer is a few `MarkdownSegment`s (Rich `Markdown` painted once into lines), never
  a tree of one widget per markdown block; the *live* tail is re-rendered at most once per
  `LIVE_INTERVAL`, however many deltas arrived;
- when the live tail grows past `SEGMENT_CHARS`, its head up to a safe point (a blank line outside
  code fences, before an unindented line) is frozen into its own segment, rendered once; so each
  frame renders a bounded amount and streaming stays linear however long the answer gets;
- finishing only turns the live tail into the last frozen segment: a 200 KB answer is never
  re-rendered as a whole (that alone would hold the event loop for over a second);
- the view is anchored to the bottom, so following a stream costs nothing per delta;
- only the newest `max_messages` messages stay mounted; older ones are pruned from the screen (the
  conversation itself keeps them).
The live tail is rendered by the same Rich `Markdown` as the finished answer, so an answer doesn't
change its look (or its height) when it finishes.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets import Static

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
#: live markdown longer than this (characters) is frozen up to its last safe point
SEGMENT_CHARS = 2000
#: the live tail is re-rendered at most this often (seconds); deltas in between are coalesced
LIVE_INTERVAL = 1 / 30


class _SplitScanner:
    """Finds safe split points in growing markdown, scanning each line once.

    A split point is the start of an unindented, non-blank line that follows a blank line, all
    outside any code fence: cutting there never breaks a fence, a table, a paragraph or a list
    item's indented continuation (a later ordered list keeps its numbers: Markdown's `start`).
    """

    def __init__(self) -> None:
        self.points: list[int] = []
        self._pos = 0  # where the first line not yet scanned starts
        self._fence: str | None = None  # the opening marker of the fence we are in
        self._after_blank = False

    def feed(self, text: str) -> None:
        """Scan the complete lines of `text` (the whole buffer) not scanned yet."""
        pos = self._pos
        while True:
            end = text.find("\n", pos)
            if end < 0:
                break
            line = text[pos:end]
            if self._fence is not None:
                closing = line.strip()
                if closing and closing[0] == self._fence[0] and set(closing) == {self._fence[0]}:
                    self._fence = None if len(closing) >= len(self._fence) else self._fence
            elif not line.strip():
                self._after_blank = True
            else:
                if self._after_blank and line[0] not in " \t":
                    self.points.append(pos)
                self._after_blank = False
                opening = _FENCE.match(line)
                if opening:
                    self._fence = opening.group(1)
            pos = end + 1
        self._pos = pos

    def cut(self, limit: int) -> int:
        """The furthest split point at or before `limit` (else the first one; 0 when none), and
        forget the points before it: the caller drops that many characters from the buffer."""
        below = [p for p in self.points if p <= limit]
        best = below[-1] if below else (self.points[0] if self.points else 0)
        if best:
            self.points = [p - best for p in self.points if p > best]
            self._pos -= best
        return best


def _safe_split(text: str) -> int:
    """The offset of the last safe split point of `text` outside code fences (0 when none)."""
    scanner = _SplitScanner()
    scanner.feed(text)
    return scanner.points[-1] if scanner.points else 0


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
        self, markdown: str = "", *, note: RenderableType | None = None, classes: str = ""
    ) -> None:
        super().__init__(classes=classes)
        self.markdown = markdown
        self._note = note
        self._key: tuple[Any, ...] | None = None
        self._lines: list[Strip] = []

    def update(self, markdown: str, note: RenderableType | None = None) -> None:
        self.markdown, self._note = markdown, note
        self._key = None
        self.refresh(layout=True)

    def _render_at(self, width: int) -> list[Strip]:
        key = (width, self.visual_style, self.text_selection)
        if key != self._key:
            parts = [render_markdown(self.markdown)] if self.markdown.strip() else []
            if self._note is not None:
                parts.append(self._note)
            visual = visualize(self, Group(*parts))
            self._lines = Visual.to_strips(self, visual, width, None, self.visual_style)
            self._key = key
        return self._lines

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        return len(self._render_at(width))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        lines = self._render_at(width)
        return lines[y] if y < len(lines) else Strip.blank(width, self.visual_style.rich_style)


class UserMessage(Static):
    def __init__(self, text: str) -> None:
        # Prompts are the person's own words, but shown literally all the same.
        super().__init__(Text(text), classes="message user")


class NoticeMessage(Static):
    def __init__(self, text: str, level: str = "info") -> None:
        super().__init__(Text(text), classes=f"message notice {level}")


class AssistantMessage(Widget):
    """One answer: frozen segments plus a live tail while streaming, then only frozen segments."""

    def __init__(self) -> None:
        super().__init__(classes="message assistant")
        self._frozen: list[str] = []  # finished segments' markdown
        self._live = ""  # the markdown after the last frozen segment
        self._pending: list[str] = []
        self._scanner = _SplitScanner()
        self._wake = asyncio.Event()
        self._live_view = MarkdownSegment(classes="live")
        self._pump: asyncio.Task[None] | None = None
        self._done = False
        self.incomplete = False

    def compose(self) -> ComposeResult:
        yield self._live_view

    def on_mount(self) -> None:
        self._pump = asyncio.create_task(self._run())

    @property
    def text(self) -> str:
        return "".join(self._frozen) + self._live + "".join(self._pending)

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
                self._live += "".join(self._pending)
                self._pending.clear()
                self._scanner.feed(self._live)
                await self._freeze()
                self._live_view.update(self._live)
            if self._done and not self._pending:
                break
            # Coalesce: whatever arrives meanwhile is rendered together at the next wake.
            await asyncio.sleep(LIVE_INTERVAL)

    async def _freeze(self) -> None:
        """Move the live tail's head into frozen segments while it is longer than a segment."""
        segments: list[MarkdownSegment] = []
        while len(self._live) > SEGMENT_CHARS:
            cut = self._scanner.cut(SEGMENT_CHARS)
            if not cut:
                break  # one long block (a big code fence): it stays live until it ends
            head, self._live = self._live[:cut], self._live[cut:]
            self._frozen.append(head)
            segments.append(MarkdownSegment(head, classes="segment"))
        if segments:
            await self.mount_all(segments, before=self._live_view)

    async def finish(self, incomplete: bool = False) -> None:
        """Stop streaming; the live tail becomes the last segment (nothing else is re-rendered)."""
        self.incomplete = incomplete
        self._done = True
        self._wake.set()
        if self._pump is not None:
            await self._pump
        if self._pending:  # written and finished before the pump first ran
            self._live += "".join(self._pending)
            self._pending.clear()
            self._scanner.feed(self._live)
            if self.is_mounted:
                await self._freeze()
        note = (
            Text("⚠ incomplete: the answer was cut off", style="bold yellow")
            if incomplete
            else None
        )
        if self._live.strip() or note is not None:
            self._live_view.update(self._live, note)
            self._live_view.set_classes("segment final")
        elif self._frozen:
            await self._live_view.remove()
            self.query(MarkdownSegment).last().add_class("final")
        else:
            self.display = False


class ChatView(VerticalScroll):
    """The scrolling list of messages, pruned to the newest `max_messages`.

    Anchored to the bottom: it follows new content as it streams in until the person scrolls up,
    and follows again once they scroll back down (the compositor does it, so following a stream
    costs nothing per delta).
    """

    def __init__(self, max_messages: int = 200, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.max_messages = max_messages

    def on_mount(self) -> None:
        self.anchor()

    async def add(self, widget: Widget) -> Widget:
        await self.mount(widget)
        await self._prune()
        return widget

    def append(self, widget: Widget) -> None:
        """Mount from synchronous code (event listeners); prunes old messages soon after."""
        self.mount(widget)
        if len(self.children) >= self.max_messages:
            self.call_after_refresh(self._prune)

    async def _prune(self) -> None:
        excess = len(self.children) - self.max_messages
        if excess > 0:
            await self.remove_children(list(self.children)[:excess])

    def follow(self) -> None:
        """Follow new content again if the person, having scrolled up, is back at the bottom."""
        if self._anchor_released and self.is_vertical_scroll_end:
            self.anchor()
