"""Claude Code's `AskUserQuestion`: its input schema; the dialog answered with a number key,
several ticked with multiSelect, or typed text, Esc declining, keys typed as it appears not
counting; through the app at the loopback API the answers are the tool result the model
reads; and headless, with no one to ask, it is refused with "no one to ask"."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from app_helpers import type_prompt, wait_for
from scripted_calls import calls_then_done, setup, tool_results
from sse_server import SSEServer, run_agent_tui, use_loopback_api
from textual.app import App, ComposeResult
from textual.widgets import Static

from agent_tui.runtime import Options
from agent_tui.tools.base import ToolContext, ToolInputError
from agent_tui.tools.builtin.ask_user import AskUserQuestionTool
from agent_tui.ui.app import AgentApp
from agent_tui.ui.screens.question import QuestionScreen

LIBRARY = {
    "question": "Which HTTP library should the client use?",
    "header": "Library",
    "options": [
        {"label": "httpx (Recommended)", "description": "async and sync, already a dependency"},
        {"label": "requests", "description": "sync only"},
    ],
    "multiSelect": False,
}
CHECKS = {
    "question": "Which checks should CI run?",
    "header": "CI",
    "options": [
        {"label": "ruff", "description": "lint"},
        {"label": "mypy", "description": "types"},
        {"label": "pytest", "description": "tests"},
    ],
    "multiSelect": True,
}


def test_the_schema_is_claude_codes() -> None:
    schema = AskUserQuestionTool().schema()["input_schema"]
    assert schema["required"] == ["questions"]
    item = schema["$defs"]["Question"]
    assert item["required"] == ["question", "header", "options", "multiSelect"]
    assert schema["$defs"]["QuestionOption"]["required"] == ["label", "description"]
    tool = AskUserQuestionTool()
    for bad in (
        {"questions": []},
        {"questions": [{**LIBRARY, "options": LIBRARY["options"][:1]}]},
        {"questions": [LIBRARY, LIBRARY]},
        {"questions": [{**LIBRARY, "options": [LIBRARY["options"][0]] * 2}]},
    ):
        with pytest.raises(ToolInputError):
            tool.validate(bad)


def test_with_no_one_to_ask_it_is_refused(tmp_path: Path) -> None:
    tool = AskUserQuestionTool()
    out = asyncio.run(
        tool.run(tool.validate({"questions": [LIBRARY]}), ToolContext(tmp_path, tmp_path))
    )
    assert out.is_error and "no one to ask" in out.content


class Host(App[None]):
    def __init__(self, screen: QuestionScreen) -> None:
        super().__init__()
        self.dialog = screen
        self.answers: list[Any] = []

    def compose(self) -> ComposeResult:
        yield Static("main")

    def on_mount(self) -> None:
        self.push_screen(self.dialog, self.answers.append)


async def test_a_number_key_ticks_and_enter_and_text_answer() -> None:
    app = Host(QuestionScreen([LIBRARY, CHECKS, {**LIBRARY, "question": "Why?"}], guard_s=0))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "1. httpx (Recommended) — async and sync" in str(
            app.screen.query_one("#options", Static).render()
        )
        await pilot.press("2")  # requests
        await pilot.press("1", "3", "enter")  # ruff and pytest
        await pilot.pause()
        for key in "speed":
            await pilot.press(key)
        await pilot.press("enter")
        await pilot.pause()
    assert app.answers == [
        {
            "Which HTTP library should the client use?": "requests",
            "Which checks should CI run?": "ruff, pytest",
            "Why?": "speed",
        }
    ]


async def test_escape_declines_and_early_keys_do_nothing() -> None:
    now = [100.0]
    app = Host(QuestionScreen([LIBRARY], guard_s=0.5, clock=lambda: now[0]))
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("1")  # meant for the prompt
        await pilot.pause()
        assert app.answers == []
        now[0] += 1
        await pilot.press("escape")
        await pilot.pause()
    assert app.answers == [None]


async def test_through_the_app_the_answer_is_the_tool_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    async with SSEServer(calls_then_done(("AskUserQuestion", {"questions": [LIBRARY]}))) as server:
        use_loopback_api(monkeypatch, server.url)
        app = AgentApp(Options(cwd=work), record=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.agent is not None, timeout=30)
            await type_prompt(pilot, "write a client")
            await wait_for(pilot, lambda: isinstance(app.screen, QuestionScreen), timeout=30)
            app.screen.guard_s = 0
            await pilot.press("1")
            await wait_for(pilot, lambda: len(server.requests) >= 2, timeout=30)
        [result] = tool_results(server)
    assert result == (
        'User has answered your questions: "Which HTTP library should the client use?"='
        '"httpx (Recommended)". You can now continue with the user\'s answers in mind.'
    )


async def test_headless_refuses_it(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    async with SSEServer(calls_then_done(("AskUserQuestion", {"questions": [LIBRARY]}))) as api:
        code, _out, err = await run_agent_tui(api, work, home, "-p", "write a client")
        assert code == 0, err.decode()
        [result] = tool_results(api)
        last = api.requests[1].json["messages"][-1]["content"][0]
    assert "There is no one to ask" in result and last["is_error"] is True
    assert json.dumps(last)
