"""What the app's mixins (`boot`) may use of `AgentApp`:
declared once here, so each mixin type-checks on its own, and the main screen's parts reached
through it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

from agent_tui.ui.screens.main import MainScreen

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.ui.views.event_view import EventView
    from agent_tui.ui.widgets.chat import ChatView
    from agent_tui.ui.widgets.status import StatusLine


class AppParts(App[int]):
    agent: Agent | None
    #: draws the agent's events (made once the side pane is mounted, see `_agent_ready`)
    view: EventView | None = None

    @property
    def main(self) -> MainScreen:
        """The main screen (whatever dialog is on top of it)."""
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    @property
    def chat(self) -> ChatView:
        return self.main.chat

    @property
    def status(self) -> StatusLine:
        return self.main.status

    @property
    def live_view(self) -> EventView:
        assert self.view is not None, "the side pane is mounted before the agent starts"
        return self.view
