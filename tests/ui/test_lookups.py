"""What runs at every key typed, every dialog, every turn and every Tab looks up the parts of the
main screen where they sit, never by walking every widget of the chat: a query that finds nothing
(the slash hints before the first `/`) or a query of all (`app.query`) matched each widget of a
long chat against its selector, ~2.5 ms a key with 60 answers on screen on a slow host
(BENCHMARKS.md). Counted by the selector matches they make, with the chat's widgets many times
more than what they look through."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
import textual.css.match
from app_helpers import make_app, wait_for
from textual.containers import Vertical
from textual.widgets import Static

from agent_tui.protocol.events import TurnStarted
from agent_tui.ui.chat.messages import UserMessage
from agent_tui.ui.widgets.prompt import QueuedPrompts, SlashHints

pytestmark = pytest.mark.usefixtures("offline_env")

CHAT_WIDGETS = 300


def selector_checks(call: Callable[[], object]) -> int:
    """How many widgets `call` matched against a selector (Textual's `_check_selectors`)."""
    checks = 0
    code = textual.css.match._check_selectors.__code__

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal checks
        if event == "call" and frame.f_code is code:
            checks += 1

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return checks


async def test_the_prompt_bars_dialog_keys_and_turns_look_past_the_chat(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.chat.max_messages = CHAT_WIDGETS * 2
        for n in range(CHAT_WIDGETS):
            # an answer's segments, in a group of their own
            answer = Vertical(*(Static("text") for _ in range(3)))
            app.chat.append(UserMessage(f"prompt {n}") if n % 10 == 0 else answer)
        await wait_for(pilot, lambda: len(list(app.chat.walk_children())) >= 3 * CHAT_WIDGETS)
        assert SlashHints.find(app) is None  # not needed yet: nothing mounted
        # the walk these replaced matched every widget of the chat at least once
        assert selector_checks(lambda: list(app.query(SlashHints))) >= 3 * CHAT_WIDGETS
        few = CHAT_WIDGETS // 10

        turn = TurnStarted(prompt="go", index=0)
        costs = {
            "the slash hints, at every key typed": selector_checks(lambda: SlashHints.find(app)),
            "hiding them": selector_checks(app.slash.hide_hints),
            "the last key's time, at every dialog's paint": selector_checks(app.boot._typed_at),
            "the shells' place, at every Tab": selector_checks(app.main._shells_hidden),
            "the side pane, at every resize": selector_checks(lambda: app.main._fit_width(110)),
            # the prompts are the chat's own children, not the answers' segments
            "the last prompt, at every turn": selector_checks(
                lambda: app.live_view.on_turn_started(turn)
            )
            - CHAT_WIDGETS,
        }
        assert {what: n for what, n in costs.items() if n >= few} == {}

        queued = QueuedPrompts.of(app)  # mounted the first time, found after that
        assert QueuedPrompts.find(app) is queued
        assert selector_checks(lambda: QueuedPrompts.of(app)) < few
        hints = SlashHints.of(app)  # above the prompt box, below the queued prompts
        await pilot.pause()
        assert SlashHints.find(app) is hints
        siblings = list(app.main.children)
        assert siblings.index(queued) < siblings.index(hints) < siblings.index(app.main.prompt)
