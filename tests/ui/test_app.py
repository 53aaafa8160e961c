"""Pilot tests of the main screen on the offline model: a person types, watches, approves."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from app_helpers import make_app, type_prompt, wait_for

from agent_tui.ui.app import AgentApp
from agent_tui.ui.chat.messages import AssistantMessage, NoticeMessage, UserMessage
from agent_tui.ui.widgets.prompt import PromptInput
from agent_tui.ui.widgets.status import StatusLine


@pytest.fixture(autouse=True)
def offline_fast(offline_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TUI_OFFLINE_DELAY", "0")


def assistant_texts(app: AgentApp) -> list[str]:
    return [m.text for m in app.query(AssistantMessage)]


async def test_prompt_streams_an_answer(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await type_prompt(pilot, "hello")
        await wait_for(pilot, lambda: app.query(AssistantMessage))
        await wait_for(pilot, lambda: not app.agent.running)
        await wait_for(pilot, lambda: "```python" in assistant_texts(app)[-1])
        users = [str(w.render()) for w in app.query(UserMessage)]
        assert users == ["hello"]
        answer = assistant_texts(app)[-1]
        assert "Hello from the offline model" in answer
        assert "```python" in answer
        status = app.query_one(StatusLine)
        assert status.model == "offline model"
        assert status.usage.output_tokens > 0
        # A finished answer is a single widget, not a tree of markdown blocks.
        final = app.query(AssistantMessage).last()
        assert len(final.children) == 1


async def test_approve_command_with_y_runs_it_and_answer_uses_output(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.approvals.guard_s = 0.0
        await type_prompt(pilot, "run a command")
        await wait_for(pilot, lambda: app.approvals.current is not None)
        # the answer the call came with was drawn whole before its dialog opened
        assert all(m.finished for m in app.query(AssistantMessage))
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.agent.running and len(app.agent.messages) >= 4)
        result = app.agent.messages[2]["content"][0]
        assert result["type"] == "tool_result"
        assert "README.md" in result["content"]
        await wait_for(pilot, lambda: "README.md" in assistant_texts(app)[-1])


async def test_the_view_is_settled_once_the_answer_it_ended_is_drawn_whole(
    tmp_path: Path,
) -> None:
    """What an approval's dialog waits for (`ApprovalQueue.settled`): the answer last ended has
    finished (made whole, its last segment final); at once when none is being finished."""
    from agent_tui.protocol.events import TextDelta

    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        view = app.live_view
        await asyncio.wait_for(view.settled(), 1)  # nothing ended yet
        view.handle(TextDelta(index=0, text="An answer " * 400))
        answer = app.query(AssistantMessage).last()
        view.end_message()
        waiting = asyncio.ensure_future(view.settled())
        assert not answer.finished and not waiting.done()
        await asyncio.wait_for(waiting, 10)
        assert answer.finished
        await asyncio.wait_for(view.settled(), 1)  # and again at once


async def test_deny_with_n_keeps_conversation_valid(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.approvals.guard_s = 0.0
        await type_prompt(pilot, "run a command")
        await wait_for(pilot, lambda: app.approvals.current is not None)
        await pilot.press("n")
        await wait_for(pilot, lambda: not app.agent.running and len(app.agent.messages) >= 4)
        result = app.agent.messages[2]["content"][0]
        assert result["is_error"] is True
        assert "denied" in result["content"]
        await type_prompt(pilot, "hello")
        await wait_for(pilot, lambda: len(app.agent.messages) >= 6 and not app.agent.running)


async def test_always_saves_rule_and_next_run_does_not_ask(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.approvals.guard_s = 0.0
        await type_prompt(pilot, "run a command")
        await wait_for(pilot, lambda: app.approvals.current is not None)
        await pilot.press("a", "a")
        await wait_for(pilot, lambda: not app.agent.running and len(app.agent.messages) >= 4)
        local = tmp_path / "work" / ".agent-tui" / "settings.local.toml"
        saved = local.read_text()
        assert "Edit(./largest.txt)" in saved  # reading needs no rule; the write does
        asked = []
        original = app.approvals.ask

        async def spy(app_, request):  # type: ignore[no-untyped-def]
            asked.append(request)
            return await original(app_, request)

        app.approvals.ask = spy
        await type_prompt(pilot, "run a command")
        await wait_for(pilot, lambda: not app.agent.running and len(app.agent.messages) >= 8)
        assert asked == []
        assert "is_error" not in app.agent.messages[6]["content"][0]


async def test_escape_cancels_a_waiting_turn(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.approvals.guard_s = 0.0
        await type_prompt(pilot, "run a command")
        await wait_for(pilot, lambda: app.approvals.current is not None)
        app.action_cancel()  # Esc is the dialog's own "deny"; Ctrl+C/Esc on the main screen stop
        await wait_for(pilot, lambda: not app.agent.running)
        messages = app.agent.messages
        assert messages[-1]["role"] == "user"
        assert messages[-1]["content"][0]["content"] == "cancelled by user"
        assert any("Cancelled" in str(n.render()) for n in app.query(NoticeMessage))


async def test_toggle_tool_pane(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        side = app.query_one("#side")
        assert side.display
        await pilot.press("ctrl+t")
        assert not side.display
        await pilot.press("ctrl+t")
        assert side.display


async def test_shift_tab_cycles_the_permission_mode(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        before = app.agent.permissions.mode
        await pilot.press("shift+tab")
        assert app.agent.permissions.mode != before
        assert app.query_one(StatusLine).mode == app.agent.permissions.mode
        assert isinstance(app.focused, PromptInput)


async def test_tiny_terminal_keeps_working(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(20, 8)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await type_prompt(pilot, "hello")
        await wait_for(pilot, lambda: not app.agent.running and len(app.agent.messages) == 2)
        await pilot.resize_terminal(120, 40)
        await pilot.pause()  # laid out again at the new size
        assert app.query(AssistantMessage)


def test_main_screen_snapshot(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = make_app(tmp_path)

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        app.query_one(PromptInput).cursor_blink = False  # a blinking cursor is not deterministic
        await wait_for(pilot, lambda: app.agent is not None)
        await type_prompt(pilot, "hello")
        await wait_for(pilot, lambda: app.agent.messages and not app.agent.running)
        # The finished answer has collapsed into its final single widget.
        await wait_for(pilot, lambda: app.query(AssistantMessage).last().query(".final"))
        app.chat.scroll_end(animate=False)  # where streaming left it depends on frame timing
        await wait_for(pilot, lambda: app.chat.scroll_y == app.chat.max_scroll_y)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(110, 36), run_before=run_before)


async def test_live_search_query_grows_on_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.ui.widgets.tool_pane import ToolEntry, ToolPane

    # Each time the entry is re-described (what the next frame draws), the first search's line
    # is noted: sampling the screen on a timer would miss steps when the machine is busy.
    seen: list[str] = []
    first: list[ToolEntry] = []
    sync = ToolEntry.sync

    def noting_sync(entry: ToolEntry) -> bool:
        resized = sync(entry)
        lines = [line for line in entry.text.splitlines() if "searching: " in line]
        if lines and not first:
            first.append(entry)
        if lines and entry is first[0]:
            query = lines[0].split("searching: ", 1)[1].split("  ")[0]
            if not seen or seen[-1] != query:
                seen.append(query)
        return resized

    monkeypatch.setattr(ToolEntry, "sync", noting_sync)
    monkeypatch.setenv("AGENT_TUI_OFFLINE_DELAY", "0.5")
    app = make_app(tmp_path, allow=["WebSearch"])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await type_prompt(pilot, "search the web for textual markdown")
        await wait_for(
            pilot, lambda: not app.agent.running and len(app.agent.messages) >= 4, timeout=60
        )
        pane_text = "\n".join(e.text for e in app.query_one(ToolPane).query(ToolEntry))
    first_search = seen
    assert len(first_search) >= 3
    # Each value is the query as far as it had arrived: growing prefixes of the final query.
    final = "textual markdown"
    assert all(final.startswith(q) or q.startswith(final) for q in first_search)
    assert first_search == sorted(first_search, key=len)
    assert "Did 2 searches in" in pane_text
    assert "results" in pane_text
