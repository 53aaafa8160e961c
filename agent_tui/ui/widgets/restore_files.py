"""The files of an undo or rewind preview, each restored or kept as it is with space (arrows move
between them), like the hunks of the approval dialog. Each starts as what is safe: the agent's
own changes are restored, a conflict (a file someone else may have changed) is kept."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from agent_tui.checkpoints.restore import FileRestore, file_diff
from agent_tui.text import visible
from agent_tui.ui.widgets.diff_view import diff_content

#: per file: a longer diff is cut (the whole file is still restored or kept)
MAX_FILE_DIFF_LINES = 120
#: files listed one by one, and files whose diff is shown (a restore of thousands of files, say
#: a dependency folder, still restores them all: the files past the list as the default says)
MAX_LISTED = 200
MAX_DIFFS = 30
_ACTION_STYLE = {
    "restore": "bold $text-accent",
    "delete": "bold $text-error",
    "create": "bold $text-success",
}


def shown_path(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


class RestoreFiles(Vertical):
    def __init__(self, files: list[FileRestore], cwd: Path, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.files = files[:MAX_LISTED]
        self.cwd = cwd
        self.restore = [not f.conflict for f in self.files]
        self.cursor = 0

    def compose(self) -> ComposeResult:
        for n, f in enumerate(self.files):
            yield Static(self._title(n), classes="restore-title")
            if n < MAX_DIFFS:
                shown = shown_path(f.path, self.cwd)
                diff, note = diff_content(
                    file_diff(f.current, f.target, shown), MAX_FILE_DIFF_LINES
                )
                yield Static(diff, classes="restore-diff")
                if note:
                    yield Static(note, classes="restore-note")
        if len(self.files) > MAX_DIFFS:
            more = f"(diffs of {len(self.files) - MAX_DIFFS:,} more files not shown)"
            yield Static(more, classes="restore-note")

    def on_mount(self) -> None:
        self._refresh()

    def _title(self, n: int) -> Content:
        f = self.files[n]
        pointer = "▶ " if n == self.cursor else "  "
        name = visible(shown_path(f.path, self.cwd))
        if self.restore[n]:
            head = Content.assemble(("[x] ", "bold"), (f"{f.action:<8} ", _ACTION_STYLE[f.action]))
        else:
            head = Content.assemble(("[ ] ", "bold"), ("keep     ", "bold $text-warning"))
        parts: list[Content] = [Content.styled(pointer, "bold $text-accent"), head, Content(name)]
        if f.conflict:
            parts.append(Content.styled(f" — conflict: {f.conflict}", "$text-warning"))
        return Content.assemble(*parts)

    def _refresh(self) -> None:
        titles = list(self.query(".restore-title").results(Static))
        for n, title in enumerate(titles):
            title.update(self._title(n))
            title.set_class(n == self.cursor, "-cursor")
            title.set_class(not self.restore[n], "-kept")
        if titles:
            titles[self.cursor].scroll_visible(animate=False)

    def move(self, delta: int) -> None:
        if self.files:
            self.cursor = max(0, min(len(self.files) - 1, self.cursor + delta))
            self._refresh()

    def toggle(self) -> None:
        if self.files:
            self.restore[self.cursor] = not self.restore[self.cursor]
            self._refresh()

    def toggle_all(self) -> None:
        """Every file restored, or (when they all are already) every file kept."""
        everything = not all(self.restore)
        self.restore = [everything] * len(self.files)
        self._refresh()

    def chosen(self, default: frozenset[Path]) -> frozenset[Path]:
        """The files to restore: those ticked here, and past the list what `default` says."""
        listed = {f.path for f in self.files}
        ticked = {f.path for f, on in zip(self.files, self.restore, strict=True) if on}
        return frozenset(ticked | {p for p in default if p not in listed})
