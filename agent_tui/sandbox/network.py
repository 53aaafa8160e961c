"""Which hosts a sandboxed command may reach through the proxy, decided per host:

deny rules (`WebFetch(domain:...)` deny) → the person's `allowedDomains` and `WebFetch(domain:...)`
allow rules (Claude Code counts those for the sandbox too) → yolo mode → ask the person, with the
same domain question as WebFetch ("Bash wants to reach docs.example.com"); "always" saves
`WebFetch(domain:HOST)`. An answer holds for the rest of the command. The SSRF guard is applied
after this, to the addresses (see `proxy.py`): allowing a host never opens loopback or private
addresses unless the person named that host in a rule of their own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable

from agent_tui.permissions.hosts import canonical_host
from agent_tui.permissions.rules import match_host
from agent_tui.sandbox.base import SandboxPermissions

#: ask the person: (host, port) -> allowed
AskHost = Callable[[str, int], Awaitable[bool]]


def domain_matches(pattern: str, host: str) -> bool:
    pattern = pattern.strip().lower().rstrip(".")
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return canonical_host(pattern) == host


class HostGate:
    def __init__(
        self, permissions: SandboxPermissions, allowed_domains: Iterable[str], ask: AskHost | None
    ) -> None:
        self.permissions = permissions
        self.allowed_domains = tuple(allowed_domains)
        self.ask = ask
        self._answers: dict[str, asyncio.Future[bool]] = {}

    def rule_decision(self, host: str) -> tuple[str, str]:
        """("deny"|"allow"|"ask", why) from rules and mode alone."""
        for r in self.permissions.rules_of("deny", "WebFetch"):
            if match_host(r.rule, host):
                return "deny", f"deny rule {r.rule.text}"
        for pattern in self.allowed_domains:
            if domain_matches(pattern, host):
                return "allow", f"sandbox.network.allowedDomains {pattern}"
        for r in self.permissions.rules_of("allow", "WebFetch"):
            if not r.rule.bare and match_host(r.rule, host):
                return "allow", f"allow rule {r.rule.text}"
        if self.permissions.mode == "yolo":
            return "allow", "yolo mode"
        return "ask", "no rule allows it"

    async def __call__(self, host: str, port: int) -> str | None:
        verdict, why = self.rule_decision(host)
        if verdict == "deny":
            return why
        if verdict == "allow":
            return None
        if self.ask is None:
            return "no rule allows it and no one is there to ask"
        pending = self._answers.get(host)
        if pending is None:  # one question per host, however many connections wait for it
            pending = self._answers[host] = asyncio.ensure_future(self.ask(host, port))
        try:
            allowed = await asyncio.shield(pending)
        except Exception as e:  # the question itself failed: refuse, never allow
            return f"the question could not be asked ({e})"
        return None if allowed else "you said no"
