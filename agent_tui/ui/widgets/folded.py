"""`FoldedText`: a collapsed block of secondary text in the chat — the model's thinking while it
streams, a compaction's summary. One line until the person opens it (click, or enter/space
when focused); the text is always shown literally (it is the model's, never markup)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import Static

#: while text streams in, the widget is redrawn at most this often (seconds)
REDRAW_INTERVAL = 1 / 10


class FoldedText(Static, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_or_close", "Open/close", show=False),
        Binding("space", "open_or_close", "Open/close", show=False),
    ]

    def __init__(
        self, title: str, text: str = "", *, live: bool = False, classes: str = ""
    ) -> None:
        super().__init__("", classes=f"message folded {classes}".strip())
        self.title = title
        self._parts = [text] if text else []
        self._chars = len(text)
        self.live = live
        self.expanded = False
        self._scheduled = False
        self._draw()

    @property
    def text(self) -> str:
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def append(self, fragment: str) -> None:
        self._parts.append(fragment)
        self._chars += len(fragment)
        if not self._scheduled:  # many deltas, one redraw
            self._scheduled = True
            self.set_timer(REDRAW_INTERVAL, self._redraw_now)

    def finish(self, title: str | None = None) -> None:
        self.live = False
        if title:
            self.title = title
        self._draw()

    def _redraw_now(self) -> None:
        self._scheduled = False
        self._draw()

    def _header(self) -> str:
        mark = "▾" if self.expanded else "▸"
        size = f"{self._chars:,} characters" if self._chars else "empty"
        dots = "…" if self.live else ""
        return f"{mark} {self.title}{dots} ({size})"

    def _draw(self) -> None:
        header = Text(self._header(), style="italic")
        if self.expanded and self._chars:
            header.append("\n")
            header.append(self.text, style="")
        self.update(header)

    def action_open_or_close(self) -> None:
        self.expanded = not self.expanded
        self._draw()

    def on_click(self) -> None:
        self.action_open_or_close()
