"""WebFetch's domain preflight, as Claude Code does it: before a domain's first fetch, ask the API
whether the domain may be fetched (`GET <base URL>/api/web/domain_info?domain=HOST`, answered
with `{"can_fetch": true|false}`).

The question goes through the session's own provider, so it uses the same client, base URL and
credentials as the conversation; a provider without the check (the offline model, Bedrock, Vertex
and Foundry, as in Claude Code, which asks only the first-party API) is not asked. An answer is kept
for five minutes per domain, as Claude Code keeps it (`ANSWER_KEPT_S`): a domain blocked later in
a long session is refused again. A failed check is not kept, so the next fetch asks again. The
person can turn the check off in their user settings (`[web] skip_web_fetch_preflight = true`,
Claude Code's `skipWebFetchPreflight`), e.g. behind a proxy that does not let it through.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from agent_tui.providers.anthropic import DOMAIN_INFO_PATH

#: the user setting that turns the check off: [web] skip_web_fetch_preflight
SETTING_TABLE, SETTING_KEY = "web", "skip_web_fetch_preflight"
#: seconds an answer is kept for its domain (Claude Code's cache of checked domains: 5 minutes)
ANSWER_KEPT_S = 300.0


@dataclass(frozen=True, slots=True)
class PreflightRefusal:
    """Why a fetch does not go ahead: `kind` is "domain_blocked" or "domain_check_failed"."""

    kind: str
    message: str


class DomainPreflight:
    """One session's domain checks: each domain is asked about once, the answer kept."""

    def __init__(
        self,
        *,
        skip: bool = False,
        kept_s: float = ANSWER_KEPT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.skip = skip
        self.kept_s = kept_s
        self._clock = clock
        #: domain -> (may be fetched, when the API said so)
        self._answers: dict[str, tuple[bool, float]] = {}
        #: checks under way: fetches of one domain that start together share one question
        self._pending: dict[str, asyncio.Future[bool | None]] = {}

    def known(self, domain: str) -> bool | None:
        """The kept answer for `domain`: True may be fetched, False blocked, None not asked (or
        asked more than `kept_s` ago)."""
        kept = self._answers.get(domain.lower())
        if kept is None or self._clock() - kept[1] >= self.kept_s:
            return None
        return kept[0]

    async def check(self, domain: str, provider: Any) -> PreflightRefusal | None:
        """None when `domain` may be fetched (or there is no check to make), else why not."""
        domain = domain.lower()
        ask = getattr(provider, "domain_info", None)
        if self.skip or not callable(ask):
            return None
        allowed = self.known(domain)
        if allowed is None:
            from agent_tui.providers.base import ProviderError

            try:
                answer = await self._ask(domain, ask)
            except ProviderError as exc:
                return PreflightRefusal(
                    "domain_check_failed",
                    f"Could not check whether {domain} may be fetched: the API's domain check "
                    f"failed ({exc.message}). A proxy or firewall that blocks the API's "
                    f"{DOMAIN_INFO_PATH} endpoint is the usual cause. To fetch without the "
                    f"check, set {SETTING_KEY} = true under [{SETTING_TABLE}] in your user "
                    "settings.",
                )
            if answer is None:  # this provider has no such check
                return None
            kept = self.known(domain)  # another fetch's answer may have come meanwhile
            allowed = answer if kept is None else kept
            if kept is None:
                self._answers[domain] = (answer, self._clock())
        if allowed:
            return None
        return PreflightRefusal(
            "domain_blocked",
            f"WebFetch may not fetch from {domain}: the API's domain check says this domain "
            "is blocked. Do not try other URLs on it; find the information elsewhere or ask "
            "the user.",
        )

    async def _ask(self, domain: str, ask: Callable[[str], Awaitable[bool | None]]) -> bool | None:
        pending = self._pending.get(domain)
        if pending is None:
            pending = asyncio.ensure_future(ask(domain))
            self._pending[domain] = pending
            pending.add_done_callback(lambda done: self._done(domain, done))
        # One fetch cancelled must not cancel the question the others wait for.
        return await asyncio.shield(pending)

    def _done(self, domain: str, done: asyncio.Future[bool | None]) -> None:
        self._pending.pop(domain, None)
        if not done.cancelled():
            done.exception()  # retrieved: a failure nobody waits for any more is not logged
