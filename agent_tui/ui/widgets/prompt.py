"""The prompt box: Enter sends, Shift+Enter or Ctrl+J starts a new line, Up/Down on the first or
last line walk the prompt history."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static, TextArea

from agent_tui.text import one_line

NEWLINE_KEYS = ("shift+enter", "ctrl+j")


class PromptInput(TextArea):
    @dataclass
    class Submitted(Message):
        text: str

    class TabPressed(Message):
        """Tab in a half-typed `/command` or `@file`: the app completes it."""

    def __init__(self, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(soft_wrap=True, tab_behavior="focus", **kwargs)
        self.prompts: list[str] = []
        self._history_at: int | None = None

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            text = self.text
            if text.strip():
                self.prompts.append(text)
                self._history_at = None
                self.clear()
                self.post_message(self.Submitted(text))
            return
        if event.key == "tab" and self._completing():
            event.stop()
            event.prevent_default()
            self.post_message(self.TabPressed())
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if event.key == "up" and self.cursor_location[0] == 0 and self.prompts:
            event.stop()
            event.prevent_default()
            self._walk(-1)
            return
        if (
            event.key == "down"
            and self._history_at is not None
            and (self.cursor_location[0] == self.document.line_count - 1)
        ):
            event.stop()
            event.prevent_default()
            self._walk(1)
            return
        await super()._on_key(event)

    def _completing(self) -> bool:
        """A half-typed `/command` or `@file`: Tab completes it instead of moving focus."""
        from agent_tui.tools.mentions import typing_mention

        text = self.text
        command = text.startswith("/") and " " not in text and "\n" not in text
        return command or typing_mention(text) is not None

    def _walk(self, step: int) -> None:
        at = len(self.prompts) if self._history_at is None else self._history_at
        at = max(0, min(len(self.prompts), at + step))
        self._history_at = None if at == len(self.prompts) else at
        self.text = "" if self._history_at is None else self.prompts[at]
        self.move_cursor(self.document.end)


class QueuedPrompts(Static):
    """Prompts sent while a turn is starting or running, shown above the prompt box (below the
    answer in progress) until each one's turn comes."""

    def __init__(self, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__("", **kwargs)
        self.display = False
        self.texts: list[str] = []

    def show(self, texts: list[str]) -> None:
        self.texts = list(texts)
        self.display = bool(texts)
        lines = Text()
        for n, text in enumerate(texts):
            lines.append(("\n" if n else "") + "queued: ", style="italic")
            lines.append(one_line(text, 200, first_line=True))
        self.update(lines)
