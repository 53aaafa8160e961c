"""The hunks of a Write/Edit diff in the approval dialog, each one kept or left out with space
(arrows move between them): only the kept ones are written, and the model is told which were
not. No anchor has this in a terminal UI."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from agent_tui.ui.widgets.diff_view import diff_content

#: per hunk in the dialog; a longer one is cut (the whole hunk is still written or left out)
MAX_HUNK_LINES = 60


class HunkPicker(Vertical):
    """Hunks of a diff — or the files of a command's change set (`titles`: each file's name and
    why it is asked about; `kept`: which start ticked; `verbs`: what a ticked and an unticked
    one do)."""

    def __init__(
        self,
        hunks: tuple[str, ...],
        *,
        titles: tuple[str, ...] | None = None,
        kept: tuple[bool, ...] | None = None,
        verbs: tuple[str, str] = ("write", "leave out"),
        **kwargs: object,
    ) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.hunks = hunks
        self.titles = titles
        self.kept = list(kept) if kept is not None else [True] * len(hunks)
        self.verbs = verbs
        self.cursor = 0

    def compose(self) -> ComposeResult:
        for n, text in enumerate(self.hunks):
            yield Static(self._title(n), classes="hunk-title")
            yield Static(diff_content(text, MAX_HUNK_LINES)[0], classes="hunk")

    def on_mount(self) -> None:
        self._refresh()
        # the first hunk's start in view, the dialog's top (the path, why it asks) kept above it
        self.call_after_refresh(self.show_cursor, False)

    def _title(self, n: int) -> Content:
        mark = "[x]" if self.kept[n] else "[ ]"
        state = self.verbs[0] if self.kept[n] else self.verbs[1]
        pointer = "▶ " if n == self.cursor else "  "
        if self.titles is not None:
            what = Content(f" {self.titles[n]}: {state}")
        else:
            what = Content(f" hunk {n + 1} of {len(self.hunks)}: {state}")
        return Content.assemble((pointer, "bold $text-accent"), (mark, "bold"), what)

    def _refresh(self) -> None:
        titles = list(self.query(".hunk-title").results(Static))
        bodies = list(self.query(".hunk").results(Static))
        for n, (title, body) in enumerate(zip(titles, bodies, strict=True)):
            title.update(self._title(n))
            title.set_class(n == self.cursor, "-cursor")
            body.set_class(not self.kept[n], "-left-out")

    def show_cursor(self, whole: bool = True) -> None:
        """Scroll the selected hunk into view: the whole of it when it fits (`whole`), else its
        start (its title at the top). Called after each move, and (its start only) when the
        dialog opens, a hunk is toggled or the view's size changes."""
        view = self.parent
        titles = list(self.query(".hunk-title").results(Static))
        bodies = list(self.query(".hunk").results(Static))
        if not isinstance(view, Widget) or not view.allow_vertical_scroll or not titles:
            return
        title, body = titles[self.cursor], bodies[self.cursor]
        # virtual regions (where the scroll offset counts from, not the screen's, which lag a
        # scroll until the next paint): the hunk's in this picker, the picker's in the view
        hunk = title.virtual_region.union(body.virtual_region) if whole else title.virtual_region
        window = view.scrollable_content_region
        if not hunk or not window:
            return  # not laid out yet (the screen's resize, once it is, asks again)
        hunk = hunk.translate(self.virtual_region.offset + self.styles.gutter.top_left)
        view.scroll_to_region(hunk, animate=False, immediate=True, top=hunk.height > window.height)

    def move(self, delta: int) -> None:
        self.cursor = max(0, min(len(self.hunks) - 1, self.cursor + delta))
        self._refresh()
        self.call_after_refresh(self.show_cursor)

    def toggle(self) -> None:
        self.kept[self.cursor] = not self.kept[self.cursor]
        self._refresh()
        self.call_after_refresh(self.show_cursor, False)

    @property
    def chosen(self) -> tuple[int, ...] | None:
        """The kept hunks' indexes; None when all are kept (the change as asked)."""
        if all(self.kept):
            return None
        return tuple(n for n, kept in enumerate(self.kept) if kept)

    @property
    def ticked(self) -> tuple[int, ...]:
        """The kept items' indexes (all of them included)."""
        return tuple(n for n, kept in enumerate(self.kept) if kept)
