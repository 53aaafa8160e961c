"""The provider every request of a session goes through: the spending cap's gate.

Wrapping the provider (rather than checking in the loop) puts every request behind the cap — the
main loop's, compaction's summary, sub-agents' (they share their parent's provider), WebFetch's
extraction and WebSearch's sub-requests — with nothing to remember at a new call site. Before a
request, `SpendingCap.admit` plans it; after it, what its usage says it cost is settled.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agent_tui.agent.budget import SpendingCap
from agent_tui.agent.cost import cost_usd
from agent_tui.protocol.events import Usage
from agent_tui.providers.base import MessageRequest, Provider


class CappedProvider:
    def __init__(self, inner: Provider, budget: SpendingCap) -> None:
        self.inner = inner
        self.budget = budget
        self.name = inner.name

    @property
    def label(self) -> str:
        return self.inner.label

    @label.setter
    def label(self, value: str) -> None:
        self.inner.label = value

    @property
    def setup_error(self) -> str | None:
        """Why the provider can't send a request (a cloud client without credentials), once
        its client was made (`warm_up`); None for a provider that is always set up."""
        return getattr(self.inner, "setup_error", None)

    def __getattr__(self, name: str) -> Any:  # warm_up, a test's `requests`…
        if name == "inner":  # not set yet (a copy being made): no recursion through it
            raise AttributeError(name)
        return getattr(self.inner, name)

    def supports_web_search(self, model: str) -> bool:
        return self.inner.supports_web_search(model)

    async def count_tokens(self, request: MessageRequest) -> int | None:
        count = getattr(self.inner, "count_tokens", None)
        return await count(request) if count is not None else None

    async def stream(self, request: MessageRequest) -> AsyncIterator[dict[str, Any]]:
        grant = await self.budget.admit(request, self.count_tokens)
        request.budget_cut = grant.cut_to  # the caller's request says it was cut for the cap
        usage: dict[str, Any] = {}
        try:
            async for event in self.inner.stream(grant.request):
                _note_usage(usage, event)
                yield event
        finally:
            self.budget.settle(grant, cost_usd(request.model, Usage.from_api(usage)))


def _note_usage(into: dict[str, Any], event: dict[str, Any]) -> None:
    """message_start's usage, then message_delta's (cumulative: it replaces, not adds)."""
    kind = event.get("type")
    found = None
    if kind == "message_start":
        message = event.get("message")
        found = message.get("usage") if isinstance(message, dict) else None
    elif kind == "message_delta":
        found = event.get("usage")
    if isinstance(found, dict):
        into.update({k: v for k, v in found.items() if v is not None})
