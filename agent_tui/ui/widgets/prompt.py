r"""The prompt box: Enter sends, Shift+Enter, Ctrl+J or `\` then Enter starts a new line,
Up/Down on the first or last line walk the prompt history, Tab completes (and leaves only an
empty prompt). Above it, the bars for queued prompts and for the commands or files a half-typed
`/…` or `@…` may mean."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar

from rich.text import Text
from textual import events
from textual.css.query import NoMatches
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static, TextArea

from agent_tui.text import one_line

if TYPE_CHECKING:
    from textual.app import App

    from agent_tui.slash_commands import SlashCommand

NEWLINE_KEYS = ("shift+enter", "ctrl+j")
#: a paste longer than this (lines, or characters) shows folded as "[pasted N lines]"
FOLD_LINES = 10
FOLD_CHARS = 1_000
#: suggestions shown under a half-typed command
MAX_HINTS = 8


class PromptInput(TextArea):
    @dataclass
    class Submitted(Message):
        """Enter sent a prompt: `text`, with folded pastes put back whole."""

        text: str

    class TabPressed(Message):
        """Tab in a half-typed `/command` or `@file`: the app completes it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(soft_wrap=True, tab_behavior="focus", **kwargs)
        self.prompts: list[str] = []
        self._history_at: int | None = None
        #: long pastes folded in the box: placeholder -> the text it stands for (sent whole)
        self.pastes: dict[str, str] = {}
        #: when a key was last typed here (time.monotonic; None: not yet)
        self.typed_at: float | None = None

    async def _on_paste(self, event: events.Paste) -> None:
        """A long paste shows as one line, "[pasted 240 lines]", and is sent whole."""
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.count("\n") + (not text.endswith("\n"))
        if self.read_only or (lines <= FOLD_LINES and len(text) <= FOLD_CHARS):
            return  # TextArea's own handler (Textual calls it next) inserts it as it is
        event.stop()
        event.prevent_default()
        what = f"{lines} lines" if lines > 1 else f"{len(text):,} characters"
        placeholder, n = f"[pasted {what}]", 1
        while placeholder in self.pastes:
            n += 1
            placeholder = f"[pasted {what} #{n}]"
        self.pastes[placeholder] = text
        self.insert(placeholder)

    def keep_in_history(self) -> None:
        """Clear the box, its text kept as the newest history entry (Up brings it back)."""
        self.prompts.append(self.unfolded(self.text))
        self.pastes = {}
        self._history_at = None
        self.clear()

    def _continued_line(self) -> bool:
        """A backslash right before the cursor at Enter: it becomes a new line (Claude Code's
        habit in terminals where Shift+Enter can't be told from Enter)."""
        row, column = self.cursor_location
        line = self.document.get_line(row)
        if column == 0 or line[column - 1] != "\\":
            return False
        self.delete((row, column - 1), (row, column))
        self.insert("\n")
        return True

    def unfolded(self, text: str) -> str:
        """`text` with each paste placeholder still in it replaced by what was pasted."""
        for placeholder, pasted in self.pastes.items():
            text = text.replace(placeholder, pasted)
        return text

    async def _on_key(self, event: events.Key) -> None:
        self.typed_at = time.monotonic()  # an approval dialog appearing now lets typing go on
        if event.key == "enter" and self._continued_line():
            event.stop()  # `\` then Enter: a new line, as in Claude Code
            event.prevent_default()
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            text = self.unfolded(self.text)
            self.pastes = {}
            if text.strip():
                self.prompts.append(text)
                self._history_at = None
                self.clear()
                self.post_message(self.Submitted(text))
            return
        if event.key == "tab" and self.text:
            # A half-typed `/command` or `@file` is completed; otherwise Tab keeps the focus
            # here, so what is typed next is not lost (it moves focus from an empty prompt).
            event.stop()
            event.prevent_default()
            if self._completing():
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


_Bar = TypeVar("_Bar", bound="PromptBar")


class PromptBar(Static):
    """A bar above the prompt box, hidden while it has nothing to show. It is not part of the
    first frame: `of` mounts it the first time it is needed (two hidden bars cost ~4 ms of the
    first frame's styling and layout, see BENCHMARKS.md)."""

    #: the bars' ids, top to bottom: whichever is mounted first, they stack in this order
    STACK: ClassVar[tuple[str, ...]] = ("queued", "slash-hints")
    BAR_ID: ClassVar[str]

    def __init__(self) -> None:
        super().__init__("", id=self.BAR_ID)
        self.display = False

    @classmethod
    def find(cls, app: App[Any]) -> Self | None:
        """The bar, if it has been needed yet. Looked up by id beside the prompt box: a query
        of the app that finds nothing walks every widget of the chat, and the slash hints are
        looked for at every key typed."""
        prompt = app.query_one_optional(PromptInput)
        holder = None if prompt is None else prompt.parent
        return _child(holder, cls.BAR_ID, cls) if isinstance(holder, Widget) else None

    @classmethod
    def of(cls, app: App[Any]) -> Self:
        """The bar, mounted above the prompt box (and below the bars stacked under it) now if
        this is the first time it is wanted."""
        bar = cls.find(app)
        if bar is None:
            prompt = app.query_one(PromptInput)
            holder = prompt.parent
            assert isinstance(holder, Widget), "the prompt box is mounted"
            below = cls.STACK[cls.STACK.index(cls.BAR_ID) + 1 :]
            mounted = (_child(holder, id, PromptBar) for id in below)
            before = next((w for w in mounted if w is not None), prompt)
            bar = cls()
            holder.mount(bar, before=before)
        return bar


def _child(holder: Widget, id: str, kind: type[_Bar]) -> _Bar | None:
    try:
        return holder.get_child_by_id(id, kind)
    except NoMatches:
        return None


class QueuedPrompts(PromptBar):
    """Prompts sent while a turn is starting or running, shown above the prompt box (below the
    answer in progress) until each one's turn comes."""

    BAR_ID = "queued"

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def show(self, texts: list[str]) -> None:
        self.texts = list(texts)
        self.display = bool(texts)
        lines = Text()
        for n, text in enumerate(texts):
            lines.append(("\n" if n else "") + "queued: ", style="italic")
            lines.append(one_line(text, 200, first_line=True))
        self.update(lines)


class SlashHints(PromptBar):
    """The commands a half-typed `/…` may mean, or the files a half-typed `@…` may name."""

    BAR_ID = "slash-hints"

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[SlashCommand] = []
        self.files: list[str] = []

    def show_files(self, paths: list[str]) -> None:
        self.shown = []
        self.files = paths[:MAX_HINTS]
        self.display = bool(self.files)
        text = Text()
        for n, path in enumerate(self.files):
            text.append(("\n" if n else "") + f"@{path}", style="bold" if n == 0 else "")
        self.update(text)

    def show(self, commands: list[SlashCommand]) -> None:
        self.files = []
        self.shown = commands[:MAX_HINTS]
        self.display = bool(self.shown)
        text = Text()
        for n, command in enumerate(self.shown):
            if n:
                text.append("\n")
            text.append(f"/{command.name}", style="bold")
            if command.args:
                text.append(f" {command.args}", style="italic")
            text.append(f"  {command.help}", style="dim")
            if command.source != "built-in":
                text.append(f"  ({command.source})", style="dim italic")
        self.update(text)
