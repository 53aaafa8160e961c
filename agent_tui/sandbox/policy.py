"""How the sandbox changes a Bash decision (the permission engine's answer comes first):

- `auto` (the default): where the sandbox runs commands as transactions (its overlay, the
  commit gate, HOME, the environment and sockets by allow-list), a command the analyser asks
  about only for what the sandbox contains — it may run code, it writes inside the project, it
  writes outside it or to a protected path (`Decision.kinds` ⊆ AUTO_KINDS) — runs inside without
  asking: what it writes outside fails, what it writes to a protected file waits at the gate.
  Deny rules, ask rules, destructive commands and an incomplete analysis still ask (or deny), a
  new host asks at the proxy. Where commands can't run as transactions (no overlay here),
  `auto` asks as `on` does.
- `dangerouslyDisableSandbox: true` (Claude Code's Bash input): always asks, in every mode, yolo
  included, and no rule can allow it ("always" is not offered). A deny still denies.
- A command the person excluded (`excludedCommands`) runs outside, under the usual questions.
- Where the sandbox isn't running, none of this applies: the decision stands.
"""

from __future__ import annotations

from typing import Any

from agent_tui.permissions.types import Decision

AUTO_KINDS = frozenset({"code", "write", "outside", "protected"})
OUTSIDE_RISK = (
    "runs OUTSIDE the sandbox: it can change any file you can and reach any host — the model "
    "asked to leave it"
)


def sandbox_decision(sandbox: Any, raw: dict[str, Any], decision: Decision) -> Decision:
    if not sandbox.active:
        return decision
    command = raw.get("command")
    if isinstance(command, str) and sandbox.excluded(command):
        return decision  # runs outside, as the person set: the usual questions, no free pass
    if raw.get("dangerouslyDisableSandbox") is True:
        if decision.behavior == "deny":
            return decision
        why = "the model asks to run this command outside the sandbox (dangerouslyDisableSandbox)"
        if decision.behavior == "ask" and decision.reason:
            why += f"; inside it would ask too: {decision.reason}"
        return Decision(
            "ask",
            reason=why,
            source="sandbox",
            risk=OUTSIDE_RISK,
            highlights=decision.highlights,
            kinds=decision.kinds,
        )
    if (
        sandbox.mode == "auto"
        and decision.behavior == "ask"
        and decision.kinds
        and set(decision.kinds) <= AUTO_KINDS
        and sandbox.transactional
    ):
        return Decision(
            "allow",
            reason=f"runs inside the sandbox without asking (auto mode): {decision.reason}",
            source="sandbox",
        )
    return decision
