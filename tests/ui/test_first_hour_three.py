"""The first hour, round three (issue 50): each test failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import make_app, wait_for

from agent_tui.ui.widgets.prompt import PromptInput

pytestmark = pytest.mark.usefixtures("offline_env")


async def test_the_status_line_counts_each_response_as_it_ends(tmp_path: Path) -> None:
    """A turn of two responses (a command, then the answer): the first one's tokens are on the
    status line while its command waits for approval, not only at the turn's end."""
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.approvals.guard_s = 0.0
        app.on_prompt_input_submitted(PromptInput.Submitted("run a command"))
        await wait_for(pilot, lambda: app.approvals.current is not None)
        assert app.turns.running
        first = app.status.usage
        assert first is not None and first.output_tokens > 0  # before: ↑0 ↓0 until the end
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.turns.running)
        total = app.status.usage
        assert total is not None and total.output_tokens > first.output_tokens
        assert total == app.agent.session_usage  # the turn's end agrees with what was shown


async def test_an_unreachable_api_is_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The retry's line gives way to the failure that says the same (before: `⚠ Could not reach
    … Retrying in 1s (attempt 1 of 1)…` and then `✗ Could not reach …`, the same words twice)."""
    import socket

    from agent_tui.ui.chat.messages import NoticeMessage

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.turns.send("hello")
        await wait_for(pilot, lambda: app.turns.running)
        await wait_for(pilot, lambda: not app.turns.running, timeout=60)
        await pilot.pause()
        said = [n.text for n in app.query(NoticeMessage) if "Could not reach" in n.text]
        assert len(said) == 1, said
        assert "the network. Tried 2 times." in said[0] and "Retrying" not in said[0]


async def test_ctrl_c_twice_at_idle_quits_and_the_first_says_how(tmp_path: Path) -> None:
    from agent_tui.ui.controllers.stop_keys import EXIT_HINT

    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert [str(n.message) for n in app._notifications] == [EXIT_HINT]
        assert EXIT_HINT == "Press Ctrl-C again to exit"  # Claude Code's words
        assert app.is_running
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.is_running)


async def test_ctrl_c_during_a_turn_stops_it_and_does_not_count_toward_quitting(
    tmp_path: Path,
) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.turns.send("hello")
        await wait_for(pilot, lambda: app.turns.running)
        await pilot.press("ctrl+c")  # stops the turn
        await wait_for(pilot, lambda: not app.turns.running)
        await pilot.press("ctrl+c")  # the first at idle: the hint, not an exit
        await pilot.pause()
        assert app.is_running


async def test_a_backslash_then_enter_is_a_new_line(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        prompt = app.query_one(PromptInput)
        prompt.focus()
        for key in ("o", "n", "e", "backslash", "enter", "t", "w", "o"):
            await pilot.press(key)
        assert prompt.text == "one\ntwo" and not app.turns.running  # not sent
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.agent.messages))
        assert app.agent.messages[0]["content"][0]["text"] == "one\ntwo"


def test_a_session_answer_is_not_said_as_saved() -> None:
    """`s` keeps its rules for this session, nothing is written: the approvals log and the
    review export say so (before: "saved Edit(./one.txt)"), and the review names `a`'s keys
    as they are (before: "a a (allow always)")."""
    from agent_tui.protocol.events import ApprovalDecided
    from agent_tui.sessions.review import decided_by
    from agent_tui.ui.widgets.approvals_log import entry_content

    def decided(answer: str) -> ApprovalDecided:
        return ApprovalDecided(
            "toolu_1", "Edit", "./one.txt", "allow", "user",
            saved_rules=["Edit(./one.txt)"], answer=answer,
        )  # fmt: skip

    session, always = decided("session"), decided("always")
    assert "for this session Edit(./one.txt)" in str(entry_content(session))
    assert "saved" not in str(entry_content(session))
    assert "saved Edit(./one.txt)" in str(entry_content(always))
    assert "s (allow for this session) · for this session Edit(./one.txt)" in decided_by(session)
    assert "a, then a or Enter (allow always) · saved Edit(./one.txt)" in decided_by(always)
    assert "a a " not in decided_by(always)


async def test_at_80x24_the_dialogs_key_lines_fit_on_screen_whole(tmp_path: Path) -> None:
    """The approval dialog's keys on one line (they wrapped: `t deny` / `and tell`), and the
    /undo dialog's whole key line on screen (it was cut after `y restore the`)."""
    from agent_tui.ui.screens.restore import RestoreScreen
    from agent_tui.ui.widgets.key_hints import KeyLine

    def whole(keys: KeyLine, last: str) -> bool:
        """On screen, on one line of text, all of it (up to its last key)."""
        text = str(keys.render()).rstrip()
        fits = keys.content.cell_length <= keys.content_size.width  # not wrapped, nor cut
        return text.endswith(last) and fits and 0 < keys.region.bottom <= 24

    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.approvals.guard_s = 0.0
        app.on_prompt_input_submitted(PromptInput.Submitted("run a command"))
        await wait_for(pilot, lambda: app.approvals.current is not None)
        await wait_for(pilot, lambda: app.screen.armed)
        keys = app.screen.query_one("#keys", KeyLine)
        await wait_for(pilot, lambda: whole(keys, "t tell") and keys.size.height == 1)
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.turns.running)
        app.slash.handle("/undo")
        await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen))
        keys = app.screen.query_one("#restore-keys", KeyLine)
        await wait_for(pilot, lambda: whole(keys, "n cancel"))


async def test_at_250_columns_the_chat_keeps_a_reading_width(tmp_path: Path) -> None:
    from agent_tui.ui.chat.messages import AssistantMessage, UserMessage

    app = make_app(tmp_path)
    async with app.run_test(size=(250, 50)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.turns.send("hello " * 60)
        await wait_for(pilot, lambda: bool(app.query(AssistantMessage)) and not app.turns.running)
        await pilot.pause()
        for message in [*app.query(UserMessage), *app.query(AssistantMessage)]:
            assert message.size.width <= 120, message  # was 182 columns of prose


async def test_context_breaks_the_window_down_as_claude_code_does(tmp_path: Path) -> None:
    """`/context`: the model and how full, then the system prompt, the tools, the memory files,
    the messages and the free space, each with its tokens and share; the parts add up to what
    the last request measured (before: one line, "Context: N of M tokens")."""
    from agent_tui.agent.context_parts import context_parts
    from agent_tui.ui.chat.messages import NoticeMessage

    work = tmp_path / "work"
    work.mkdir()
    (work / "AGENTS.md").write_text("Use tabs. " * 200)
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.turns.send("hello")
        await wait_for(pilot, lambda: len(app.agent.messages) >= 2 and not app.turns.running)
        app.slash.handle("/context")
        await pilot.pause()
        (said,) = [n.text for n in app.query(NoticeMessage) if n.text.startswith("Context: ")]
        lines = said.splitlines()
        names = [line.split(":")[0].strip() for line in lines[1:-1]]
        assert names == [
            "System prompt", "System tools", "Memory files", "Messages", "Free space"
        ]  # fmt: skip
        assert "tokens (" in lines[1] and "%)" in lines[1]
        parts = context_parts(app.agent)
        # the offline model's usage is no API count: the parts are estimated, and say so
        assert not parts.measured and "(estimated)" in lines[0]
        assert sum(t for _, t in parts.parts) == parts.window
        memory = dict(parts.parts)["Memory files"]
        assert 400 <= memory <= 600  # 2,000 characters of AGENTS.md


async def test_ctrl_c_with_text_typed_clears_it_first(tmp_path: Path) -> None:
    from agent_tui.ui.controllers.stop_keys import EXIT_HINT

    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        prompt = app.query_one(PromptInput)
        prompt.focus()
        prompt.insert("half a thought")
        await pilot.press("ctrl+c")
        assert prompt.text == "" and app.is_running
        assert any(EXIT_HINT in str(n.message) for n in app._notifications)
        await pilot.press("up")  # kept in the history
        assert prompt.text == "half a thought"
