"""The app's session commands: browse past sessions (ctrl+o, the palette), resume one in place,
replay one on screen. A mixin of `AgentApp`, kept apart so the app module reads top-down as
keystroke → agent → events → screen."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand
from textual.screen import Screen

from agent_tui.ui.app_parts import AppParts
from agent_tui.ui.widgets.chat import NoticeMessage
from agent_tui.ui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from agent_tui.runtime import Options
    from agent_tui.sessions.recorder import Recorder
    from agent_tui.sessions.records import SessionInfo
    from agent_tui.sessions.store import SessionStore
    from agent_tui.ui.controllers.replay import Replay
    from agent_tui.ui.controllers.turns import TurnController
    from agent_tui.ui.screens.sessions import BrowserChoice
    from agent_tui.ui.views.event_view import EventView


class SessionActions(AppParts):
    # Provided by AgentApp.
    options: Options
    record: bool
    recorder: Recorder | None
    replay: Replay | None
    _pending_choice: BrowserChoice | None
    _store: SessionStore | None
    _store_lock: threading.Lock

    _runs: dict[str, Any]
    turns: TurnController
    make_view: Callable[[], EventView]

    # Declared, not defined: `AgentApp` and `Boot` (a yes/no from a worker thread) define them.
    _show_history: Callable[..., None]
    _ask_from_boot: Callable[[str], bool]

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Sessions: browse",
            "Find a past session; resume, replay, export or delete it",
            self.action_sessions,
        )
        yield SystemCommand(
            "Undo: the last turn's file changes",
            "Put back what the last turn changed on disk, after a preview (/undo)",
            self.action_undo,  # type: ignore[attr-defined]
        )
        yield SystemCommand(
            "Rewind: to an earlier prompt",
            "Go back to before a prompt: its files, the conversation, or both (/rewind)",
            self.action_rewind,  # type: ignore[attr-defined]
        )
        yield SystemCommand(
            "Permissions: rules in force",
            "The rules by source, how often each fired; delete one (/permissions)",
            self.action_permissions,  # type: ignore[attr-defined]
        )
        yield SystemCommand(
            "Context: compact",
            "Summarise the older turns now to free context (/compact)",
            self.action_compact,
        )
        yield SystemCommand(
            "MCP: servers",
            "The MCP servers: connected, failed or waiting, and their tools (/mcp)",
            self.action_mcp_status,
        )
        yield SystemCommand(
            "Sandbox: status",
            "The OS sandbox: backend, mode, writable / hidden paths, network (/sandbox)",
            self.action_sandbox,  # type: ignore[attr-defined]
        )
        yield SystemCommand(
            "Thinking: on/off",
            "Toggle extended thinking for the next requests (alt+t)",
            self.action_toggle_thinking,
        )
        yield SystemCommand(
            "Model: switch",
            "Use another model from the next request on (the prompt cache starts anew)",
            self.action_switch_model,
        )

    def action_compact(self) -> None:
        """`/compact`: summarise the older turns now, with optional instructions."""
        from functools import partial

        from agent_tui.ui.screens.confirm import AskTextScreen

        agent = self.agent
        if agent is None or self.turns.running:
            self.notify("Wait for the current turn to end, then compact.")
            return
        if not agent.messages:
            self.notify("Nothing to compact: the conversation is empty.")
            return

        def chosen(instructions: str | None) -> None:
            if instructions is None or self.agent is None or self.turns.running:
                return
            self.turns.run(partial(self.agent.compact, instructions.strip()))

        self.push_screen(
            AskTextScreen("Compact the conversation. What should the summary keep? (optional)", ""),
            chosen,
        )

    def start_mcp(self) -> None:
        """Start the configured MCP servers (after the first frame; never waited for)."""
        setup = self.agent.mcp if self.agent is not None else None
        for warning in getattr(setup, "warnings", ()):
            self.chat.append(NoticeMessage(f"MCP: {warning}", "warning"))
        if setup is not None and setup.manager is not None:
            setup.manager.start()

    async def stop_mcp(self) -> None:
        setup = self.agent.mcp if self.agent is not None else None
        if setup is not None and setup.manager is not None:
            await setup.manager.stop()

    def action_mcp_status(self) -> None:
        from agent_tui.ui.screens.mcp import McpScreen

        self.push_screen(McpScreen(self.agent.mcp if self.agent is not None else None))

    def action_toggle_thinking(self) -> None:
        agent = self.agent
        if agent is None:
            return
        config = agent.config
        config.thinking_budget = None if config.thinking_budget else config.thinking_default
        self.status.thinking = config.thinking_budget or 0
        state = f"on ({config.thinking_budget:,} tokens)" if config.thinking_budget else "off"
        self.notify(f"Extended thinking {state} from the next request.")

    def action_switch_model(self) -> None:
        from agent_tui.ui.screens.confirm import AskTextScreen

        agent = self.agent
        if agent is None or agent.provider.name == "offline":
            self.notify("The offline model has no other models to switch to.")
            return

        def chosen(model: str | None) -> None:
            if model and self.agent is not None and model != self.agent.config.model:
                self.use_model(model)

        self.push_screen(AskTextScreen("Model for the next requests:", agent.config.model), chosen)

    def session_store(self) -> SessionStore:
        """The recorder's store, or one opened just for browsing (callable from any thread)."""
        if self.recorder is not None:
            return self.recorder.store
        with self._store_lock:
            if self._store is None:
                from agent_tui.sessions.store import SessionStore

                self._store = SessionStore.open_default()
            return self._store

    def use_model(self, model: str) -> None:
        """Switch the model from the next request on, and say that the cache starts anew."""
        assert self.agent is not None
        if self.agent.provider.name == "offline":
            self.notify("The offline model has no other models to switch to.")
            return
        self.agent.switch_model(model)
        self.status.model = model
        if self.recorder is not None:
            self.recorder.system_prompt_changed()
        self.chat.append(
            NoticeMessage(
                f"Model switched to {model}; the prompt cache starts anew for it.", "info"
            )
        )

    def action_sessions(self) -> None:
        self.browse_sessions()

    def browse_sessions(self, review: str | None = None) -> None:
        """The sessions browser, optionally with an audit filter ("rule:<rule>", "denied"…)."""
        from agent_tui.ui.screens.sessions import SessionBrowser

        if isinstance(self.screen, SessionBrowser):
            return
        current = self.recorder.session_id if self.recorder is not None else None
        browser = SessionBrowser(
            self.session_store, cwd=self.options.cwd, current_session=current, review=review
        )
        self.push_screen(browser, self._on_browser_choice)

    def _on_browser_choice(self, choice: BrowserChoice | None) -> None:
        if choice is None:
            return
        if self.agent is None:  # still starting (the `--resume` picker): act once it is ready
            self._pending_choice = choice
            self.notify("Starting up: opening the session in a moment.")
        elif choice.action == "resume":
            self.resume_session(choice.session_id)
        else:
            self.replay_session(choice.session_id)

    def _busy(self) -> bool:
        if self.agent is None:
            self.notify("Starting up: try again in a moment.")
        elif self.agent.running:
            self.notify("A turn is running: stop it first (Esc).", severity="warning")
        return self.agent is None or self.agent.running

    def resume_session(self, session_id: str) -> None:
        """Continue a stored session here: its conversation replaces the agent's, and recording
        goes on in that session."""
        if self._busy():
            return
        here = self.recorder is not None and self.recorder.session_id == session_id
        if here and self.replay is None:
            self.notify("That is the session you are in.")
            return
        if self.replay is not None:
            self.replay.discard()
        self.status.activity = f"opening session {session_id}…"
        load = partial(self._load_session, session_id)
        self.run_worker(load, thread=True, group="resume", exclusive=True, exit_on_error=False)

    def _load_session(self, session_id: str) -> None:
        from agent_tui.sessions.faults import STORE_ERRORS, describe
        from agent_tui.sessions.recorder import resume_into
        from agent_tui.sessions.records import StoreUnavailable
        from agent_tui.sessions.session_lock import SessionInUse

        agent = self.agent
        assert agent is not None, "sessions are resumed once the agent is built (`_busy`)"
        try:
            store = self.session_store()
            info = store.get_session(session_id)
            if info is None:
                self.call_from_thread(self._not_resumed, f"No session {session_id}.")
                return
            runs = stored_runs(store, session_id)
            old = self.recorder
            if self.record:
                backlog = old.backlog if old is not None else None
                try:
                    recorder = resume_into(store, agent, session_id, backlog=backlog)
                except SessionInUse as exc:  # another agent-tui records it: a copy, or nothing
                    if not self._ask_from_boot(f"{exc}. Go on in a copy of it (a fork)?"):
                        self.call_from_thread(self._not_resumed, f"Not resumed: {exc}.")
                        return
                    recorder = resume_into(store, agent, session_id, backlog=backlog, fork=True)
                    info = store.get_session(recorder.session_id or session_id) or info
                if old is not None:
                    old.detach()
            else:
                agent.conversation.messages[:] = store.load_messages(session_id)
                recorder = None
        except StoreUnavailable as exc:
            self.call_from_thread(self._not_resumed, f"Could not resume: {exc}.")
            return
        except STORE_ERRORS as exc:
            self.call_from_thread(self._not_resumed, f"Could not resume: {describe(exc)}.")
            return
        self.call_from_thread(self._session_loaded, recorder, info, runs)

    def _not_resumed(self, problem: str) -> None:
        self.notify(problem, severity="error", markup=False)
        self.status.activity = "ready"

    def _session_loaded(
        self, recorder: Recorder | None, info: SessionInfo, runs: dict[str, Any]
    ) -> None:
        self._runs = runs
        if recorder is not None:
            self.recorder = recorder
            self.status.session = info.id
        # The status line counts the whole session, as it would have had it never stopped.
        if self.agent is not None:
            self.agent.set_session_spend(info.usage, info.cost_usd)  # the cap's count too
        self.live_view.set_totals(info.usage, info.cost_usd)
        self.status.activity = "ready"
        self.call_later(self._show_resumed)

    async def _show_resumed(self) -> None:
        await self.redraw_conversation(notice="Session resumed.")
        self.query_one(PromptInput).focus()

    async def redraw_conversation(self, *, history: bool = True, notice: str | None = None) -> None:
        """Clear the chat and side panes, then draw the agent's conversation again."""
        await self.live_view.clear()
        self.live_view.show_totals()
        recorder = self.recorder
        self.status.session = recorder.session_id or "" if recorder is not None else ""
        if history and self.agent is not None and self.agent.messages:
            self._show_history(notice)
        self.chat.anchor()

    def replay_session(self, session_id: str, speed: float = 1.0) -> Replay | None:
        """Play a stored session's events on this screen (see `replay.py`); nothing is run."""
        from agent_tui.ui.controllers.replay import Replay

        if self._busy():
            return None
        if self.replay is not None:
            self.replay.discard()
        self.replay = Replay(self, session_id, speed)
        self.replay.start()
        return self.replay


def stored_runs(store: SessionStore, session_id: str) -> dict[str, Any]:
    """A session's recorded tool runs by tool_use_id (call from a worker thread)."""
    return {run.tool_use_id: run for run in store.load_tool_runs(session_id)}


def decisions_of(runs: dict[str, Any]) -> list[Any]:
    """`ApprovalDecided` events rebuilt from stored tool runs, oldest first."""
    from agent_tui.protocol.events import ApprovalDecided
    from agent_tui.tools.subject import tool_subject

    return [
        ApprovalDecided(
            run.tool_use_id,
            run.tool,
            tool_subject(run.tool, run.input),
            run.decision,
            run.decided_by or "rule",
            run.rule,
        )
        for run in runs.values()
        if run.decision in ("allow", "deny")
    ]
