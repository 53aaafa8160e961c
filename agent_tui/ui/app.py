"""The Textual application: the wiring of the main screen, the keys and the app's collaborators.

The app consumes the agent's typed events (it never touches the SDK) and answers the one question
the core asks — approvals — through the `ApprovalQueue`. The agent's turn runs as a worker in the
app's event loop, so events arrive on the UI's own thread. What each key, `/command` or event
does lives with the collaborator that owns its state (`controllers/`, `startup/boot.py`); the
app binds the keys (the keys line lists them in this order), routes messages, and owns the
agent once it is built.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import TextArea

from agent_tui.protocol.dispatch import dispatch
from agent_tui.runtime import Options, offline_reason
from agent_tui.speedups import screen_paint_collect_after
from agent_tui.speedups.textual_privates import write_to_terminal
from agent_tui.ui.controllers.agent_events import AgentEvents
from agent_tui.ui.controllers.modes import PermissionModes
from agent_tui.ui.controllers.notifier import load_notifier
from agent_tui.ui.controllers.palette import palette_commands
from agent_tui.ui.controllers.quiet_collect import QuietCollection
from agent_tui.ui.controllers.session_settings import SessionSettings
from agent_tui.ui.controllers.sessions import Sessions
from agent_tui.ui.controllers.shortcuts import PromptShortcuts
from agent_tui.ui.controllers.slash_commands import SlashCommands
from agent_tui.ui.controllers.stop_keys import StopKeys
from agent_tui.ui.controllers.turns import TurnController
from agent_tui.ui.controllers.undo_flow import UndoFlow
from agent_tui.ui.screens.main import MainScreen
from agent_tui.ui.startup.boot import BootFlow
from agent_tui.ui.startup.gc_tuning import idle_collector
from agent_tui.ui.widgets.prompt import PromptInput

# The first frame is the chat, the prompt and the status line; everything else (event classes,
# the tool pane, the approvals log, tool blocks) is imported once it has been painted.
if TYPE_CHECKING:
    from textual.worker import Worker

    from agent_tui.agent.loop import Agent
    from agent_tui.protocol.events import Event
    from agent_tui.sessions.recorder import Recorder
    from agent_tui.ui.chat.messages import ChatView
    from agent_tui.ui.controllers.approval_queue import ApprovalQueue
    from agent_tui.ui.views.event_view import EventView
    from agent_tui.ui.widgets.status import StatusLine

STYLES = Path(__file__).parent / "styles"


class AgentApp(App[int]):
    TITLE = "agent-tui"
    # Each screen names its own `.tcss`; the app, its own and its widgets'.
    CSS_PATH = [
        STYLES / "app.tcss",
        STYLES / "tool_pane.tcss",
        STYLES / "tool_blocks.tcss",
        STYLES / "approvals_log.tcss",
        STYLES / "key_footer.tcss",
        # The approval dialog's, read with the app's (Textual reads a screen's sheet when it is
        # first shown, unless it is loaded: then it parses every sheet again and restyles every
        # widget of the app, 25-50 ms with a long chat on screen, the first dialog's longest).
        STYLES / "approval.tcss",
    ]
    # The footer lists priority bindings first, so F1 survives an 80-column terminal.
    BINDINGS = [
        Binding("f1", "help", "Help", show=True, priority=True),
        Binding("escape", "cancel", "Stop", show=True),
        Binding("ctrl+c", "copy_or_cancel", "Copy / Stop", show=False, priority=True),
        Binding("ctrl+r", "retry", "Retry", show=False),
        Binding("ctrl+t", "toggle_tools", "Tools", show=True),
        Binding("alt+t", "toggle_thinking", "Thinking", show=False),
        # F2 reaches the app inside tmux and screen, where Alt+K may arrive as a plain `k`
        Binding("f2,alt+k", "focus_shells", "Background shells", show=False),
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
        screen_paint_collect_after.install()  # inert until the patches are checked (boot)
        #: the garbage collector's settings are the entry point's to ask for (`gc_tuning`)
        self.tune_collector = tune_collector
        self.options = options or Options()
        #: why this session runs on the offline model (None: it talks to an API)
        self.offline = offline_reason(self.options)
        self.record = self.options.record if record is None else record
        # Built after the first frame, in a worker thread (`boot`); what only the first turn
        # needs (the tools and pydantic, tree-sitter, the SDK) loads after that (`warm_up`).
        self.agent: Agent | None = None
        self.recorder: Recorder | None = None
        self.approvals: ApprovalQueue | None = None
        #: draws the agent's events (made once the side pane is mounted, by the boot)
        self.view: EventView | None = None
        #: the agent built in a worker and handed to the screen
        self.boot = BootFlow(self, self)
        #: the one owner of "a turn is running": prompts, the queue, retry, cancel
        self.turns = TurnController(self, self, after_turn=self._after_turn)
        #: the full collections, run when the person has paused (when the collector is ours)
        self.quiet_collect = QuietCollection(self, self, idle_collector) if tune_collector else None
        self.agent_events = AgentEvents(self)
        #: /undo, /rewind and /permissions (their previews, restores and the forked session)
        self.undo = UndoFlow(self, self)
        #: the permission mode as the person switches it (Shift+Tab, /mode)
        self.modes = PermissionModes(self, self)
        self.shortcuts = PromptShortcuts(self, self)  # `!command`, `#note`
        self.stop_keys = StopKeys(self, self)  # Esc, Esc Esc, ctrl+c
        self.notifier = load_notifier(self._write_terminal)
        #: past sessions: the store, browse, resume, replay, new, export
        self.sessions = Sessions(self, self)
        #: the model, thinking, compaction, MCP servers and the sandbox
        self.settings = SessionSettings(self, self)
        #: /commands, their hints as the person types and Tab's completion (also of `@file`)
        self.slash = SlashCommands(self, self)
        #: printed by the command line after the app exits (how to come back to this session)
        self.resume_hint = ""
        #: the app quits because of SIGTERM
        self.terminated = False

    # --- the main screen and its parts -------------------------------------------------------

    def get_default_screen(self) -> MainScreen:
        model = "offline model" if self.offline else (self.options.model or "…")
        return MainScreen(
            model=model, mode=self.options.mode, offline=self.offline, mounted=self.main_mounted
        )

    def main_mounted(self) -> None:
        """The main screen's widgets are mounted and styled, its first frame not yet painted."""
        self._stop_on_sigterm()
        self.query_one(PromptInput).focus()
        self.boot.preload()  # while the first frame waits for its tick
        self.call_after_refresh(self.boot.start)
        if self.options.resume == "" and self.record:  # `--resume` without an id: pick one
            self.call_after_refresh(self.sessions.browse)

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

    # --- messages, routed to their owners ----------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        # every Textual event the app gets, before any widget consumes one (a handler by name
        # would not see the keys the prompt box takes): a full collection waits for a pause
        if self.quiet_collect is not None:
            self.quiet_collect.saw(event)
        await super().on_event(event)

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        """Enter in the prompt box: "r" retries a failed turn, a `/command` runs, anything else
        is a prompt for the turn controller (sent now, or queued behind the running turn)."""
        self.stop_keys.start_over()  # an Esc before this prompt and one after it: not Esc Esc
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

    def on_agent_event(self, event: Event) -> None:
        if not self.is_running:
            return
        self.live_view.handle(event)
        dispatch(self.agent_events, event)  # the session's label, a turn's end

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        from textual.worker import WorkerState

        if event.state is WorkerState.ERROR:
            self.turns.worker_failed(event.worker)
            if (replay := self.sessions.replay) is not None:
                replay.worker_failed(event.worker)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from palette_commands(
            self.sessions, self.undo, self.settings, self.action_focus_shells
        )

    # --- keys: bound above, done by their owners ---------------------------------------------

    def action_help(self) -> None:
        from agent_tui.ui.screens.help import HelpScreen, editing_keys

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
        else:
            self.push_screen(HelpScreen(editing_keys(PromptInput.BINDINGS)))

    def action_cancel(self) -> None:
        self.stop_keys.escape()

    def action_copy_or_cancel(self) -> None:
        self.stop_keys.copy_or_stop()

    def action_retry(self) -> None:
        self.stop_keys.start_over()
        self.turns.retry()

    def action_scroll_chat(self, where: str) -> None:
        self.main.action_scroll_chat(where)

    def action_toggle_tools(self) -> None:
        self.main.action_toggle_tools()

    def action_toggle_thinking(self) -> None:
        self.settings.toggle_thinking()

    def action_focus_shells(self) -> None:
        self.main.action_focus_shells()

    def action_sessions(self) -> None:
        self.sessions.browse()

    def action_cycle_mode(self) -> None:
        self.modes.cycle()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Over a dialog or the session browser, shift+tab and the page keys are theirs again.
        return not (action in ("cycle_mode", "scroll_chat") and len(self.screen_stack) > 1)

    def _stop_on_sigterm(self) -> None:
        """SIGTERM (systemd, `docker stop`, a closing terminal emulator's parent) quits as Ctrl+Q
        does — the turn stopped, its commands' changes held, the record finished, the terminal
        given back — and the command line says so in one line (exit code 143)."""
        import signal

        def on_term() -> None:
            self.terminated = True
            self.call_later(self.action_quit)

        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, on_term)

    async def action_quit(self) -> None:
        if (agent := self.agent) is not None:
            worker = self.turns.worker
            if agent.cancel() and worker is not None:
                # the turn's own end first: its commands stopped and their change sets held,
                # its record written, before the store closes under it
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(worker.wait(), 15)
            from agent_tui.agent.turn_hooks import session_end

            await session_end(agent, "prompt_input_exit")
            if agent.config.shells is not None:  # quitting kills every background shell
                await agent.config.shells.kill_all()
            await self.settings.stop_mcp()
            if agent.config.sandbox is not None:
                agent.config.sandbox.close()
        if self.recorder is not None:
            if session_id := self.recorder.session_id:
                self.resume_hint = f"Resume this session: agent-tui --resume {session_id}"
            self.recorder.close()
        self.exit(143 if self.terminated else 0)

    # --- the app's own housekeeping ----------------------------------------------------------

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

    def _write_terminal(self, text: str) -> None:
        if not write_to_terminal(self, text) and "\a" in text and not self.is_headless:
            self.bell()  # the notification can't be written: the bell still rings

    def _after_turn(self) -> None:
        """The answer is painted: a long turn's end is announced; let go of what is far off
        screen, and collect when due."""
        self.notifier.turn_ended(self.turns.last_s)
        self.chat.trim_offscreen()
        if self.quiet_collect is not None:
            self.quiet_collect.after_turn()
