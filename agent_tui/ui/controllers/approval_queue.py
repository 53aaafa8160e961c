"""Approval requests shown one at a time, in the order they were asked, so the agent loop can
simply `await` an answer:

    approvals = ApprovalQueue()

    async def ask(request: ApprovalRequest) -> ApprovalAnswer:   # the agent loop's callback
        return await approvals.ask(app, request)

`ask` must run in the app's event loop (an asyncio task or an async Textual worker; from a thread
worker use `app.call_from_thread`). The dialog itself (`screens/approval.py`) is imported by the
app's warm-up or the first request, whichever comes first: building the queue costs start-up
nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

    from agent_tui.permissions.types import ApprovalAnswer, ApprovalRequest
    from agent_tui.ui.controllers.stamp_guard import StampGuard
    from agent_tui.ui.screens.approval import ApprovalScreen


#: at most this long a dialog waits for the screen's paint before it opens (seconds)
PAINT_WAIT_S = 0.25


async def painted_first(
    app: App[Any], settled: Callable[[], Awaitable[object]] | None = None
) -> None:
    """Let the screen paint what changed first (the call's tool block, the answer before it):
    the dialog's first frame renders the screen behind it, dimmed, and would otherwise render
    those too, in the same callback (measured: 19-31 ms of CPU, benchmarks/bench_callbacks.py).
    First the answer before the call is drawn whole (`settled`): its last steps (made whole, its
    old segments let go, the chat laid out) came after the dialog's first frame and painted the
    whole dimmed screen behind it again, twice a dialog (BENCHMARKS.md). At most `PAINT_WAIT_S`
    in all: the dialog never waits on them longer."""
    with suppress(TimeoutError):
        async with asyncio.timeout(PAINT_WAIT_S):
            if settled is not None:
                await settled()
            await app.screen.wait_for_refresh()


class ApprovalQueue:
    """Shows approval requests one at a time, in the order they were asked."""

    def __init__(
        self,
        *,
        guard_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        type_ahead: Callable[[str], object] | None = None,
        typed_at: Callable[[], float | None] = lambda: None,
        stamp: StampGuard | None = None,
        simulate: Callable[[tuple[str, ...]], str] | None = None,
        on_show: Callable[[ApprovalRequest], object] | None = None,
        settled: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        #: seconds the dialog ignores keys for (None: the dialog's own `DEFAULT_GUARD_S`)
        self.guard_s = guard_s
        self.clock = clock
        self.type_ahead = type_ahead
        #: when the person last typed in the prompt box (`clock`'s time): typing that goes on as
        #: a dialog appears is the prompt's until it pauses
        self.typed_at = typed_at
        #: the rubber-stamp guard: answers given too fast pause the next dialog (None: off)
        self.stamp = stamp
        #: the rule simulator: what an "always" rule would have allowed in past sessions
        self.simulate = simulate
        #: called once as each dialog opens (the notifier's bell)
        self.on_show = on_show
        #: returns once the screen behind has drawn what came before the call (`painted_first`)
        self.settled = settled
        #: when the last dialog was answered: a key typed straight after is no answer to the next
        self._answered_at: float | None = None
        #: dialogs shown since the queue was last empty: the next one's place ("2 of 3")
        self._shown = 0
        self._turn = asyncio.Lock()  # FIFO: waiters are served in arrival order
        self._waiting = 0
        self.current: ApprovalScreen | None = None

    @property
    def waiting(self) -> int:
        """Requests asked but not yet on screen."""
        return self._waiting

    def _set_waiting(self, delta: int) -> None:
        self._waiting += delta
        if self.current is not None:
            self.current.waiting = self._waiting

    def _last_key(self) -> float | None:
        """When the person last typed: in the prompt box, or the answer to a dialog."""
        return max(filter(None, (self.typed_at(), self._answered_at)), default=None)

    async def ask(self, app: App[Any], request: ApprovalRequest) -> ApprovalAnswer:
        """Show `request` once the earlier ones are answered; return the person's answer.

        Cancelling the awaiting task takes its dialog away (or its place in the queue).
        """
        self._set_waiting(+1)
        try:
            await self._turn.acquire()
        finally:
            self._set_waiting(-1)
        try:
            await painted_first(app, self.settled)
            from agent_tui.ui.screens.approval import ApprovalScreen
            from agent_tui.ui.widgets.approval_parts import DEFAULT_GUARD_S

            answered: asyncio.Future[ApprovalAnswer] = asyncio.get_running_loop().create_future()

            def resolve(answer: ApprovalAnswer) -> None:
                if not answered.done():
                    answered.set_result(answer)

            self._shown += 1
            screen = ApprovalScreen(
                request,
                waiting=self._waiting,
                position=self._shown,
                guard_s=DEFAULT_GUARD_S if self.guard_s is None else self.guard_s,
                clock=self.clock,
                on_answer=resolve,
                type_ahead=self.type_ahead,
                typed_at=self._last_key,
                pause=self.stamp.before(request) if self.stamp else None,
                simulate=self.simulate,
            )
            self.current = screen
            try:
                if self.on_show is not None:
                    self.on_show(request)
                await app.push_screen(screen)
                answer = await answered
                self._answered_at = self.clock()
                if self.stamp is not None:
                    self.stamp.after(request, answer)
                return answer
            except asyncio.CancelledError:
                screen.close()
                raise
        finally:
            self.current = None
            if not self._waiting:
                self._shown = 0  # the next dialog is the first of its own batch
            self._turn.release()
