"""A live session longer than the chat's cap: its oldest turns are pruned whole, and the row
above the messages pages them back in, so scrolling up still reaches the first prompt."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import make_app, wait_for
from textual.app import App, ComposeResult

from agent_tui.ui.chat.messages import ChatView, MarkdownSegment, UserMessage
from agent_tui.ui.widgets.history import EarlierMessages
from agent_tui.ui.widgets.prompt import PromptInput

pytestmark = pytest.mark.usefixtures("offline_env")


async def run_turns(app, pilot, prompts: list[str]) -> None:  # type: ignore[no-untyped-def]
    for prompt in prompts:
        done = len(app.agent.messages)
        app.query_one(PromptInput).post_message(PromptInput.Submitted(prompt))
        await wait_for(
            pilot, lambda d=done: len(app.agent.messages) >= d + 2 and not app.turns.running
        )
        await pilot.pause()


def shown_prompts(chat: ChatView) -> list[str]:
    return [str(m.render()) for m in chat.query(UserMessage)]


async def test_pruned_turns_page_back_in_when_scrolled_to(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        chat = app.chat
        chat.max_messages = 6
        prompts = [f"question number {n}" for n in range(1, 9)]
        await run_turns(app, pilot, prompts)
        await wait_for(pilot, lambda: isinstance(chat.header, EarlierMessages))
        row = chat.header
        assert isinstance(row, EarlierMessages) and chat.children[0] is row
        # whole turns went: the chat starts at a prompt, and the row counts what is above it
        first = chat.children[1]
        assert isinstance(first, UserMessage)
        assert row.pager.start == first.turn_index
        assert app.agent.messages[first.turn_index]["content"][0]["text"] == str(first.render())
        assert "question number 1" not in shown_prompts(chat)
        assert f"{row.pager.hidden:,} earlier messages" in str(row.render())
        # every prompt on screen knows where it is in the conversation
        for message in chat.query(UserMessage):
            assert message.turn_index is not None
            assert app.agent.messages[message.turn_index]["role"] == "user"
        # scrolling to the top pages the earlier turns in, up to the first prompt
        while row.pager.hidden:
            chat.scroll_home(animate=False, immediate=True)
            await pilot.pause()  # the scroll is processed
            row.load_page()
            await pilot.pause()
        assert shown_prompts(chat)[:2] == ["question number 1", "question number 2"]
        assert len(chat.query(MarkdownSegment)) >= len(prompts)
        assert not row.display  # nothing left above


class ChatApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ChatView(max_messages=6)


async def test_no_pruning_while_the_person_reads_above() -> None:
    app = ChatApp()
    async with app.run_test(size=(60, 12)) as pilot:
        chat = app.query_one(ChatView)
        cuts: list[int] = []
        chat.on_pruned = cuts.append
        for n in range(6):
            await chat.add(UserMessage(f"prompt {n}", turn_index=2 * n))
            await chat.add(MarkdownSegment(f"answer {n}\n\n" * 12))
        await pilot.pause()
        assert cuts == [2, 4, 6] and str(chat.children[0].render()) == "prompt 3"
        chat.release_anchor()  # as a wheel or key scroll does
        chat.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        reading = chat.children[0]
        for n in range(6, 9):
            await chat.add(MarkdownSegment(f"more {n}\n\n" * 12))
        assert chat.children[0] is reading and len(cuts) == 3  # what they read stays
        chat.anchor()  # back at the bottom, as sending a prompt does
        await pilot.pause()
        await chat.add(UserMessage("prompt 9", turn_index=18))
        # whole turns go, down to the first prompt that leaves at most six
        assert reading not in chat.children and cuts[-1] == 10
        assert str(chat.children[0].render()) == "prompt 5"


async def test_a_resumed_session_keeps_its_row_when_new_turns_prune(tmp_path: Path) -> None:
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await run_turns(app, pilot, [f"earlier question {n}" for n in range(1, 4)])
        await app.action_quit()
    app = make_app(tmp_path, record=True, continue_=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None and app.agent.messages, timeout=30)
        chat = app.chat
        row = chat.header
        assert isinstance(row, EarlierMessages) and row in chat.children
        chat.max_messages = 4
        await run_turns(app, pilot, ["new question 1", "new question 2", "new question 3"])
        assert chat.children[0] is row  # pruning went under it, not through it
        assert row.pager.hidden > 0 and row.display
        assert "earlier question 1" not in shown_prompts(chat)
        while row.pager.hidden:
            row.load_page()
            await pilot.pause()
        assert shown_prompts(chat)[0] == "earlier question 1"
