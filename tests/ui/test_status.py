"""The status line: tokens, the share served from the prompt cache, cost, mode, session."""

from __future__ import annotations

from textual.app import App, ComposeResult

from agent_tui.protocol.events import Usage
from agent_tui.ui.widgets.status import StatusLine


class StatusApp(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")


async def test_the_share_of_input_read_from_the_cache_is_shown() -> None:
    app = StatusApp()
    async with app.run_test(size=(140, 3)) as pilot:
        status = app.query_one(StatusLine)
        status.usage = Usage(input_tokens=100, output_tokens=50, cache_read_input_tokens=900)
        await pilot.pause()
        assert "90% cached" in str(status.render())
        status.usage = Usage(input_tokens=100, output_tokens=50)
        await pilot.pause()
        assert "cached" not in str(status.render())


def test_context_windows_come_from_the_data_file() -> None:
    from agent_tui.agent.context import context_used, context_window

    assert context_window("claude-sonnet-4-5") == 200_000
    assert context_window("us.anthropic.claude-opus-4-1-v1:0") == 200_000
    assert context_window("something-new") == 200_000
    assert context_used(Usage(100, 20, 30, 50)) == 200


async def test_how_full_the_context_is_shows_after_each_response(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from app_helpers import make_app, wait_for

    from agent_tui.ui.widgets.prompt import PromptInput

    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENT_TUI_OFFLINE_DELAY", "0")
    app = make_app(tmp_path)
    async with app.run_test(size=(140, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.on_prompt_input_submitted(PromptInput.Submitted("hello"))
        await wait_for(pilot, lambda: not app.turns.running and app.status.context is not None, 30)
        assert "context " in str(app.status.render())
