"""Undo and rewind, previewed: `RestoreScreen` shows what a restore would do — each file with its
diff, the conflicts it leaves alone, what can't be restored — and `RewindScreen` picks the prompt
to go back to and what to take back (files, conversation or both)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.checkpoints.restore import RestorePlan, file_diff
from agent_tui.text import visible
from agent_tui.ui.widgets.diff_view import diff_content
from agent_tui.ui.widgets.key_hints import key_bar

#: per file in the preview: a longer diff is cut (the whole restore still happens)
MAX_FILE_DIFF_LINES = 120
#: files listed, and files whose diff is shown, in one preview (a restore of thousands of files,
#: say a dependency folder, still restores them all)
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


def plan_summary(plan: RestorePlan, cwd: Path) -> Content:
    """One line per file and per thing that can't be done, for the top of the preview."""
    lines: list[Content] = []
    changes = plan.changes
    for f in changes[:MAX_LISTED]:
        name = visible(shown_path(f.path, cwd))
        if f.conflict:
            lines.append(
                Content.assemble(
                    ("conflict ", "bold $text-warning"), name, f" — {f.conflict}; kept as it is"
                )
            )
        else:
            lines.append(Content.assemble((f"{f.action:<8} ", _ACTION_STYLE[f.action]), name))
    if len(changes) > MAX_LISTED:
        lines.append(Content(f"… and {len(changes) - MAX_LISTED:,} more files"))
    for name in plan.missing:
        lines.append(
            Content.assemble(
                ("missing  ", "bold $text-error"),
                visible(name),
                " — its earlier content was not kept; not restorable",
            )
        )
    for call in plan.unrestorable:
        lines.append(
            Content.assemble(
                ("not restorable ", "bold $text-warning"),
                visible(call),
                " — ran outside git, so what it changed was not captured",
            )
        )
    if not lines:
        lines.append(Content("The files are already as they were: nothing to restore."))
    return Content("\n").join(lines)


class RestoreScreen(ModalScreen[str | None]):
    """Dismisses with "apply" (conflicts kept), "overwrite" (conflicts too) or None."""

    CSS_PATH = "../styles/restore.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "answer('apply')", "Restore"),
        Binding("o", "overwrite", "Overwrite conflicts too"),
        Binding("n,escape", "answer(None)", "Cancel"),
    ]

    def __init__(self, title: str, plan: RestorePlan, cwd: Path) -> None:
        super().__init__()
        self.title_text = title
        self.plan = plan
        self.cwd = cwd

    def compose(self) -> ComposeResult:
        with Vertical(id="restore") as box:
            box.border_title = Content(self.title_text)
            yield Static(plan_summary(self.plan, self.cwd), id="restore-summary")
            with VerticalScroll(id="restore-diffs"):
                changes = self.plan.changes
                for f in changes[:MAX_DIFFS]:
                    shown = shown_path(f.path, self.cwd)
                    diff, note = diff_content(
                        file_diff(f.current, f.target, shown), MAX_FILE_DIFF_LINES
                    )
                    yield Static(diff, classes="restore-diff")
                    if note:
                        yield Static(note, classes="restore-note")
                if len(changes) > MAX_DIFFS:
                    more = f"(diffs of {len(changes) - MAX_DIFFS:,} more files not shown)"
                    yield Static(more, classes="restore-note")
            yield Static(self._keys(), id="restore-keys")

    def _keys(self) -> Content:
        parts = [("y", "restore"), ("n", "cancel")]
        if self.plan.conflicts:
            parts.insert(1, ("o", f"overwrite the {len(self.plan.conflicts)} conflict(s) too"))
        if not self.plan.changes:
            parts = [("n", "close")]
        return key_bar(*parts)

    def action_answer(self, answer: str | None) -> None:
        self.dismiss(answer if self.plan.changes else None)

    def action_overwrite(self) -> None:
        if self.plan.conflicts:
            self.dismiss("overwrite")


@dataclass(frozen=True, slots=True)
class RewindChoice:
    #: the message that began the chosen turn; what to take back: "files", "conversation", "both"
    message_index: int
    prompt: str
    scope: str


@dataclass(frozen=True, slots=True)
class RewindPoint:
    message_index: int
    prompt: str
    #: files changed from this turn on
    files: int


class RewindScreen(ModalScreen[RewindChoice | None]):
    """The session's prompts, newest first: pick one, then b (both), f (files only) or
    c (conversation only) to go back to just before it."""

    CSS_PATH = "../styles/restore.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b,enter", "choose('both')", "Files and conversation", priority=True),
        Binding("f", "choose('files')", "Files only"),
        Binding("c", "choose('conversation')", "Conversation only"),
        Binding("escape", "dismiss(None)", "Cancel"),
    ]

    def __init__(self, points: list[RewindPoint]) -> None:
        super().__init__()
        self.points = points

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind") as box:
            box.border_title = "Rewind to before…"
            options = []
            for point in reversed(self.points):
                first_line = point.prompt.strip().splitlines()[0] if point.prompt.strip() else ""
                changed = f"  ({point.files} file change(s) from here on)" if point.files else ""
                options.append(Option(Content(visible(first_line[:100]) + changed)))
            yield OptionList(*options, id="rewind-list")
            keys = key_bar(
                ("b", "files and conversation"),
                ("f", "files only"),
                ("c", "conversation only"),
                ("esc", "cancel"),
            )
            yield Static(keys, id="rewind-keys")

    def action_choose(self, scope: str) -> None:
        index = self.query_one(OptionList).highlighted
        if index is None:
            return
        point = self.points[len(self.points) - 1 - index]
        self.dismiss(RewindChoice(point.message_index, point.prompt, scope))
