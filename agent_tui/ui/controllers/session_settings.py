"""What the person changes about the running session: the model (`/model`, the palette), extended
thinking (alt+t, `/thinking`), compaction now (`/compact`), and what they look at about it — the
MCP servers (`/mcp`) and the sandbox (`/sandbox`). It also starts and stops the MCP servers with
the session. A collaborator of the app, through a small host protocol (`SettingsHost`)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.ui.chat.messages import NoticeMessage

if TYPE_CHECKING:
    from textual.app import App

    from agent_tui.agent.loop import Agent
    from agent_tui.sessions.recorder import Recorder
    from agent_tui.ui.chat.messages import ChatView
    from agent_tui.ui.controllers.turns import TurnController
    from agent_tui.ui.widgets.status import StatusLine


class SettingsHost(Protocol):
    """What the session's settings need of the app besides Textual's `App` API."""

    agent: Agent | None
    recorder: Recorder | None
    turns: TurnController

    @property
    def chat(self) -> ChatView: ...

    @property
    def status(self) -> StatusLine: ...


class SessionSettings:
    def __init__(self, app: App[Any], host: SettingsHost) -> None:
        self.app = app
        self.host = host

    # --- the model and thinking ---

    def toggle_thinking(self) -> None:
        agent = self.host.agent
        if agent is None:
            return
        config = agent.config
        config.thinking_budget = None if config.thinking_budget else config.thinking_default
        self.host.status.thinking = config.thinking_budget or 0
        from agent_tui.models import info, thinks_adaptively

        row = info(config.model)
        if row is not None and row.thinking == "always":
            self.app.notify(f"{row.name} always thinks (adaptive thinking can't be turned off).")
        elif thinks_adaptively(config.model):
            state = "on" if config.thinking_budget else "off"
            self.app.notify(f"Adaptive thinking {state} from the next request.")
        else:
            state = f"on ({config.thinking_budget:,} tokens)" if config.thinking_budget else "off"
            self.app.notify(f"Extended thinking {state} from the next request.")

    def switch_model(self) -> None:
        """Ask which model to use from the next request on."""
        from agent_tui.ui.screens.confirm import AskTextScreen

        agent = self.host.agent
        if agent is None or agent.provider.name == "offline":
            self.app.notify("The offline model has no other models to switch to.")
            return

        def chosen(model: str | None) -> None:
            if model and self.host.agent is not None and model != self.host.agent.config.model:
                self.use_model(model)

        from agent_tui.agent.model_list import listing

        lines = "\n".join(listing(agent.config.model))
        self.host.chat.append(
            NoticeMessage(f"Models (an alias or an id; MODEL[1m]):\n{lines}", "info")
        )
        self.app.push_screen(
            AskTextScreen("Model for the next requests:", agent.config.model), chosen
        )

    def use_model(self, model: str) -> None:
        """Switch the model from the next request on, and say that the cache starts anew."""
        agent = self.host.agent
        assert agent is not None
        if agent.provider.name == "offline":
            self.app.notify("The offline model has no other models to switch to.")
            return
        from agent_tui.models import resolve

        model = resolve(model)  # `opus`, `sonnet[1m]`: Claude Code's aliases
        agent.switch_model(model)
        self.host.status.model = model
        if self.host.recorder is not None:
            self.host.recorder.system_prompt_changed()
        self.host.chat.append(
            NoticeMessage(
                f"Model switched to {model}; the prompt cache starts anew for it.", "info"
            )
        )

    # --- compaction ---

    def compact(self, instructions: str | None = None) -> None:
        """`/compact`: summarise the older turns now; without instructions, ask for them
        (optional)."""
        from agent_tui.ui.screens.confirm import AskTextScreen

        agent, turns = self.host.agent, self.host.turns
        if instructions:
            if agent is not None and not turns.running:
                turns.run(partial(agent.compact, instructions))
            return
        if agent is None or turns.running:
            self.app.notify("Wait for the current turn to end, then compact.")
            return
        if not agent.messages:
            self.app.notify("Nothing to compact: the conversation is empty.")
            return

        def chosen(instructions: str | None) -> None:
            agent = self.host.agent
            if instructions is None or agent is None or turns.running:
                return
            turns.run(partial(agent.compact, instructions.strip()))

        self.app.push_screen(
            AskTextScreen("Compact the conversation. What should the summary keep? (optional)", ""),
            chosen,
        )

    # --- MCP servers and the sandbox ---

    def start_mcp(self) -> None:
        """Start the configured MCP servers (after the first frame; never waited for)."""
        setup = self.host.agent.mcp if self.host.agent is not None else None
        if setup is None:
            return
        for warning in setup.warnings:
            self.host.chat.append(NoticeMessage(f"MCP: {warning}", "warning"))
        if setup.manager is not None:
            setup.manager.start()

    async def stop_mcp(self) -> None:
        setup = self.host.agent.mcp if self.host.agent is not None else None
        if setup is not None and setup.manager is not None:
            await setup.manager.stop()

    def mcp_status(self) -> None:
        from agent_tui.ui.screens.mcp import McpScreen

        agent = self.host.agent
        self.app.push_screen(McpScreen(agent.mcp if agent is not None else None))

    def sandbox(self) -> None:
        """`/sandbox` (and the palette): the sandbox as it stands, or why there is none."""
        sandbox = self.host.agent.config.sandbox if self.host.agent is not None else None
        if sandbox is None:
            text = "The session is still starting; ask again in a moment."
        else:
            text = "Sandbox\n" + sandbox.describe()
        self.host.chat.append(NoticeMessage(text, "info"))
