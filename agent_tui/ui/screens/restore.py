"""Undo and rewind, previewed: `RestoreScreen` shows what a restore would do — each file with its
diff, restored or kept as the person chooses file by file (conflicts start kept), what can't be
restored or is refused — and `RewindScreen` picks the prompt to go back to and what to take
back (files, conversation or both)."""

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

from agent_tui.checkpoints.restore import RestorePlan
from agent_tui.text import visible
from agent_tui.ui.widgets.key_hints import Key, KeyLine
from agent_tui.ui.widgets.restore_files import (
    MAX_FILE_DIFF_LINES,
    MAX_LISTED,
    RestoreFiles,
    shown_path,
)

__all__ = ["MAX_FILE_DIFF_LINES", "RestoreScreen", "RewindScreen", "plan_summary", "shown_path"]


def plan_summary(plan: RestorePlan, cwd: Path) -> Content:
    """What the preview holds, in a line, then each thing that can't be done."""
    changes = plan.changes
    lines: list[Content] = []
    if changes:
        conflicts = len(plan.conflicts)
        head = f"{len(changes)} file(s) to put back as they were"
        if conflicts:
            head += f"; {conflicts} conflict(s) kept as they are unless you tick them"
        lines.append(Content(head + "."))
    if len(changes) > MAX_LISTED:
        lines.append(
            Content(f"Only the first {MAX_LISTED} are listed; the rest follow the default.")
        )
    for f in plan.refused:
        lines.append(
            Content.assemble(
                ("refused  ", "bold $text-error"),
                visible(shown_path(f.path, cwd)),
                f" — {visible(f.refused)}",
            )
        )
    for call in plan.interrupted:
        lines.append(
            Content.assemble(
                ("interrupted ", "bold $text-warning"),
                visible(call),
                " — ran after the last record (the app was stopped); what it may have changed is "
                "listed as a conflict",
            )
        )
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
                " — ran where no snapshot could be taken (outside git, in a folder too big for "
                "undo's own), so what it changed was not captured",
            )
        )
    if not lines:
        lines.append(Content("The files are already as they were: nothing to restore."))
    return Content("\n").join(lines)


class RestoreScreen(ModalScreen[frozenset[Path] | None]):
    """Dismisses with the files to restore (each chosen with space; conflicts start kept), or
    None when cancelled."""

    CSS_PATH = "../styles/restore.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "apply", "Restore the ticked files"),
        Binding("space", "toggle_file", "Restore or keep this file", show=False),
        Binding("a", "toggle_every_file", "All or none", show=False),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("n,escape", "cancel", "Cancel"),
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
                yield RestoreFiles(self.plan.changes, self.cwd, id="restore-files")
            yield KeyLine(self._keys(), id="restore-keys")

    def _keys(self) -> list[Key]:
        if not self.plan.changes:
            return [("n", "close", "close")]
        return [
            ("↑↓", "file", "file"),
            ("space", "restore or keep it", "tick"),
            ("a", "all or none", "all"),
            ("y", "restore the ticked files", "restore"),
            ("n", "cancel", "cancel"),
        ]

    @property
    def picker(self) -> RestoreFiles:
        return self.query_one(RestoreFiles)

    def action_move(self, delta: int) -> None:
        self.picker.move(delta)

    def action_toggle_file(self) -> None:
        self.picker.toggle()

    def action_toggle_every_file(self) -> None:
        self.picker.toggle_all()

    def action_apply(self) -> None:
        self.dismiss(self.picker.chosen(self.plan.safe) if self.plan.changes else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


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
            keys: list[Key] = [
                ("b", "files and conversation", "both"),
                ("f", "files only", "files"),
                ("c", "conversation only", "conversation"),
                ("esc", "cancel", "cancel"),
            ]
            yield KeyLine(keys, id="rewind-keys")

    def action_choose(self, scope: str) -> None:
        index = self.query_one(OptionList).highlighted
        if index is None:
            return
        point = self.points[len(self.points) - 1 - index]
        self.dismiss(RewindChoice(point.message_index, point.prompt, scope))
