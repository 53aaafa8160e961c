"""Small questions: yes/no (`ConfirmScreen`) and one line of text, such as where to write a file
or which model to use (`AskTextScreen`), and a yes/no asked from a worker thread
(`ask_from_thread`)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

if TYPE_CHECKING:
    from textual.app import App


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question: `y` answers yes; `n` or Esc answers no."""

    CSS_PATH = "../styles/confirm.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(Text(self.question), id="confirm-question")
            yield Static(Text("y  yes      n  no"), id="confirm-keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class AskTextScreen(ModalScreen[str | None]):
    """Asks for one line (a path, a model name), prefilled; Enter accepts, Esc cancels."""

    CSS_PATH = "../styles/confirm.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, default: str) -> None:
        super().__init__()
        self.question = question
        self.default = default
        #: held, not looked up: mounted as the app closes, the dialog has its parts unmounted
        self._line = Input(self.default, id="path")

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(Text(self.question), id="confirm-question")
            yield self._line
            yield Static(Text("enter  accept      esc  cancel"), id="confirm-keys")

    def on_mount(self) -> None:
        self._line.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChoiceScreen(ModalScreen[str | None]):
    """One of a few named choices (a permission mode): the current one is marked and selected;
    ↑/↓ and Enter choose, a choice's digit picks it, Esc keeps things as they
    are."""

    CSS_PATH = "../styles/confirm.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, choices: list[tuple[str, str]], current: str) -> None:
        super().__init__()
        self.question = question
        self.choices = choices
        self.current = current
        from textual.widgets import OptionList
        from textual.widgets.option_list import Option

        #: held, not looked up: mounted as the app closes, the dialog has its parts unmounted
        self._options = OptionList(
            *(
                Option(
                    Text(f"{n}. {name}{'  (now)' if name == current else ''} — {what}"),
                    id=name,
                )
                for n, (name, what) in enumerate(choices, 1)
            ),
            id="choices",
        )

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(Text(self.question), id="confirm-question")
            yield self._options
            yield Static(Text("↑/↓ enter  choose      esc  cancel"), id="confirm-keys")

    def on_mount(self) -> None:
        options = self._options
        names = [name for name, _ in self.choices]
        options.highlighted = names.index(self.current) if self.current in names else 0
        options.focus()

    def on_option_list_option_selected(self, event: Any) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def on_key(self, event: Any) -> None:
        key = str(event.character or "")
        if key.isdigit() and 1 <= int(key) <= len(self.choices):
            event.stop()
            self.dismiss(self.choices[int(key) - 1][0])

    def action_cancel(self) -> None:
        self.dismiss(None)


def ask_from_thread(app: App[Any], question: str) -> bool:
    """From a worker thread: a yes/no question on screen; waits for the answer (no, if the app
    quits with the question on screen)."""
    answered = threading.Event()
    answer: list[bool] = []

    def done(yes: bool | None) -> None:
        answer.append(bool(yes))
        answered.set()

    app.call_from_thread(app.push_screen, ConfirmScreen(question), done)
    while not answered.wait(0.1):
        if not app.is_running:  # quit with the question on screen: nothing to wait for
            return False
    return answer[0]
