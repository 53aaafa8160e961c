"""The hunks of a Write/Edit diff in the approval dialog, each one kept or left out with space
(arrows move between them): only the kept ones are written, and the model is told which were
not. No anchor has this in a terminal UI."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from agent_tui.ui.widgets.diff_view import diff_content

#: per hunk in the dialog; a longer one is cut (the whole hunk is still written or left out)
MAX_HUNK_LINES = 60


class HunkPicker(Vertical):
    def __init__(self, hunks: tuple[str, ...], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.hunks = hunks
        self.kept = [True] * len(hunks)
        self.cursor = 0

    def compose(self) -> ComposeResult:
        for n, text in enumerate(self.hunks):
            yield Static(self._title(n), classes="hunk-title")
            yield Static(diff_content(text, MAX_HUNK_LINES)[0], classes="hunk")

    def on_mount(self) -> None:
        self._refresh()

    def _title(self, n: int) -> Content:
        mark = "[x]" if self.kept[n] else "[ ]"
        state = "write" if self.kept[n] else "leave out"
        pointer = "▶ " if n == self.cursor else "  "
        return Content.assemble(
            (pointer, "bold $text-accent"),
            (mark, "bold"),
            f" hunk {n + 1} of {len(self.hunks)}: {state}",
        )

    def _refresh(self) -> None:
        titles = list(self.query(".hunk-title").results(Static))
        bodies = list(self.query(".hunk").results(Static))
        for n, (title, body) in enumerate(zip(titles, bodies, strict=True)):
            title.update(self._title(n))
            title.set_class(n == self.cursor, "-cursor")
            body.set_class(not self.kept[n], "-left-out")
        if titles:
            titles[self.cursor].scroll_visible(animate=False)

    def move(self, delta: int) -> None:
        self.cursor = max(0, min(len(self.hunks) - 1, self.cursor + delta))
        self._refresh()

    def toggle(self) -> None:
        self.kept[self.cursor] = not self.kept[self.cursor]
        self._refresh()

    @property
    def chosen(self) -> tuple[int, ...] | None:
        """The kept hunks' indexes; None when all are kept (the change as asked)."""
        if all(self.kept):
            return None
        return tuple(n for n, kept in enumerate(self.kept) if kept)
