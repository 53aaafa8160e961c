"""The first hour, round two (issue 31): each test failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import make_app, wait_for

from agent_tui.ui.widgets.chat import AssistantMessage, UserMessage
from agent_tui.ui.widgets.prompt import PromptInput

pytestmark = pytest.mark.usefixtures("offline_env")


async def test_tab_without_a_completion_keeps_what_is_typed(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.press("h", "i", "tab", "space", "t", "h", "e", "r", "e")
        assert app.focused is prompt
        assert prompt.text == "hi there"
        # an empty prompt still lets Tab move on (the panes are reachable by keyboard)
        prompt.clear()
        await pilot.press("tab")
        assert app.focused is not prompt


async def test_a_prompt_given_on_the_command_line_is_sent_once_ready(tmp_path: Path) -> None:
    app = make_app(tmp_path, initial_prompt="hello")
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.query(AssistantMessage), timeout=30)
        await wait_for(pilot, lambda: not app.turns.running, timeout=30)
        assert [str(m.render()) for m in app.query(UserMessage)] == ["hello"]
        assert [m["role"] for m in app.agent.messages] == ["user", "assistant"]
        assert app.options.initial_prompt is None  # sent once, not again after a model switch
