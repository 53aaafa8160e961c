"""A dialog that comes up as the app closes — the agent asks, or the spending cap is reached, as
the person quits — raises nothing: it is resumed and mounted with its parts not mounted, and its
first handlers looked them up (`NoMatches`, and the app ended on that error)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.screens.confirm import AskTextScreen, ChoiceScreen, ConfirmScreen
from agent_tui.ui.screens.question import QuestionScreen
from agent_tui.ui.screens.trust import TrustScreen

from .test_approval import bash_request

QUESTION = {
    "question": "Which HTTP library should the client use?",
    "header": "Library",
    "options": [{"label": "httpx", "description": "async and sync"}, {"label": "requests"}],
    "multiSelect": False,
}

DIALOGS: dict[str, Callable[[], Screen[Any]]] = {
    "approval": lambda: ApprovalScreen(bash_request(), guard_s=0),
    "question": lambda: QuestionScreen([QUESTION], guard_s=0),
    "trust": lambda: TrustScreen("/r", ("Bash(ls:*)",), guard_s=0),
    "confirm": lambda: ConfirmScreen("Raise the cap?"),
    "ask text": lambda: AskTextScreen("Write it where?", "notes.md"),
    "choice": lambda: ChoiceScreen("Mode?", [("default", "asks"), ("plan", "reads")], "plan"),
}


class Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("main screen")


@pytest.mark.parametrize("leave", ["teardown", "exit"])
@pytest.mark.parametrize("name", list(DIALOGS))
async def test_a_dialog_the_app_closes_as_it_comes_up_raises_nothing(name: str, leave: str) -> None:
    app = Bare()
    async with app.run_test(size=(100, 30)):
        app.push_screen(DIALOGS[name]())
        if leave == "exit":
            app.exit()
    assert app.return_code in (None, 0)
