"""The spending cap: a warning at 80 %, and at the cap the person decides (`confirm`, the TUI's
keystroke) or, when no one is there (headless), the turn stops. Never over the cap silently."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from agent_tui.agent.config import AgentConfig
from agent_tui.protocol.events import Event, Notice

#: (spent, cap) -> may the session go on past its spending cap?
SpendFn = Callable[[float, float], Awaitable[bool]]


async def no_one_there(spent: float, cap: float) -> bool:
    return False


class SpendingCap:
    def __init__(
        self, config: AgentConfig, emit: Callable[[Event], None], confirm: SpendFn | None = None
    ) -> None:
        self.config = config
        self.emit = emit
        self.confirm: SpendFn = confirm or no_one_there
        self._warned = False

    async def allows(self, spent: float) -> bool:
        """Before each request: may it be sent, with `spent` dollars spent so far?"""
        cap = self.config.max_cost
        if cap is None:
            return True
        if spent >= cap:
            if await self.confirm(spent, cap):
                self.config.max_cost = None  # the person lifted it for this session
                self.emit(Notice("warning", f"Spending cap lifted at ${spent:.2f}."))
                return True
            self.emit(
                Notice(
                    "warning",
                    f"Stopped: this session has spent ${spent:.2f} of its ${cap:.2f} cap. "
                    "Raise it (--max-cost, or [limits] max_cost in settings) to go on.",
                )
            )
            return False
        if spent >= 0.8 * cap and not self._warned:
            self._warned = True
            self.emit(Notice("warning", f"${spent:.2f} of the ${cap:.2f} spending cap used."))
        return True
