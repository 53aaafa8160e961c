"""The spending cap of a session: checked before every request, so it is never crossed.

One `SpendingCap` per session, shared by the main loop, its sub-agents and every sub-request (they
all go through `CappedProvider`). It keeps the session's spend (a resumed session starts from what
it had spent) and what the requests in flight may still cost (their reservations), so requests
sent side by side can't cross the cap together. Before each request, `admit` plans it
(`agent.preflight`): sent as it is, sent with a smaller `max_tokens`, or not sent. When a useful
request can't be paid for, the person decides (`confirm`, the TUI's question: raise the cap for
this session, or stop) or, with no one there (headless), the turn stops: "Spending cap reached",
and nothing more is sent in that turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from agent_tui.agent.config import AgentConfig
from agent_tui.agent.preflight import Counter, plan
from agent_tui.protocol.events import Event, Notice
from agent_tui.providers.base import MessageRequest, ProviderError


def dollars(amount: float) -> str:
    """Money as the status line shows it (four decimals: a cap of cents stays readable)."""
    return f"${amount:.4f}"


@dataclass(frozen=True, slots=True)
class CapQuestion:
    """The question put to the person when the next request would cross the spending cap: raise it
    to `raise_to` for this session?"""

    spent: float
    cap: float
    #: the least the next request needs (its input and a useful answer)
    needed: float
    #: the cap the person is offered for the rest of the session
    raise_to: float

    @property
    def text(self) -> str:
        return (
            f"This session has spent {dollars(self.spent)} of its {dollars(self.cap)} spending "
            f"cap; the next request needs up to {dollars(self.needed)}. Raise the cap to "
            f"{dollars(self.raise_to)} for this session? If not, the turn stops here and the "
            "request is not sent."
        )


#: the question at the cap -> may the cap be raised to `raise_to` for this session?
SpendFn = Callable[[CapQuestion], Awaitable[bool]]


async def no_one_there(question: CapQuestion) -> bool:
    return False


class SpendingCapReached(ProviderError):
    """A request was not sent: the budget can't pay for it and the cap stands."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="spending_cap")


@dataclass(slots=True)
class Grant:
    """A request `SpendingCap.admit` let through: what to send, the dollars reserved for it until it
    is settled, and the `max_tokens` it was cut to (None: as asked)."""

    request: MessageRequest
    reserved: float
    cut_to: int | None = None


class SpendingCap:
    def __init__(
        self, config: AgentConfig, emit: Callable[[Event], None], confirm: SpendFn | None = None
    ) -> None:
        self.config = config
        self.emit = emit
        self.confirm: SpendFn = confirm or no_one_there
        #: dollars spent in this session (all of it: earlier runs of a resumed session too)
        self.spent = 0.0
        #: the most the requests in flight may still cost
        self.reserved = 0.0
        #: the cap stood in this turn: nothing more is sent until the next prompt
        self.stop_text: str | None = None
        self._warned = False
        self._lock = asyncio.Lock()

    def new_turn(self) -> None:
        self.stop_text = None

    def restart(self, spent: float) -> None:
        """Another session (resumed, or a new one): its spend so far."""
        self.spent, self._warned = spent, False

    async def admit(self, request: MessageRequest, count: Counter) -> Grant:
        """Before a request: what to send, with what reserved; raises `SpendingCapReached` when
        it can't be paid for and the cap stands (nothing is sent)."""
        if self.config.max_cost is None:
            return Grant(request, 0.0)
        async with self._lock:  # one at a time: each plan sees the others' reservations
            while True:
                cap = self.config.max_cost
                if cap is None:
                    return Grant(request, 0.0)
                if self.stop_text is not None:
                    raise SpendingCapReached(self.stop_text)
                left = cap - self.spent - self.reserved
                planned = await plan(request, left, count)
                if planned.fits:
                    self.reserved += planned.reserve
                    return Grant(planned.request, planned.reserve, planned.cut_to)
                spent = self.spent
                held = (
                    f" (and {dollars(self.reserved)} held for requests under way)"
                    if self.reserved
                    else ""
                )
                if request.purpose == "compaction":  # not worth a question: the turn goes on
                    raise SpendingCapReached(
                        f"the spending cap leaves {dollars(max(0.0, left))}, and a summary "
                        f"needs up to {dollars(planned.needed)}"
                    )
                raise_to = round(max(cap * 2, spent + self.reserved + planned.needed * 2), 4)
                question = CapQuestion(spent, cap, planned.needed, raise_to)
                if await self.confirm(question):
                    self.config.max_cost = raise_to
                    self.emit(
                        Notice(
                            "info", f"Spending cap raised to {dollars(raise_to)} for this session."
                        )
                    )
                    continue
                self.stop_text = (
                    f"Spending cap reached: this session has spent {dollars(spent)} of its "
                    f"{dollars(cap)} cap{held}, and the next request needs up to "
                    f"{dollars(planned.needed)}; it was not sent. Raise the cap (--max-cost, or "
                    "[limits] max_cost in settings) to go on."
                )
                self.emit(Notice("warning", self.stop_text))
                raise SpendingCapReached(self.stop_text)

    def settle(self, grant: Grant, cost: float) -> None:
        """After a request (finished or not): its reservation released, what it cost counted."""
        self.reserved = max(0.0, self.reserved - grant.reserved)
        self.spent += cost
        cap = self.config.max_cost
        if cap is not None and not self._warned and self.spent >= 0.8 * cap:
            self._warned = True
            self.emit(
                Notice("warning", f"{dollars(self.spent)} of the {dollars(cap)} spending cap used.")
            )

    def cut_text(self, tokens: int) -> str:
        """What is said of an answer cut by the `max_tokens` the budget could pay for."""
        cap = self.config.max_cost
        of = f" of {dollars(cap)}" if cap is not None else ""
        return (
            f"The answer was cut at {tokens:,} tokens: that is all the spending cap could pay "
            f"for ({dollars(self.spent)}{of} spent). Raise the cap to let it go on."
        )
