"""Slash commands in the prompt box: hints while typing, Tab completion, built-ins run, unknown
words ask first, user commands become prompts."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import make_app, type_prompt, wait_for

from agent_tui.ui.chat.messages import AssistantMessage, NoticeMessage, UserMessage
from agent_tui.ui.screens.confirm import ConfirmScreen
from agent_tui.ui.widgets.prompt import PromptInput, SlashHints

pytestmark = pytest.mark.usefixtures("offline_env")


def notices(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [n.text for n in app.query(NoticeMessage)]


async def test_hints_while_typing_and_tab_completes(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        for key in "/co":
            await pilot.press(key)
        hints = app.query_one(SlashHints)
        shown = [c.name for c in hints.shown]
        assert hints.display and shown[:4] == ["compact", "copy", "cost", "context"]
        await pilot.press("tab")
        assert app.query_one(PromptInput).text == "/compact "
        await pilot.press("backspace", *"x")
        assert not hints.display  # a space typed: the command word is done


async def test_built_ins_run_without_reaching_the_model(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await type_prompt(pilot, "hello")
        await wait_for(pilot, lambda: not app.turns.running, timeout=30)
        await type_prompt(pilot, "/cost")
        await pilot.pause()
        assert any(t.startswith("This session: $0.0000") for t in notices(app))
        await type_prompt(pilot, "/context")
        await pilot.pause()
        assert any(t.startswith("Context: ") for t in notices(app))
        await type_prompt(pilot, "/mode plan")
        await pilot.pause()
        assert app.agent.approvals.mode == "plan" and app.status.mode == "plan"
        await type_prompt(pilot, "/help")
        await pilot.pause()
        assert any("/compact [instructions]" in t for t in notices(app))
        # none of these was sent as a prompt
        assert [m["content"][0]["text"] for m in app.agent.messages if m["role"] == "user"] == [
            "hello"
        ]
        await type_prompt(pilot, "/new")
        await wait_for(pilot, lambda: not app.agent.messages and not app.query(UserMessage))
        assert any(t.startswith("New session.") for t in notices(app))


async def test_unknown_words_ask_and_paths_are_prompts(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await type_prompt(pilot, "/frobnicate now")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert not app.agent.messages
        await type_prompt(pilot, "/etc/hosts what is it")
        await wait_for(pilot, lambda: bool(app.query(AssistantMessage)), timeout=30)
        assert app.agent.messages[0]["content"][0]["text"] == "/etc/hosts what is it"


async def test_a_user_command_becomes_the_prompt(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        from agent_tui.paths import config_dir

        commands = config_dir() / "commands"
        commands.mkdir(parents=True, exist_ok=True)
        (commands / "greet.md").write_text("---\ndescription: Say hello\n---\nhello $ARGUMENTS\n")
        app.slash._user_commands = None  # read the folder again
        await type_prompt(pilot, "/greet world")
        await wait_for(pilot, lambda: bool(app.agent.messages), timeout=30)
        assert app.agent.messages[0]["content"][0]["text"] == "hello world"


async def test_at_opens_the_file_picker_and_tab_completes(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        for key in "read @REA":
            await pilot.press("space" if key == " " else key)
        hints = app.query_one(SlashHints)
        await wait_for(pilot, lambda: hints.files == ["README.md"])
        await pilot.press("tab")
        assert app.query_one(PromptInput).text == "read @README.md "
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.agent.messages), timeout=30)
        content = app.agent.messages[0]["content"]
        assert content[1]["text"].startswith("Contents of README.md:\n```\n# demo")


async def test_a_command_prompt_waits_for_the_running_turn(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.on_prompt_input_submitted(PromptInput.Submitted("hello"))
        app.on_prompt_input_submitted(PromptInput.Submitted("/init"))  # a prompt-making command
        app.on_prompt_input_submitted(PromptInput.Submitted("/cost"))  # runs at once
        assert any(t.startswith("This session") or "Nothing spent" in t for t in notices(app))
        # /init's prompt waits its turn instead of starting a second one beside "hello"
        assert len(app.turns.queued) == 1 and app.turns.queued[0].startswith(
            "Please analyse this repository"
        )
        await wait_for(pilot, lambda: not app.turns.queued, timeout=60)
        prompts = [m["content"][0]["text"] for m in app.agent.messages if m["role"] == "user"]
        assert prompts[0] == "hello" and prompts[-1].startswith("Please analyse this repository")
        app.action_cancel()


async def test_export_writes_this_sessions_transcript(tmp_path: Path) -> None:
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await type_prompt(pilot, "hello")
        await wait_for(
            pilot, lambda: not app.turns.running and bool(app.agent.messages), timeout=30
        )
        target = tmp_path / "out" / "t.md"
        await type_prompt(pilot, f"/export {target}")
        await wait_for(pilot, lambda: any("Transcript written" in t for t in notices(app)))
        assert "hello" in target.read_text(encoding="utf-8")
