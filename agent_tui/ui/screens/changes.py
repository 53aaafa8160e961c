"""The Changes view of a session (`c` in the sessions browser): each turn that changed files,
and for the highlighted one its files with their diffs, as the turn left them. Turns taken back
by an undo or rewind say so; calls whose changes could not be captured are listed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.protocol.events import FilesChanged, FilesRestored
from agent_tui.text import visible
from agent_tui.ui.screens.restore import MAX_FILE_DIFF_LINES, shown_path
from agent_tui.ui.widgets.diff_view import diff_content
from agent_tui.ui.widgets.key_hints import key_bar


@dataclass(frozen=True, slots=True)
class TurnChanges:
    checkpoint: FilesChanged
    #: taken back later by an undo or rewind
    undone: bool


def turn_changes(events: list[FilesChanged | FilesRestored]) -> list[TurnChanges]:
    undone: set[int] = set()
    seen: list[FilesChanged] = []
    for event in events:
        if isinstance(event, FilesChanged):
            seen.append(event)
        else:
            undone.update(c.checkpoint for c in seen if c.checkpoint >= event.to)
    return [TurnChanges(c, c.checkpoint in undone) for c in seen]


def turn_label(n: int, turn: TurnChanges) -> Content:
    c = turn.checkpoint
    first = c.prompt.strip().splitlines()[0][:60] if c.prompt.strip() else "(no prompt)"
    n = len({f["path"] for f in c.files})
    files = f"{n} file{'s' if n != 1 else ''}"
    extra = [files] + ([f"{len(c.unrestorable)} not captured"] if c.unrestorable else [])
    return Content.assemble(
        (f"{n:>3}  ", "dim"),
        visible(first),
        (f"  · {', '.join(extra)}", "dim"),
        (" · undone", "bold $text-warning") if turn.undone else "",
    )


class ChangesScreen(Screen[None]):
    CSS_PATH = "../styles/changes.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "app.pop_screen", "Close")]

    def __init__(
        self,
        title: str,
        cwd: Path,
        load: Callable[[], list[FilesChanged | FilesRestored]],
        read_blob: Callable[[str], bytes | None],
    ) -> None:
        super().__init__()
        self.title_text = title
        self.cwd = cwd
        self._load = load
        self._read_blob = read_blob
        self.turns: list[TurnChanges] = []
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield Static(
            Content.assemble(("Changes · ", "bold"), visible(self.title_text)), id="changes-title"
        )
        with Horizontal(id="changes-body"):
            yield OptionList(id="changes-turns")
            with VerticalScroll(id="changes-diffs"):
                yield Static("", id="changes-detail")
        yield Static(key_bar(("↑↓", "turn"), ("esc", "close")), id="changes-keys")

    def on_mount(self) -> None:
        self.run_worker(self._read, thread=True, exit_on_error=False)

    def _read(self) -> None:
        try:
            turns = turn_changes(self._load())
        except Exception as exc:  # a damaged store: say so rather than show an empty view
            self.app.call_from_thread(self._show_detail, Content(f"Can't read the changes: {exc}"))
            return
        self.app.call_from_thread(self._show_turns, turns)

    def _show_turns(self, turns: list[TurnChanges]) -> None:
        self.turns = turns
        listing = self.query_one(OptionList)
        listing.add_options(Option(turn_label(n + 1, t)) for n, t in enumerate(turns))
        self.loaded = True
        if not turns:
            self.query_one("#changes-detail", Static).update(
                Content("No turn of this session changed files.")
            )
            return
        listing.highlighted = len(turns) - 1
        listing.focus()

    @on(OptionList.OptionHighlighted, "#changes-turns")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        turn = self.turns[event.option_index]
        self.run_worker(lambda: self._render_turn(turn), thread=True, group="diff", exclusive=True)

    def _render_turn(self, turn: TurnChanges) -> None:
        from agent_tui.checkpoints.restore import file_diff

        parts: list[Content] = []
        c = turn.checkpoint
        if turn.undone:
            parts.append(Content.styled("Taken back by an undo or rewind.", "bold $text-warning"))
        for entry in c.files:
            shown = shown_path(Path(str(entry["path"])), self.cwd)
            before, after = entry.get("before"), entry.get("after")
            old = None if before is None else self._read_blob(str(before))
            new = None if after is None else self._read_blob(str(after))
            by = entry.get("by", "")
            parts.append(Content.assemble((visible(shown), "bold"), (f"  ({by})", "dim")))
            if (before is not None and old is None) or (after is not None and new is None):
                parts.append(Content("(its content was not kept)"))
                continue
            diff, note = diff_content(file_diff(old, new, shown), MAX_FILE_DIFF_LINES)
            parts.append(diff)
            if note:
                parts.append(Content.styled(note, "dim"))
        for call in c.unrestorable:
            parts.append(
                Content.assemble(
                    ("not captured ", "bold $text-warning"),
                    visible(call),
                    " (no snapshot could be taken where it ran)",
                )
            )
        self.app.call_from_thread(self._show_detail, Content("\n").join(parts))

    def _show_detail(self, content: Any) -> None:
        self.query_one("#changes-detail", Static).update(content)
