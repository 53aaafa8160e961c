"""The model's question (`AskUserQuestion`): each of its 1–4 questions in turn, with its options
numbered. A number key picks an option (several, with multiSelect: the keys tick them and Enter
goes on); typing anything else writes an answer of your own ("Other"), Enter sends it. Esc
declines (the model is told). Keys typed in the first half second don't count: they were meant
for the prompt. Dismisses with {question: answer} or None."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from agent_tui.text import visible
from agent_tui.ui.widgets.key_hints import key_bar

GUARD_S = 0.5


class QuestionScreen(ModalScreen[dict[str, str] | None]):
    CSS_PATH = "../styles/question.tcss"
    AUTO_FOCUS = None  # number keys choose; typing moves into the answer box
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "decline", show=False)]

    def __init__(
        self,
        questions: list[dict[str, Any]],
        *,
        guard_s: float = GUARD_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.questions = questions
        self.index = 0
        self.answers: dict[str, str] = {}
        self.ticked: set[int] = set()
        self.guard_s = guard_s
        self._clock = clock
        self._shown_at: float | None = None
        # Its parts, held rather than looked up: when the app closes as the dialog comes up
        # (the agent asks as the person quits), it is mounted with them not mounted.
        self._dialog = Vertical(id="dialog")
        self._question = Static(id="question")
        self._options = Static(id="options")
        self._other = Input(
            placeholder="or type an answer of your own, then Enter",
            id="other",
            select_on_focus=False,
        )
        self._keys = Static(id="keys")

    @property
    def current(self) -> dict[str, Any]:
        return self.questions[self.index]

    def compose(self) -> ComposeResult:
        with self._dialog:
            yield self._question
            yield self._options
            yield self._other
            yield self._keys

    def on_mount(self) -> None:
        self._show()
        self._typing(False)

    def _typing(self, on: bool) -> None:
        """The answer box takes keys only once the person types (number keys choose)."""
        other = self._other
        other.can_focus = on
        if on:
            other.focus()
        else:
            self.set_focus(None)

    def on_screen_resume(self) -> None:
        self._shown_at = self._clock()

    def _armed(self) -> bool:
        return self._shown_at is not None and self._clock() - self._shown_at >= self.guard_s

    def _show(self) -> None:
        q = self.current
        dialog = self._dialog
        count = f" ({self.index + 1} of {len(self.questions)})" if len(self.questions) > 1 else ""
        dialog.border_title = f"{visible(q.get('header') or 'Question')[:24]}{count}"
        self._question.update(Content(visible(q["question"])))
        lines = []
        for n, option in enumerate(q["options"], 1):
            box = ("[x] " if n - 1 in self.ticked else "[ ] ") if q.get("multiSelect") else ""
            text = f"{n}. {box}{visible(option['label'])}"
            if option.get("description"):
                text += f" — {visible(option['description'])}"
            lines.append(text)
        self._options.update(Content("\n".join(lines)))
        keys = [("1–" + str(len(q["options"])), "tick" if q.get("multiSelect") else "choose")]
        if q.get("multiSelect"):
            keys.append(("enter", "done"))
        keys += [("type", "your own answer"), ("esc", "decline")]
        self._keys.update(key_bar(*keys))

    def on_key(self, event: events.Key) -> None:
        other = self._other
        if other.has_focus:
            return
        q = self.current
        if event.character and event.character.isdigit():
            event.stop()
            n = int(event.character)
            if self._armed() and 1 <= n <= len(q["options"]):
                self._pick(n - 1)
        elif event.key == "enter" and q.get("multiSelect"):
            event.stop()
            if self._armed() and self.ticked:
                labels = [q["options"][i]["label"] for i in sorted(self.ticked)]
                self._answer(", ".join(labels))
        elif event.character and event.character.isprintable() and self._armed():
            event.stop()
            self._typing(True)
            other.insert_text_at_cursor(event.character)

    def _pick(self, i: int) -> None:
        q = self.current
        if q.get("multiSelect"):
            self.ticked ^= {i}
            self._show()
        else:
            self._answer(q["options"][i]["label"])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if text and self._armed():
            self._answer(text)

    def _answer(self, answer: str) -> None:
        self.answers[self.current["question"]] = answer
        if self.index + 1 == len(self.questions):
            self.dismiss(dict(self.answers))
            return
        self.index += 1
        self.ticked = set()
        self._other.value = ""
        self._typing(False)
        self._show()

    def action_decline(self) -> None:
        other = self._other
        if other.has_focus and other.value:
            other.value = ""
            self._typing(False)
            return
        self.dismiss(None)
