"""The Textual application: chat, tool-progress pane, approvals, prompt and status line.

The app consumes the agent's typed events (it never touches the SDK) and answers the one question
the core asks — approvals — through the `ApprovalQueue`. The agent's turn runs as a worker in the
app's event loop, so events arrive on the UI's own thread.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import TextArea

from agent_tui.runtime import Options, offline_reason
from agent_tui.ui.controllers.modes import PermissionModes
from agent_tui.ui.controllers.notifier import load_notifier
from agent_tui.ui.controllers.palette import palette_commands
from agent_tui.ui.controllers.session_settings import SessionSettings
from agent_tui.ui.controllers.sessions import Sessions
from agent_tui.ui.controllers.shortcuts import PromptShortcuts
from agent_tui.ui.controllers.slash_commands import SlashCommands
from agent_tui.ui.controllers.turns import TurnController
from agent_tui.ui.controllers.undo_flow import UndoFlow
from agent_tui.ui.screens.main import MainScreen
from agent_tui.ui.startup import css_cache
from agent_tui.ui.startup.boot import Boot
from agent_tui.ui.startup.gc_tuning import idle_collector
from agent_tui.ui.widgets.chat import NoticeMessage
from agent_tui.ui.widgets.prompt import PromptInput

#: two Esc presses this close together (nothing running, nothing typed) open /rewind
DOUBLE_ESCAPE_S = 0.8

# The first frame is the chat, the prompt and the status line; everything else (event classes,
# the tool pane, the approvals log, tool blocks) is imported once it has been painted.
if TYPE_CHECKING:
    from textual.worker import Worker

    from agent_tui.agent.loop import Agent
    from agent_tui.permissions.types import ApprovalAnswer, ApprovalRequest
    from agent_tui.protocol.events import Event
    from agent_tui.sessions.recorder import Recorder
    from agent_tui.ui.controllers.approval_queue import ApprovalQueue
    from agent_tui.ui.views.event_view import EventView

STYLES = Path(__file__).parent / "styles"


class AgentApp(Boot):
    TITLE = "agent-tui"
    # Each screen names its own `.tcss`; the app, its own and its widgets' (parsed: `css_cache`).
    CSS_PATH = [
        STYLES / "app.tcss",
        STYLES / "tool_pane.tcss",
        STYLES / "tool_blocks.tcss",
        STYLES / "approvals_log.tcss",
        STYLES / "key_footer.tcss",
    ]
    # Below 100 columns the screen gets `-narrow`: the side pane yields (ctrl+t still shows it).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    # The footer lists priority bindings first, so F1 survives an 80-column terminal.
    BINDINGS = [
        Binding("f1", "help", "Help", show=True, priority=True),
        Binding("escape", "cancel", "Stop", show=True),
        Binding("ctrl+c", "copy_or_cancel", "Copy / Stop", show=False, priority=True),
        Binding("ctrl+r", "retry", "Retry", show=False),
        Binding("ctrl+t", "toggle_tools", "Tools", show=True),
        Binding("alt+t", "toggle_thinking", "Thinking", show=False),
        Binding("alt+k", "focus_shells", "Background shells", show=False),
        Binding("ctrl+o", "sessions", "Sessions", show=True),
        # Priority: the screen's own shift+tab (focus the previous widget) would shadow it.
        Binding("shift+tab", "cycle_mode", "Mode", show=True, priority=True),
        Binding("ctrl+q", "quit", "Quit", show=True, priority=True),
        # Priority over the prompt box's own page keys: the chat is what there is to scroll.
        Binding("pageup", "scroll_chat('page_up')", show=False, priority=True),
        Binding("pagedown", "scroll_chat('page_down')", show=False, priority=True),
        Binding("ctrl+home", "scroll_chat('home')", show=False, priority=True),
        Binding("ctrl+end", "scroll_chat('end')", show=False, priority=True),
    ]

    def __init__(
        self,
        options: Options | None = None,
        *,
        record: bool | None = None,
        tune_collector: bool = False,
    ) -> None:
        super().__init__()
        self.tune_collector = tune_collector
        self._css_loaded = css_cache.load(self.stylesheet)  # before anything is styled
        self.options = options or Options()
        #: why this session runs on the offline model (None: it talks to an API)
        self.offline = offline_reason(self.options)
        self.record = self.options.record if record is None else record
        # Built after the first frame, in a worker thread (`_boot`); what only the first turn
        # needs (the tools and pydantic, tree-sitter, the SDK) loads after that (`warm_up`).
        self.agent: Agent | None = None
        self.recorder: Recorder | None = None
        self.approvals: ApprovalQueue | None = None
        #: the one owner of "a turn is running": prompts, the queue, retry, cancel
        self.turns = TurnController(self, self, after_turn=self._after_turn)
        #: /undo, /rewind and /permissions (their previews, restores and the forked session)
        self.undo = UndoFlow(self, self)
        #: the permission mode as the person switches it (Shift+Tab, /mode)
        self.modes = PermissionModes(self, self)
        self.shortcuts = PromptShortcuts(self, self)
        self._last_escape = 0.0  # when Esc was last pressed with nothing to stop (Esc Esc)
        self.notifier = load_notifier(self._write_terminal)
        #: past sessions: the store, browse, resume, replay, new, export
        self.sessions = Sessions(self, self)
        #: the model, thinking, compaction, MCP servers and the sandbox
        self.settings = SessionSettings(self, self)
        #: /commands, their hints as the person types and Tab's completion (also of `@file`)
        self.slash = SlashCommands(self, self)
        #: printed by the command line after the app exits (how to come back to this session)
        self.resume_hint = ""

    # --- layout ------------------------------------------------------------------------------

    def get_default_screen(self) -> MainScreen:
        model = "offline model" if self.offline else (self.options.model or "…")
        return MainScreen(
            model=model, mode=self.options.mode, offline=self.offline, mounted=self.main_mounted
        )

    def make_view(self) -> EventView:
        return self.main.make_view()

    def main_mounted(self) -> None:
        """The main screen's widgets are mounted and styled, its first frame not yet painted."""
        self.keep_first_screen_css()
        self.query_one(PromptInput).focus()
        self.call_after_refresh(self._start_boot)
        if self.options.resume == "" and self.record:  # `--resume` without an id: pick one
            self.call_after_refresh(self.action_sessions)

    def _agent_ready(
        self,
        agent: Agent,
        recorder: Recorder | None,
        approvals: ApprovalQueue,
        error: str | None,
    ) -> None:
        self.agent, self.recorder, self.approvals = agent, recorder, approvals
        # After the agent, so a prompt is taken sooner (it has no events yet).
        self.view = self.main.mount_side()
        if agent.config.shells is not None:
            self.main.tool_pane.shells.follow(agent.config.shells)
        agent.listeners.append(self._on_agent_event)
        from agent_tui.agent.context import context_window

        self.live_view.window = context_window(agent.config.model)
        self.live_view.page_from(
            lambda: (self.agent.messages if self.agent else [], self.sessions.runs)
        )
        if agent.session_cost or agent.session_usage.total_tokens:  # a resumed session
            self.live_view.set_totals(agent.session_usage, agent.session_cost)
        status = self.status
        status.model = agent.provider.label
        status.thinking = agent.config.thinking_budget or 0
        status.activity = "ready"
        if recorder is not None and recorder.session_id:
            status.session = recorder.session_id
        if error:
            self.chat.append(NoticeMessage(error, "error"))
        if agent.memory_files and not agent.messages:
            names = ", ".join(m.label for m in agent.memory_files)
            self.chat.append(NoticeMessage(f"Memory loaded: {names}", "info"))
        for warning in getattr(agent.permissions, "load_warnings", ()):
            self.chat.append(NoticeMessage(f"Settings: {warning}", "warning"))
        if grants := getattr(agent.permissions, "trust_question", ()):
            from agent_tui.ui.screens.trust import TrustScreen

            self.push_screen(TrustScreen(str(self.options.cwd), grants), self._on_trust)
        self.sessions.agent_ready()  # a resumed session's history
        if self.options.initial_prompt:  # `agent-tui "PROMPT"`: sent as if typed, once
            first, self.options.initial_prompt = self.options.initial_prompt, None
            self.on_prompt_input_submitted(PromptInput.Submitted(first))
        self.call_later(self.turns.next_queued)
        self.settings.start_mcp()
        self.sessions.take_pending()  # chosen in the `--resume` picker meanwhile

    def _on_trust(self, trusted: bool | None) -> None:
        from agent_tui.permissions.engine import PermissionEngine  # loaded with the agent

        agent = self.agent
        assert agent is not None, "the trust question is asked once the agent is built"
        if isinstance(agent.permissions, PermissionEngine):
            agent.permissions.decide_trust(bool(trusted))
        if trusted:
            self.notify("This project's settings now apply.")
            if agent.mcp is not None:
                agent.mcp.start_pending()
        else:
            self.chat.append(
                NoticeMessage(
                    "This project's own grants are ignored; its deny and ask rules apply.", "info"
                )
            )

    # --- prompts and turns -------------------------------------------------------------------

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        """Enter in the prompt box: "r" retries a failed turn, a `/command` runs, anything else
        is a prompt for the turn controller (sent now, or queued behind the running turn)."""
        self._last_escape = 0.0  # an Esc before this prompt and one after it are not Esc Esc
        text = message.text
        if text.strip() == "r" and self.turns.can_retry():
            self.turns.retry()
            return
        if text.startswith("/") and self.slash.handle(text):
            return
        if self.shortcuts.handle(text):  # `!command`, `#note`
            return
        self.turns.send(text)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if isinstance(event.text_area, PromptInput):  # a `/command` or `@file` half typed
            self.slash.update_hints(event.text_area.text)

    def on_prompt_input_tab_pressed(self, message: PromptInput.TabPressed) -> None:
        self.slash.complete()

    async def run_async(
        self, *, headless: bool = False, size: tuple[int, int] | None = None, **kwargs: Any
    ) -> int | None:
        """Run headless at the size the headless driver reports. Without one, Textual's driver
        says 80×24 and its Rich console 80×25, and the first frame is laid out and painted three
        times (24, 25, 24 rows) instead of once. A real terminal gives both the same size."""
        if headless and size is None:
            columns, lines = shutil.get_terminal_size()  # what HeadlessDriver asks, too
            size = (columns, lines)
        return await super().run_async(headless=headless, size=size, **kwargs)

    # --- keys: bound here (the keys line lists them in this order), done by their owners ---

    def action_scroll_chat(self, where: str) -> None:
        self.main.action_scroll_chat(where)

    def action_toggle_tools(self) -> None:
        self.main.action_toggle_tools()

    def action_focus_shells(self) -> None:
        self.main.action_focus_shells()

    def action_sessions(self) -> None:
        self.sessions.browse()

    def action_toggle_thinking(self) -> None:
        self.settings.toggle_thinking()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from palette_commands(self.sessions, self.undo, self.settings)

    def action_cycle_mode(self) -> None:
        self.modes.cycle()

    def action_help(self) -> None:
        from agent_tui.ui.screens.help import HelpScreen, editing_keys

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
            return
        self.push_screen(HelpScreen(editing_keys(PromptInput.BINDINGS)))

    # --- what the undo flow does, by key, palette and /command ---

    def action_undo(self) -> None:
        self.undo.undo()

    def action_rewind(self) -> None:
        self.undo.rewind()

    def action_permissions(self) -> None:
        self.undo.permissions()

    def action_retry(self) -> None:
        self._last_escape = 0.0
        self.turns.retry()

    def action_cancel(self) -> None:
        if (replay := self.sessions.replay) is not None:  # Esc stops (or leaves) a replay
            self.call_later(replay.bar.action_escape)
            return
        prompt = self.query_one(PromptInput)
        if self.turns.cancel():
            self._last_escape = 0.0
            return
        # Esc Esc with nothing running and nothing typed opens /rewind, as in Claude Code.
        now = time.monotonic()
        if now - self._last_escape <= DOUBLE_ESCAPE_S and not prompt.text and self._has_prompts():
            self._last_escape = 0.0
            self.undo.rewind()
            return
        self._last_escape = now
        if self.screen.focused is not prompt:
            prompt.focus()

    def action_copy_or_cancel(self) -> None:
        """Ctrl+C: copy the selection when there is one (chat text selected with the mouse, or
        text selected in the prompt), through OSC 52 so it works over ssh and in tmux; else stop
        the running turn as Esc does."""
        text = self.screen.get_selected_text() or ""
        focused = self.screen.focused
        if not text and isinstance(focused, TextArea):
            text = focused.selected_text
        if not text:
            self.action_cancel()
            return
        self.copy_to_clipboard(text)
        self.screen.clear_selection()
        self.notify(f"Copied {len(text):,} characters.")

    def _has_prompts(self) -> bool:
        return self.agent is not None and bool(self.agent.messages)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Over a dialog or the session browser, shift+tab and the page keys are theirs again.
        return not (action in ("cycle_mode", "scroll_chat") and len(self.screen_stack) > 1)

    async def _ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.status.activity = f"waiting for your approval: {request.tool}"
        assert self.approvals is not None, "the agent asks only once it is built"
        try:
            return await self.approvals.ask(self, request)
        finally:
            self.status.activity = "working…"

    # --- events from the agent ---------------------------------------------------------------

    def _on_agent_event(self, event: Event) -> None:
        if not self.is_running:
            return
        self.live_view.handle(event)
        recorder = self.recorder
        if event.kind in ("turn_finished", "notice") and recorder is not None:
            # "not recorded" while the store fails (`sessions/backlog.py`), the id once it works
            unrecorded = recorder.unrecorded
            label = recorder.session_id or ("new session" if unrecorded else "")
            self.status.session = f"{label} (not recorded)" if unrecorded else label
        if event.kind == "turn_finished":
            self.turns.finished()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        from textual.worker import WorkerState

        if event.state is WorkerState.ERROR:
            self.turns.worker_failed(event.worker)

    def _write_terminal(self, text: str) -> None:
        if not self.is_headless and self._driver is not None:
            self._driver.write(text)

    def _after_turn(self) -> None:
        """The answer is painted: a long turn's end is announced; let go of what is far off
        screen, and collect when due."""
        self.notifier.turn_ended(self.turns.last_s)
        self.chat.trim_offscreen()
        if self.tune_collector:
            idle_collector.after_turn()

    async def action_quit(self) -> None:
        if self.agent is not None:
            self.agent.cancel()
            if self.agent.config.shells is not None:  # quitting kills every background shell
                await self.agent.config.shells.kill_all()
            await self.settings.stop_mcp()
            if self.agent.config.sandbox is not None:
                self.agent.config.sandbox.close()
        if self.recorder is not None:
            if session_id := self.recorder.session_id:
                self.resume_hint = f"Resume this session: agent-tui --resume {session_id}"
            self.recorder.close()
        self.exit(0)
