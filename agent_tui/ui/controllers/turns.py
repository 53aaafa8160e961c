"""The turn controller: the one owner of "a turn is running".

A prompt becomes a turn here (`send`): sent at once, or queued below the answer in progress and
sent when the running turn ends (one turn at a time). Retry (ctrl+r, "r"), cancel (Esc, ctrl+c)
and `/compact` go through it too, so the worker that runs the agent (`worker`) is set and cleared
in one place: from the moment a prompt is sent until its `TurnFinished` (or the worker dies of a
bug, which is said, and the queue goes on).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Coroutine
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.ui.chat.messages import NoticeMessage, UserMessage
from agent_tui.ui.views import activity
from agent_tui.ui.widgets.prompt import QueuedPrompts

if TYPE_CHECKING:
    from textual.app import App
    from textual.worker import Worker

    from agent_tui.agent.loop import Agent
    from agent_tui.protocol.events import TurnFinished
    from agent_tui.ui.chat.messages import ChatView
    from agent_tui.ui.widgets.status import StatusLine


class BootState(Protocol):
    """The boot as a turn sees it (`startup/boot.py`'s `BootFlow`)."""

    #: why the agent could not be built, if it could not
    error: str | None

    @property
    def waiting_note(self) -> str:
        """What a prompt sent before the agent is ready is told."""
        ...

    def retry_recording(self) -> None:
        """Before a prompt is sent: recording that failed at the start is tried again."""


class TurnHost(Protocol):
    """What the controller needs of the app besides Textual's `App` API."""

    agent: Agent | None

    @property
    def boot(self) -> BootState:
        """Whether the agent could be built (`startup/boot.py`)."""
        ...

    @property
    def chat(self) -> ChatView: ...

    @property
    def status(self) -> StatusLine: ...


class TurnController:
    def __init__(
        self, app: App[Any], host: TurnHost, *, after_turn: Callable[[], object] | None = None
    ) -> None:
        self.app = app
        self.host = host
        #: what runs once a finished turn's answer is painted (the app's housekeeping)
        self.after_turn = after_turn
        #: prompts waiting for the running turn to end, oldest first
        self.queued: list[str] = []
        #: the turn's worker, from the moment a prompt is sent until its `TurnFinished`
        self.worker: Worker[Any] | None = None
        self.started = self.last_s = 0.0

    @property
    def running(self) -> bool:
        return self.worker is not None

    # --- prompts ---

    def send(self, text: str) -> None:
        """Send `text` as a prompt now, or after the running turn (starting up: once ready)."""
        if self.host.agent is None or self.running:
            self.queue(text)
        else:
            self.start(text)

    def queue(self, text: str) -> None:
        self.queued.append(text)
        QueuedPrompts.of(self.app).show(self.queued)
        if self.host.agent is None:
            failed = bool(self.host.boot.error)
            self.app.notify(
                self.host.boot.waiting_note, severity="error" if failed else "information"
            )
        else:
            self.app.notify("Queued: it will be sent when the current turn ends (Esc stops it).")

    def start(self, text: str) -> None:
        agent = self.host.agent
        assert agent is not None
        self.host.boot.retry_recording()
        chat = self.host.chat
        chat.append(UserMessage(text))
        chat.anchor()  # sending a prompt brings the view back to the newest message
        # The turn counts as running from now, not from when its worker starts: a second Enter
        # queues and Esc cancels it even before the first request.
        self.run(partial(agent.submit, text))

    def next_queued(self) -> None:
        if self.queued and self.host.agent is not None and not self.running:
            text = self.queued.pop(0)
            QueuedPrompts.of(self.app).show(self.queued)
            self.start(text)

    def run(self, work: Callable[[], Coroutine[Any, Any, TurnFinished]]) -> None:
        """Run one of the agent's turns (a prompt, a retry, a compaction) as *the* turn."""
        self.worker = self.app.run_worker(work, group="turn", exit_on_error=False)
        self.started = time.monotonic()

    # --- keys ---

    def can_retry(self) -> bool:
        agent = self.host.agent
        return agent is not None and not self.running and agent.can_retry

    def retry(self) -> None:
        agent = self.host.agent
        if agent is None or not self.can_retry():
            self.app.notify("Nothing to retry.")
            return
        self.run(agent.retry)

    def cancel(self) -> bool:
        """Stop the running turn; False if there was none."""
        agent = self.host.agent
        if agent is not None and agent.cancel():
            return True
        if self.worker is None:
            return False
        # Stopped before its first request: nothing was sent or recorded.
        self.worker.cancel()
        self.worker = None
        self.host.chat.append(NoticeMessage("Cancelled before it was sent.", "warning"))
        activity.ready(self.host.status)
        self.app.call_later(self.next_queued)
        return True

    # --- the end of a turn ---

    def finished(self) -> None:
        """The agent's `TurnFinished`: the next queued prompt goes once this one is painted."""
        self.worker = None
        #: how long the turn that just ended ran (a long one is announced:
        #: `ui/controllers/notifier.py`)
        self.last_s = time.monotonic() - self.started
        if self.after_turn is not None:
            self.host.chat.call_after_refresh(self.after_turn)
        self.app.call_later(self.next_queued)

    def worker_failed(self, worker: Worker[Any]) -> None:
        """A turn that died of an error it didn't catch (a bug) is said, and prompts go on: the
        next queued one is sent, instead of waiting behind it for ever."""
        if worker is not self.worker:
            return
        self.worker = None
        error = worker.error
        self.host.chat.append(
            NoticeMessage(f"The turn stopped on an error: {type(error).__name__}: {error}", "error")
        )
        activity.ready(self.host.status)
        self.app.call_later(self.next_queued)
