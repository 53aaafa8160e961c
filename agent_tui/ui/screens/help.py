"""F1: what the keys do — this app's own first (sending, stopping, approvals, modes, scrolling),
then the prompt box's editing keys (Textual's `TextArea`). Esc, F1 or q closes it."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

APP_KEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "send the prompt (while a turn runs, it waits and is sent next)"),
    ("Shift+Enter, Ctrl+J", "a new line in the prompt"),
    ("Up / Down", "earlier prompts (on the first / last line of the prompt)"),
    ("Esc, Ctrl+C", "stop the running turn (tools are killed; the conversation stays valid)"),
    ("Esc Esc", "with nothing running and nothing typed: /rewind"),
    ("Ctrl+C on a selection", "copy it (OSC 52: over ssh and tmux too); /copy [N]: the answer"),
    ("Ctrl+R, or send r", "retry after a failed stream"),
    ("PageUp / PageDown", "scroll the chat (at the top, earlier turns load)"),
    ("Ctrl+Home / Ctrl+End", "to the top / back to the newest message (and follow it)"),
    ("Ctrl+T", "show / hide the tool-progress and approvals pane"),
    ("Shift+Tab", "permission mode: default → accept-edits → plan → yolo (asks first)"),
    ("Alt+T", "extended thinking on / off for the next requests"),
    ("Ctrl+O", "sessions: find, resume, replay, export, delete"),
    ("Ctrl+P", "command palette"),
    ("F1", "this help"),
    ("Ctrl+Q", "quit (prints how to resume)"),
)
APPROVAL_KEYS: tuple[tuple[str, str], ...] = (
    ("y", "allow once"),
    ("a, then a or Enter", "allow always: saves the rule shown to the project's local settings"),
    ("n, Esc", "deny"),
    ("t", "deny and tell the model what to do instead"),
    ("", "keys typed just as a dialog opens go to the prompt, not to the dialog"),
)
MODES: tuple[tuple[str, str], ...] = (
    ("default", "reads in the project and a few read-only commands run; the rest asks"),
    ("accept-edits", "file edits inside the project run too (protected files still ask)"),
    ("plan", "only read-only tools and commands run; nothing changes"),
    ("yolo", "everything not denied runs without asking; deny rules still hold"),
)


def _table(rows: tuple[tuple[str, str], ...] | list[tuple[str, str]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for key, what in rows:
        table.add_row(Text(key), Text(what))
    return table


def _heading(text: str) -> Text:
    return Text(f"\n{text}", style="bold underline")


class HelpScreen(ModalScreen[None]):
    CSS_PATH = "../styles/help.tcss"
    AUTO_FOCUS = "#help"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("f1", "close", show=False),
        Binding("q", "close", show=False),
    ]

    def __init__(self, editing_keys: list[tuple[str, str]]) -> None:
        super().__init__()
        self.editing_keys = editing_keys

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as scroll:
            scroll.border_title = "Keys"
            yield Static(_heading("agent-tui"))
            yield Static(_table(APP_KEYS))
            yield Static(_heading("Approval dialogs"))
            yield Static(_table(APPROVAL_KEYS))
            yield Static(_heading("Permission modes"))
            yield Static(_table(MODES))
            yield Static(_heading("Editing the prompt"))
            yield Static(_table(self.editing_keys))

    def action_close(self) -> None:
        self.dismiss(None)


def editing_keys(bindings: list[BindingType]) -> list[tuple[str, str]]:
    """The prompt box's own bindings (Textual's TextArea), as (keys, what) rows."""
    rows: dict[str, list[str]] = {}
    for b in bindings:
        if isinstance(b, Binding) and b.description:
            rows.setdefault(b.description, []).append(b.key.replace(",", ", "))
    return [(", ".join(keys), what) for what, keys in rows.items()]
