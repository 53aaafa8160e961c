"""Replay: a recorded session's domain events played back on the main screen.

The events go through an `EventView` (`event_view.py`), the same drawing path as the live agent's
events, so a replay looks exactly like the live session did — streamed answers, tool blocks,
searches, approvals — while nothing is sent to a model and no tool runs: only recorded events are
drawn. The recorded timing
is kept, scaled by the speed (1×, 4×, instant), with long pauses (a person thinking, a slow
command) cut to `MAX_PAUSE_S`.

While it plays, a `ReplayBar` above the prompt has focus and takes the keys: `1`, `4`, `i`
(instant) change the speed, Esc stops; afterwards Enter resumes the session and Esc returns to the
conversation. The prompt is disabled meanwhile, so nothing typed can mix a live turn into it.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import Static

from agent_tui.protocol.dispatch import UNHANDLED, all_kinds_but, dispatch
from agent_tui.protocol.events import ApprovalDecided, ApprovalRequested, Event, TurnStarted
from agent_tui.sessions.records import SessionInfo, StoredEvent
from agent_tui.sessions.store import SessionStore
from agent_tui.ui.chat.messages import NoticeMessage, UserMessage
from agent_tui.ui.views import activity
from agent_tui.ui.views.event_view import EventView
from agent_tui.ui.views.tool_activity import ToolActivities
from agent_tui.ui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from textual.app import App
    from textual.worker import Worker


class ReplayHost(Protocol):
    """What a replay needs besides Textual's `App` API: the sessions controller
    (`sessions.py`), which owns the replay on screen (the app's own module is never imported
    here)."""

    replay: Replay | None

    @property
    def live_view(self) -> EventView: ...

    def make_view(self) -> EventView: ...

    def store(self) -> SessionStore: ...

    async def redraw(self, *, history: bool = True, notice: str | None = None) -> None: ...

    def resume(self, session_id: str) -> None: ...


INSTANT = math.inf
SPEEDS: dict[str, float] = {"1": 1.0, "4": 4.0, "i": INSTANT}
#: a longer gap between two recorded events is shortened to this (before scaling)
MAX_PAUSE_S = 2.0
#: waits shorter than this are added up, not slept one by one (per-token gaps are tiny)
MIN_SLEEP_S = 0.015
#: at instant speed, let the UI draw after this many events
INSTANT_BATCH = 200

State = Literal["loading", "playing", "finished", "stopped"]


def speed_label(speed: float) -> str:
    return "instant" if math.isinf(speed) else f"{speed:g}×"


def pause(previous: StoredEvent, current: StoredEvent, speed: float) -> float:
    """The wait before `current`: the recorded gap, capped at `MAX_PAUSE_S`, divided by speed."""
    if math.isinf(speed):
        return 0.0
    return min(max(0.0, current.ts - previous.ts), MAX_PAUSE_S) / speed


class ReplayBar(Static):
    """Says what is being replayed and at what speed; holds the replay's keys."""

    can_focus = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "speed('1')", "1×"),
        Binding("4", "speed('4')", "4×"),
        Binding("i", "speed('i')", "Instant"),
        Binding("escape", "escape", "Stop / back"),
        Binding("enter", "resume", "Resume it", show=False),
    ]

    def __init__(self, replay: Replay) -> None:
        super().__init__(id="replay-bar")
        self.replay = replay

    def action_speed(self, key: str) -> None:
        self.replay.set_speed(SPEEDS[key])

    async def action_escape(self) -> None:
        if self.replay.running:
            self.replay.stop()
        else:
            await self.replay.close()

    async def action_resume(self) -> None:
        if not self.replay.running:
            await self.replay.close(resume=True)


@dataclass(frozen=True, slots=True)
class LivePanes:
    """The live session's side panes while a replay draws on them: its plan, its last turn's
    calls and its approvals, as they were."""

    view: EventView
    plan: list[dict[str, Any]]
    calls: ToolActivities
    approvals: tuple[ApprovalDecided, ...]

    @classmethod
    def take(cls, view: EventView) -> LivePanes:
        pane = view.tool_pane
        live = cls(view, pane.plan.todos, pane.take_calls(), view.approvals_log.entries)
        pane.show_plan([])
        view.approvals_log.clear()
        return live

    def put_back(self) -> None:
        self.view.tool_pane.show_plan(self.plan)
        self.view.tool_pane.put_back(self.calls)
        self.view.approvals_log.show(self.approvals)


class Replay:
    """One replay of one session on `app`'s main screen; `start()` it, `stop()` or `close()`."""

    def __init__(
        self, app: App[Any], host: ReplayHost, session_id: str, speed: float = 1.0
    ) -> None:
        self.app = app
        self.host = host
        #: draws the recorded events; its totals are the replayed session's, not the live one's
        self.view = host.make_view()
        self.view.chat.on_pruned = None  # its prompts are not the live conversation's to page
        self.session_id = session_id
        self.speed = speed
        self.state: State = "loading"
        self.shown = 0  # events drawn so far
        self.total = 0
        self.info: SessionInfo | None = None
        self._wake = asyncio.Event()
        self.bar = ReplayBar(self)
        #: the live session's side panes, kept aside while this replay draws on them
        self._live: LivePanes | None = None
        #: the worker that loads and draws it (`start`)
        self.worker: Worker[None] | None = None

    @property
    def running(self) -> bool:
        """Loading or drawing its events (not yet finished or stopped)."""
        return self.state in ("loading", "playing")

    @property
    def label(self) -> str:
        where = f"session {self.session_id}"
        match self.state:
            case "loading":
                return f"loading {where}…"
            case "playing":
                return f"replaying {where} at {speed_label(self.speed)}"
            case "finished":
                return f"replay of {where} finished"
            case _:
                return f"replay of {where} stopped ({self.shown}/{self.total} events)"

    def _refresh(self) -> None:
        keys = (
            "1 / 4 / i speed · Esc stop"
            if self.running
            else "Enter resume this session · Esc back to your conversation"
        )
        self.bar.update(Text(f"▶ {self.label}   {keys}"))
        activity.replaying(self.view.status, self.label)

    # --- control ---------------------------------------------------------------------------

    def start(self) -> None:
        app = self.app
        # The side panes show the replayed session only, from the first frame: the live
        # session's plan, calls and decisions are kept aside and put back when it ends.
        self._live = LivePanes.take(self.host.live_view)
        prompt = app.query_one(PromptInput)
        app.mount(self.bar, before=prompt)
        prompt.disabled = True
        self.bar.focus()
        self._refresh()
        self.worker = app.run_worker(
            self._run(), group="replay", exclusive=True, exit_on_error=False
        )

    def set_speed(self, speed: float) -> None:
        self.speed = speed
        self._wake.set()  # cut the current pause short
        if self.running:
            self._refresh()

    def worker_failed(self, worker: Worker[Any]) -> None:
        """The replay died of an error (the store couldn't be read, a bug): said, and stopped,
        not left "loading…" for ever; Esc goes back to the conversation as after any stop."""
        if worker is not self.worker or not self.running:
            return
        self.state = "stopped"
        error = worker.error
        message = f"The replay stopped on an error: {type(error).__name__}: {error}"
        self.view.chat.append(NoticeMessage(message, "error"))
        self._refresh()

    def stop(self) -> None:
        if self.running:
            self.state = "stopped"
            self._wake.set()
            self._refresh()

    def discard(self) -> None:
        """Stop and take the bar away, the live session's panes put back as they were, leaving
        the chat as it is (another view replaces it)."""
        self._leave()
        if self._live is not None:
            self._live.put_back()

    async def close(self, *, resume: bool = False) -> None:
        """Leave the replay: back to the conversation, or into the replayed session."""
        if resume:
            self.discard()
            self.host.resume(self.session_id)
            return
        self._leave()
        await self.host.redraw()
        if self._live is not None:  # after the redraw (the panes drawn from the store alone)
            self._live.put_back()

    def _leave(self) -> None:
        self.stop()
        host = self.host
        if host.replay is self:
            host.replay = None
        prompt = self.app.query_one(PromptInput)
        prompt.disabled = False
        self.bar.remove()
        prompt.focus()
        host.live_view.show_totals()  # the live session's counts again
        host.live_view.page_from()
        activity.ready(self.view.status)

    # --- playing ---------------------------------------------------------------------------

    async def _run(self) -> None:
        store = self.host.store
        events, self.info = await asyncio.to_thread(
            lambda: (store().events.load(self.session_id), store().sessions.get(self.session_id))
        )
        if self.state != "loading":
            return
        self.total = len(events)
        await self.host.redraw(history=False)
        self.view.set_totals(None, 0.0)
        self.view.status.session = self.session_id  # its counts are this session's, not ours
        title = self.info.title if self.info else ""
        chat = self.view.chat
        chat.append(
            NoticeMessage(f"Replay of session {self.session_id}: {title}".rstrip(": "), "info")
        )
        if not events:
            chat.append(NoticeMessage("Nothing was recorded in this session.", "info"))
        self.state = "playing"
        self._refresh()
        owed = 0.0
        previous: StoredEvent | None = None
        for stored in events:
            if self.state != "playing":
                return
            if previous is not None and not math.isinf(self.speed):
                owed += pause(previous, stored, self.speed)
                if owed >= MIN_SLEEP_S:
                    await self._sleep(owed)
                    owed = 0.0
                    if self.state != "playing":
                        return
            elif self.shown % INSTANT_BATCH == 0:
                await asyncio.sleep(0)
            previous = stored
            self._draw(stored.event)
        self.state = "finished"
        self._refresh()

    async def _sleep(self, seconds: float) -> None:
        self._wake.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), seconds)

    #: what the view draws as it did live (a replay's own: `on_<kind>`, around the view's)
    ROUTED: ClassVar[frozenset[str]] = all_kinds_but({"turn_started", "approval_requested"})
    IGNORED: ClassVar[frozenset[str]] = frozenset()

    def _draw(self, event: Event) -> None:
        if dispatch(self, event) is UNHANDLED:
            self.view.handle(event)
        self.shown += 1
        activity.replaying(self.view.status, self.label)  # the live path: "working…", "ready"

    def on_turn_started(self, event: TurnStarted) -> None:
        """Live, the prompt is drawn when it is sent."""
        self.view.chat.append(UserMessage(event.prompt))
        self.view.handle(event)

    def on_approval_requested(self, event: ApprovalRequested) -> None:
        """Live, this was the approval dialog."""
        self.view.handle(event)
        text = f"Asked for approval: {event.tool} {event.subject}"
        self.view.chat.append(NoticeMessage(f"{text}\n{event.reason}" if event.reason else text))
