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
