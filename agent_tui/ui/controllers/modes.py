"""The permission mode, as the person switches it: Shift+Tab cycles default → accept-edits →
plan → yolo, `/mode` shows the current one in a picker, `/mode NAME` picks one, and yolo is
only ever entered after a yes in a confirmation. The approvals own the mode; this sets it and
shows it on the status line."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.app import App

    from agent_tui.agent.loop import Agent
    from agent_tui.permissions.types import Mode
    from agent_tui.ui.widgets.status import StatusLine

YOLO_QUESTION = (
    "Switch to yolo mode? Every tool call not denied by a rule will run without asking you."
)


#: what each mode does, as the picker says it
MODE_NOTES = {
    "default": "asks before edits and commands that aren't known to be safe",
    "accept-edits": "file edits in the project run unasked; commands still ask",
    "plan": "read-only: the model looks and plans, nothing is changed",
    "yolo": "every call not denied by a rule runs unasked (asks you first)",
}


class ModeHost(Protocol):
    agent: Agent | None

    @property
    def status(self) -> StatusLine: ...


class PermissionModes:
    def __init__(self, app: App[Any], host: ModeHost) -> None:
        self.app = app
        self.host = host

    def cycle(self) -> None:
        """Shift+Tab: the next mode (yolo after a yes)."""
        agent = self.host.agent
        if agent is None:
            return
        from agent_tui.permissions.types import MODES  # (its dataclasses: after the first frame)

        self.choose(MODES[(MODES.index(agent.approvals.mode) + 1) % len(MODES)])

    def pick(self) -> None:
        """`/mode`: the modes in a picker, the current one marked; Esc keeps it."""
        agent = self.host.agent
        if agent is None:
            return
        from agent_tui.permissions.types import MODES
        from agent_tui.ui.screens.confirm import ChoiceScreen

        current = agent.approvals.mode

        def chosen(mode: str | None) -> None:
            if mode in MODES and mode != current:
                self.choose(mode)

        question = f"Permission mode (now: {current}):"
        self.app.push_screen(ChoiceScreen(question, list(MODE_NOTES.items()), current), chosen)

    def choose(self, mode: Mode) -> None:
        """Switch to `mode`; yolo asks first (a no leaves the default mode)."""
        if mode != "yolo":
            self.set(mode)
            return
        from agent_tui.ui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            self.set("yolo" if yes else "default")

        self.app.push_screen(ConfirmScreen(YOLO_QUESTION), answered)

    def set(self, mode: Mode) -> None:
        agent = self.host.agent
        if agent is None:
            return
        agent.approvals.set_mode(mode)
        self.host.status.mode = mode
        self.app.notify(f"Permission mode: {mode}")
