"""The app's own use of the agent's events, beside what the event view draws: the session's
label in the status line (its id, or "not recorded" while the store fails: `sessions/backlog.py`)
and a turn's end handed to the turn controller (the next queued prompt)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Protocol

from agent_tui.protocol.dispatch import all_kinds_but

if TYPE_CHECKING:
    from agent_tui.protocol.events import Notice, TurnFinished
    from agent_tui.sessions.recorder import Recorder
    from agent_tui.ui.controllers.turns import TurnController
    from agent_tui.ui.widgets.status import StatusLine


class AgentEventsHost(Protocol):
    recorder: Recorder | None
    turns: TurnController

    @property
    def status(self) -> StatusLine: ...


class AgentEvents:
    ROUTED: ClassVar[frozenset[str]] = frozenset()
    IGNORED: ClassVar[frozenset[str]] = all_kinds_but({"turn_finished", "notice"})

    def __init__(self, host: AgentEventsHost) -> None:
        self.host = host

    def on_notice(self, event: Notice) -> None:
        self._label()

    def on_turn_finished(self, event: TurnFinished) -> None:
        self._label()
        self.host.turns.finished()

    def _label(self) -> None:
        recorder = self.host.recorder
        if recorder is None:
            return
        unrecorded = recorder.unrecorded
        label = recorder.session_id or ("new session" if unrecorded else "")
        self.host.status.session = f"{label} (not recorded)" if unrecorded else label
