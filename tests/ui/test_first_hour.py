"""What a new user hits in the first hour (issue 12): each test failed before its fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from app_helpers import make_app, wait_for

from agent_tui.ui.chat.messages import AssistantMessage, NoticeMessage, UserMessage
from agent_tui.ui.widgets.prompt import PromptInput, QueuedPrompts

pytestmark = pytest.mark.usefixtures("offline_env")


def chat_order(app: Any) -> list[str]:
    out = []
    for w in app.chat.children:
        if isinstance(w, UserMessage):
            out.append("user:" + str(w.render()))
        elif isinstance(w, AssistantMessage):
            out.append("assistant")
    return out


async def test_two_prompts_in_one_tick_run_one_after_the_other(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        # two Enters in one tick: the first turn's worker has not even started
        app.on_prompt_input_submitted(PromptInput.Submitted("hello"))
        app.on_prompt_input_submitted(PromptInput.Submitted("hello again"))
        # the second waits below the answer in progress, not in the chat above it
        assert app.query_one(QueuedPrompts).texts == ["hello again"]
        await pilot.pause()
        assert chat_order(app)[:1] == ["user:hello"]
        await wait_for(pilot, lambda: len(app.query(AssistantMessage)) == 2, timeout=30)
        await wait_for(pilot, lambda: not app.turns.running and not app.turns.queued, timeout=30)
        assert chat_order(app) == ["user:hello", "assistant", "user:hello again", "assistant"]
        roles = [m["role"] for m in app.agent.messages]
        assert roles == ["user", "assistant", "user", "assistant"]
        assert not app.query_one(QueuedPrompts).display


async def test_escape_right_after_enter_cancels_before_the_first_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        streamed: list[Any] = []
        real_stream = app.agent.provider.stream
        monkeypatch.setattr(
            app.agent.provider, "stream", lambda r: streamed.append(r) or real_stream(r)
        )
        app.on_prompt_input_submitted(PromptInput.Submitted("hello"))
        app.action_cancel()  # in the same tick: the turn's worker has not started
        await wait_for(
            pilot,
            lambda: any("Cancelled before it was sent" in n.text for n in app.query(NoticeMessage)),
        )
        assert streamed == [] and app.agent.messages == []
        assert any("Cancelled before it was sent" in n.text for n in app.query(NoticeMessage))
        # the app is ready for the next prompt
        app.on_prompt_input_submitted(PromptInput.Submitted("hello"))
        await wait_for(pilot, lambda: app.query(AssistantMessage) and not app.turns.running)
        assert len(streamed) == 1


async def test_notices_do_not_look_like_prompts(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        user = UserMessage("a prompt")
        notice = NoticeMessage("Cancelled.", "warning")
        await app.chat.mount_all([user, notice])
        await pilot.pause()
        assert str(notice.render()).startswith("⚠ ")
        assert notice.styles.border_left != user.styles.border_left
        assert notice.styles.background != user.styles.background


async def _record_a_session_with_a_command(tmp_path: Path) -> None:
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.approvals.guard_s = 0.0
        app.on_prompt_input_submitted(PromptInput.Submitted("run a command"))
        await wait_for(pilot, lambda: app.approvals.current is not None, timeout=30)
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.turns.running and len(app.agent.messages) >= 4, 30)
        await app.action_quit()


async def test_a_resumed_session_shows_its_decisions_and_tool_summaries(tmp_path: Path) -> None:
    from agent_tui.ui.widgets.approvals_log import ApprovalsLog
    from agent_tui.ui.widgets.tool_blocks import ToolBlock

    await _record_a_session_with_a_command(tmp_path)
    app = make_app(tmp_path, record=True, continue_=True)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None and app.agent.messages, timeout=30)
        await pilot.pause()
        log = app.query_one(ApprovalsLog)
        assert [(e.tool, e.decision, e.by) for e in log.entries] == [("Bash", "allow", "user")]
        bash = next(b for b in app.query(ToolBlock) if "Bash" in b.header_text)
        assert "exit 0" in bash.header_text  # as the live row said it, not the raw output
        assert any(n.text == "Session resumed." for n in app.query(NoticeMessage))


async def test_leaving_a_replay_does_not_say_resumed_and_its_counts_stay_its_own(
    tmp_path: Path,
) -> None:
    from agent_tui.sessions.store import SessionStore

    await _record_a_session_with_a_command(tmp_path)
    with SessionStore.open_default() as store:
        (recorded,) = store.sessions.recent()
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        live_session = app.status.session
        replay = app.sessions.start_replay(recorded.id, speed=float("inf"))
        assert replay is not None
        await wait_for(pilot, lambda: replay.state == "finished", timeout=30)
        assert app.status.session == recorded.id  # the counts shown are the replayed session's
        assert app.status.cost == pytest.approx(recorded.cost_usd)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.sessions.replay is None)
        await pilot.pause()
        assert not any(n.text == "Session resumed." for n in app.query(NoticeMessage))
        assert app.status.session == live_session


async def test_f1_help_starts_with_the_apps_own_keys(tmp_path: Path) -> None:
    from textual.widgets import Static

    from agent_tui.ui.screens.help import HelpScreen

    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        from textual.geometry import Region

        text = "\n".join(
            strip.text
            for w in app.screen.query(Static)
            for strip in w.render_lines(Region(0, 0, w.size.width, w.size.height))
        )
        order = [text.index(h) for h in ("agent-tui", "Approval dialogs", "Permission modes")]
        assert order == sorted(order) and order[-1] < text.index("Editing the prompt")
        for phrase in ("new line", "scroll the chat", "allow once", "yolo", "Cursor"):
            assert phrase in text
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


async def test_yolo_is_not_one_shift_tab_away(tmp_path: Path) -> None:
    from agent_tui.ui.screens.confirm import ConfirmScreen

    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await pilot.press("shift+tab", "shift+tab", "shift+tab")  # → accept-edits → plan → ?
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.agent.approvals.mode == "plan"
        await pilot.press("n")
        await pilot.pause()
        assert app.agent.approvals.mode == "default"
        await pilot.press("shift+tab", "shift+tab", "shift+tab", "y")
        await pilot.pause()
        assert app.agent.approvals.mode == "yolo" and app.status.mode == "yolo"


async def test_page_keys_scroll_the_chat_from_the_prompt(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await app.chat.mount_all([UserMessage(f"line {i}") for i in range(80)])
        await pilot.pause()
        app.chat.scroll_end(animate=False)
        await pilot.pause()
        bottom = app.chat.scroll_y
        assert bottom > 0 and app.focused is app.query_one(PromptInput)
        await pilot.press("pageup")
        await pilot.pause()
        assert app.chat.scroll_y < bottom
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert app.chat.scroll_y == 0
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert app.chat.scroll_y == app.chat.max_scroll_y


async def test_at_80_by_24_the_chat_gets_the_room_and_f1_stays_in_the_footer(
    tmp_path: Path,
) -> None:
    from agent_tui.ui.widgets.key_footer import KeyFooter

    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await pilot.pause()
        assert not app.query_one("#side").display
        assert app.chat.region.width == 80
        spans = {s.key.key: s for s in app.query_one(KeyFooter).spans()}
        f1 = spans["f1"]
        assert f1.start < f1.end <= 80
        assert not any(s.start < f1.end and f1.start < s.end for k, s in spans.items() if k != "f1")
        await pilot.press("ctrl+t")  # it can still be shown
        await pilot.pause()
        assert app.query_one("#side").display


async def test_quitting_says_how_to_resume(tmp_path: Path) -> None:
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.on_prompt_input_submitted(PromptInput.Submitted("hello"))
        await wait_for(pilot, lambda: not app.turns.running and app.recorder.session_id, 30)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.resume_hint == f"Resume this session: agent-tui --resume {app.recorder.session_id}"


async def test_settings_problems_are_shown_at_start_up(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.toml").write_text('[permissions]\nallow = ["Bash(git status"]\n')
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await pilot.pause()
        shown = [n.text for n in app.query(NoticeMessage)]
        assert any(t.startswith("Settings:") and "Bash(git status" in t for t in shown)


async def test_the_model_can_be_switched_from_the_palette(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import Input

    from agent_tui.ui.screens.confirm import AskTextScreen

    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # never contacted here
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        assert any(c.title == "Model: switch" for c in app.get_system_commands(app.screen))
        app.settings.switch_model()
        await pilot.pause()
        assert isinstance(app.screen, AskTextScreen)
        app.screen.query_one(Input).value = "claude-opus-4-5"
        await pilot.press("enter")
        await pilot.pause()
        assert app.agent.config.model == "claude-opus-4-5" and app.status.model == "claude-opus-4-5"
        assert any("prompt cache starts anew" in n.text for n in app.query(NoticeMessage))


async def test_at_the_spending_cap_the_next_request_waits_for_a_keystroke(tmp_path: Path) -> None:
    import asyncio

    from agent_tui.agent.budget import CapQuestion
    from agent_tui.ui.screens.confirm import ConfirmScreen

    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        for key, expected in (("n", False), ("y", True)):
            question = CapQuestion(spent=4.9901, cap=5.0, needed=0.0213, raise_to=10.0)
            waiting = asyncio.create_task(app.boot.confirm_spend(question))
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen) and not waiting.done()
            # the status line's precision, not cents ("$4.99 of $5.00")
            assert "$4.9901" in app.screen.question and "$5.0000" in app.screen.question
            assert "Raise the cap to $10.0000 for this session?" in app.screen.question
            await pilot.press(key)
            assert await waiting is expected
