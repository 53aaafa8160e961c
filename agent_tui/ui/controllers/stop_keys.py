"""Esc and ctrl+c, the keys that stop things: Esc stops the running turn and `!command` (or a
replay), and twice in a row with nothing running and nothing typed opens /rewind, as in Claude
Code; ctrl+c copies the selection when there is one (OSC 52, so over ssh and in tmux too), else
stops as Esc does. A collaborator of the app, through a small host protocol (`StopHost`); it
owns when Esc was last pressed with nothing to stop."""

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
            self.escape()
            return
        self.app.copy_to_clipboard(text)
        screen.clear_selection()
        self.app.notify(f"Copied {len(text):,} characters.")
