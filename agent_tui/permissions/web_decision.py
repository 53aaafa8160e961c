"""The engine's decision on a WebFetch call: deny rules by host, the gate (plan, broken settings,
yolo), ask and allow rules, then the preapproved documentation hosts; else ask, suggesting a
`WebFetch(domain:…)` rule a project's local file may hold."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from agent_tui.permissions import settings as settings_mod
from agent_tui.permissions.decisions import by_rule
from agent_tui.permissions.hosts import PreapprovedHosts, parse_url
from agent_tui.permissions.rules import RuleError, match_host, parse_rule
from agent_tui.permissions.settings import SourcedRule
from agent_tui.permissions.types import Behavior, Decision


class Engine(Protocol):
    """What this needs of the permission engine."""

    preapproved: PreapprovedHosts

    def rules_of(self, behavior: Behavior, tool: str) -> Iterator[SourcedRule]: ...

    def gate(self, tool: str, read_only: bool) -> Decision | None: ...


def webfetch_decision(engine: Engine, input: dict[str, Any], read_only: bool) -> Decision:
    url = parse_url(input.get("url"))
    if url is None:
        for r in engine.rules_of("deny", "WebFetch"):
            if r.rule.bare:
                return by_rule("deny", r)
        return Decision("ask", reason="not a usable http(s) URL")
    for r in engine.rules_of("deny", "WebFetch"):
        if match_host(r.rule, url.host):
            return by_rule("deny", r)
    gate = engine.gate("WebFetch", read_only)
    if gate:
        return gate
    for behavior in ("ask", "allow"):
        for r in engine.rules_of(behavior, "WebFetch"):
            if match_host(r.rule, url.host):
                return by_rule(behavior, r)
    entry = engine.preapproved.match(url)
    if entry:
        return Decision("allow", reason=f"{entry} is a preapproved documentation site")
    suggestion = f"WebFetch(domain:{url.host})"
    try:
        ok = settings_mod.restriction(parse_rule(suggestion)) is None
    except RuleError:
        ok = False
    return Decision(
        "ask",
        reason=f"no rule allows fetching from {url.host}",
        suggestions=(suggestion,) if ok else (),
    )
