"""What the app's mixins (`session_actions`, `view_actions`) may use of `AgentApp`: declared
once here, so each mixin type-checks on its own and `AgentApp` provides the real thing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.ui.event_view import EventView
    from agent_tui.ui.widgets.chat import ChatView
    from agent_tui.ui.widgets.status import StatusLine


class AppParts(App[int]):
    agent: Agent | None

    @property
    def chat(self) -> ChatView:
        raise NotImplementedError

    @property
    def status(self) -> StatusLine:
        raise NotImplementedError

    @property
    def live_view(self) -> EventView:
        raise NotImplementedError
