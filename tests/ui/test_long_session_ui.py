"""Long sessions on screen (issue 13): thinking streams into a collapsed block, alt+t toggles
thinking, and `/compact` (the palette's "Context: compact") shows the compaction in the chat."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import make_app, type_prompt, wait_for
from textual.widgets import Input

from agent_tui.protocol.events import TextDelta, ThinkingDelta
from agent_tui.ui.chat.messages import AssistantMessage
from agent_tui.ui.screens.confirm import AskTextScreen
from agent_tui.ui.widgets.folded import FoldedText

pytestmark = pytest.mark.usefixtures("offline_env")


async def test_thinking_streams_collapsed_and_opens_on_enter(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        view = app.live_view
        view.handle(ThinkingDelta(0, "First, [bold]look[/] "))
        view.handle(ThinkingDelta(0, "at the tests."))
        await wait_for(pilot, lambda: app.query(FoldedText))
        (block,) = app.query(FoldedText)
        assert "Thinking…" in str(block.render()) and "look" not in str(block.render())
        view.handle(TextDelta(1, "Done."))
        await wait_for(pilot, lambda: "Thought (34 characters)" in str(block.render()))
        block.focus()
        await pilot.press("enter")
        # opened: the model's text, literally (markup-like brackets are not markup)
        assert "First, [bold]look[/] at the tests." in str(block.render())
        assert len(app.query(AssistantMessage)) == 1


async def test_alt_t_toggles_thinking_for_the_next_requests(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        assert app.agent.config.thinking_budget is None and app.status.thinking == 0
        await pilot.press("alt+t")
        assert app.agent.config.thinking_budget == 8000
        assert "thinking 8.0k" in str(app.status.render())
        await pilot.press("alt+t")
        assert app.agent.config.thinking_budget is None


async def test_compact_from_the_palette_shows_the_summary(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        for prompt in ("hello", "hello again"):
            await type_prompt(pilot, prompt)
            await wait_for(pilot, lambda: not app.turns.running, timeout=30)
        assert any(c.title == "Context: compact" for c in app.get_system_commands(app.screen))
        app.settings.compact()
        await pilot.pause()
        assert isinstance(app.screen, AskTextScreen)
        app.screen.query_one(Input).value = "keep the greetings"
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.query(FoldedText)), timeout=30)
        (notice,) = app.query(FoldedText)
        assert "Context compacted by a summary request" in str(notice.render())
        assert "The user asked: hello" in notice.text
        assert app.agent.conversation.start == 2
        await wait_for(pilot, lambda: not app.turns.running, timeout=30)
