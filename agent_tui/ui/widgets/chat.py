"""The chat pane: user prompts, streamed assistant answers, notices.

The UI's cost follows the number of widgets on screen, so:
- the live answer streams into a Textual `Markdown` through `MarkdownStream`; when its live part
  grows past a size, the finished head (up to a blank line outside any code fence) is frozen into
  one static widget and streaming continues in a fresh, small `Markdown` — so streaming stays
  linear however long the answer gets;
- a finished answer collapses into a single widget (a `Static` of Rich renderables);
- only the newest `max_messages` messages stay mounted; older ones are pruned from the screen (the
  conversation itself keeps them).
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

if TYPE_CHECKING:
    from textual.widgets import Markdown

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})", re.M)
#: live markdown bigger than this (characters) is split at the next safe point
SEGMENT_CHARS = 6000


def _safe_split(text: str) -> int:
    """The offset of the last blank line outside a code fence (0 when there is none)."""
    fence_open = False
    best = 0
    pos = 0
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            fence_open = not fence_open
        pos += len(line)
        if not fence_open and line.strip() == "" and pos < len(text):
            best = pos
    return best


def render_markdown(text: str) -> RenderableType:
    from rich.markdown import Markdown as RichMarkdown  # markdown-it is not needed at startup

    # hyperlinks=False prints each URL after its text: a person sees where a cited source points.
    return RichMarkdown(text, code_theme="monokai", hyperlinks=False)


class UserMessage(Static):
    def __init__(self, text: str) -> None:
        # Prompts are the person's own words, but shown literally all the same.
        super().__init__(Text(text), classes="message user")


class NoticeMessage(Static):
    def __init__(self, text: str, level: str = "info") -> None:
        super().__init__(Text(text), classes=f"message notice {level}")


class AssistantMessage(Widget):
    """One answer: streams while live, then becomes one widget."""

    def __init__(self) -> None:
        super().__init__(classes="message assistant")
        self._frozen: list[str] = []  # finished segments' markdown
        self._live_text: list[str] = []
        self._live_len = 0
        self._pending: list[str] = []
        self._wake = asyncio.Event()
        self._markdown: Markdown | None = None
        self._pump: asyncio.Task[None] | None = None
        self._done = False
        self.incomplete = False

    def compose(self):  # type: ignore[override]
        from textual.widgets import Markdown

        self._markdown = Markdown(classes="live")
        yield self._markdown

    def on_mount(self) -> None:
        self._pump = asyncio.create_task(self._run())

    @property
    def text(self) -> str:
        return "".join(self._frozen) + "".join(self._live_text) + "".join(self._pending)

    def write(self, fragment: str) -> None:
        """Queue a fragment (called synchronously from the event listener)."""
        if fragment and not self._done:
            self._pending.append(fragment)
            self._wake.set()

    async def _run(self) -> None:
        from textual.widgets import Markdown

        assert self._markdown is not None
        stream = Markdown.get_stream(self._markdown)
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                if not self._pending:
                    if self._done:
                        break
                    continue
                chunk = "".join(self._pending)
                self._pending.clear()
                self._live_text.append(chunk)
                self._live_len += len(chunk)
                await stream.write(chunk)
                if self._live_len > SEGMENT_CHARS:
                    stream = await self._roll_segment(stream)
                if self._done and not self._pending:
                    break
        finally:
            await stream.stop()

    async def _roll_segment(self, stream):  # type: ignore[no-untyped-def]
        live = "".join(self._live_text)
        cut = _safe_split(live)
        if cut == 0:
            return stream
        await stream.stop()
        head, tail = live[:cut], live[cut:]
        self._frozen.append(head)
        assert self._markdown is not None
        await self.mount(Static(render_markdown(head), classes="segment"), before=self._markdown)
        await self._markdown.update(tail)
        self._live_text = [tail]
        self._live_len = len(tail)
        return self._markdown.get_stream(self._markdown)

    async def finish(self, incomplete: bool = False) -> None:
        """Stop streaming and collapse into a single static widget."""
        self.incomplete = incomplete
        self._done = True
        self._wake.set()
        if self._pump is not None:
            await self._pump
        text = self.text
        parts: list[RenderableType] = [render_markdown(text)] if text.strip() else []
        if incomplete:
            parts.append(Text("⚠ incomplete: the answer was cut off", style="bold yellow"))
        await self.remove_children()
        if parts:
            await self.mount(Static(Group(*parts), classes="final"))
        else:
            self.display = False


class ChatView(VerticalScroll):
    """The scrolling list of messages, pruned to the newest `max_messages`.

    Anchored to the bottom: it follows new content as it streams in until the person scrolls up,
    and follows again once they scroll back down.
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
