"""Esc and ctrl+c, the keys that stop things: Esc stops the running turn and `!command` (or a
replay), and twice in a row with nothing running and nothing typed opens /rewind, as in Claude
Code; ctrl+c copies the selection when there is one (OSC 52, so over ssh and in tmux too), else
stops as Esc does, and with nothing to stop says "Press Ctrl-C again to exit" and quits at the
second press (Claude Code's). A collaborator of the app, through a small host protocol
(`StopHost`); it owns when Esc and ctrl+c were last pressed with nothing to stop."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.ui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from textual.app import App

    from agent_tui.agent.loop import Agent
    from agent_tui.ui.controllers.sessions import Sessions
    from agent_tui.ui.controllers.shortcuts import PromptShortcuts
    from agent_tui.ui.controllers.turns import TurnController
    from agent_tui.ui.controllers.undo_flow import UndoFlow

#: two Esc presses this close together (nothing running, nothing typed) open /rewind
DOUBLE_ESCAPE_S = 0.8
#: two ctrl+c presses this close together with nothing to stop quit (the hint stays this long)
DOUBLE_CTRL_C_S = 2.0
EXIT_HINT = "Press Ctrl-C again to exit"


class StopHost(Protocol):
    agent: Agent | None
    turns: TurnController
    sessions: Sessions
    undo: UndoFlow
    shortcuts: PromptShortcuts


class StopKeys:
    def __init__(self, app: App[Any], host: StopHost) -> None:
        self.app = app
        self.host = host
        #: when Esc was last pressed with nothing to stop (Esc Esc)
        self.last_escape = 0.0
        #: when ctrl+c was last pressed with nothing to stop or copy (ctrl+c ctrl+c quits)
        self.last_ctrl_c = 0.0

    def start_over(self) -> None:
        """A prompt sent (or a retry): an Esc before it and one after it are not Esc Esc."""
        self.last_escape = 0.0

    def escape(self) -> None:
        host = self.host
        if (replay := host.sessions.replay) is not None:  # Esc stops (or leaves) a replay
            self.app.call_later(replay.bar.action_escape)
            return
        prompt = self.app.query_one(PromptInput)
        stopped_turn = host.turns.cancel()
        if host.shortcuts.stop() or stopped_turn:  # a `!command` stops as a turn does
            self.last_escape = 0.0
            return
        # Esc Esc with nothing running and nothing typed opens /rewind, as in Claude Code.
        now = time.monotonic()
        said = host.agent is not None and bool(host.agent.messages)
        if now - self.last_escape <= DOUBLE_ESCAPE_S and not prompt.text and said:
            self.last_escape = 0.0
            host.undo.rewind()
            return
        self.last_escape = now
        if self.app.screen.focused is not prompt:
            prompt.focus()

    def copy_or_stop(self) -> None:
        """Ctrl+C: copy the selection when there is one (chat text selected with the mouse, or
        text selected in the prompt); else stop the running turn as Esc does."""
        from textual.widgets import TextArea

        screen = self.app.screen
        text = screen.get_selected_text() or ""
        focused = screen.focused
        if not text and isinstance(focused, TextArea):
            text = focused.selected_text
        if not text:
            if self._something_to_stop():
                self.last_ctrl_c = 0.0
                self.escape()
            else:
                self._exit_on_second()
            return
        self.last_ctrl_c = 0.0
        self.app.copy_to_clipboard(text)
        screen.clear_selection()
        self.app.notify(f"Copied {len(text):,} characters.")

    def _something_to_stop(self) -> bool:
        host = self.host
        return bool(host.turns.running or host.shortcuts.running or host.sessions.replay)

    def _exit_on_second(self) -> None:
        """Nothing to stop: the first press clears what is typed (Up brings it back) and says
        how to leave, the second one leaves, as in Claude Code."""
        prompt = self.app.query_one(PromptInput)
        if prompt.text.strip():
            prompt.keep_in_history()
            self.last_ctrl_c = time.monotonic()
            self.app.notify(f"Cleared (↑ brings it back). {EXIT_HINT}", timeout=DOUBLE_CTRL_C_S)
            return
        now = time.monotonic()
        if now - self.last_ctrl_c <= DOUBLE_CTRL_C_S:
            self.last_ctrl_c = 0.0
            self.app.call_later(self.app.action_quit)
            return
        self.last_ctrl_c = now
        self.app.notify(EXIT_HINT, timeout=DOUBLE_CTRL_C_S)
