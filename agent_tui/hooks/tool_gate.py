"""`PreToolUse` and `PostToolUse` around one tool call.

PreToolUse runs after the permission engine decided and before anyone is asked: its input has
Claude Code's fields (`tool_name`, `tool_input`, `tool_use_id`) plus how the engine decided
(`permission_decision` allow/deny/ask, `decided_by` rule/mode/default/sandbox, `rule`,
`rule_source`). A hook's deny (exit 2, or JSON) denies with its reason for the model; its ask
makes an allowed call ask; its allow spares the question, never a deny. A hook's `updatedInput`
rewrites the call: the rewritten call is decided anew by the engine (a hook can't slip a command
past the rules by rewriting an allowed one), then the hooks' verdict applies to that decision;
its `additionalContext` is added to the result the model reads.

PostToolUse gets the same plus `tool_response` and the final `decided_by` (user, rule, mode,
hook, headless, …); exit 2's stderr, or a JSON block's reason, is added to the result the model
reads (the call already ran).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from agent_tui.hooks.outcome import Verdict, judge
from agent_tui.permissions.types import Decision
from agent_tui.protocol.events import Event, Notice

if TYPE_CHECKING:
    from agent_tui.tools.base import ToolOutput


def _say(verdict: Verdict, emit: Callable[[Event], None]) -> None:
    for line in verdict.notices:
        emit(Notice("warning", line))


def decision_fields(decision: Decision) -> dict[str, Any]:
    return {
        "permission_decision": decision.behavior,
        "decided_by": decision.source,
        "rule": decision.rule,
        "rule_source": decision.rule_source or None,
    }


@dataclass
class PreToolOutcome:
    """What the PreToolUse hooks made of one call: their verdict (None: no hook matched)."""

    verdict: Verdict | None = None

    @property
    def updated_input(self) -> dict[str, Any] | None:
        if self.verdict is None or self.verdict.decision == "deny":
            return None
        return self.verdict.updated_input

    @property
    def context(self) -> list[str]:
        return self.verdict.context if self.verdict is not None else []

    def apply(self, decision: Decision) -> Decision:
        """The engine's decision as the hooks leave it."""
        verdict = self.verdict
        if verdict is None:
            return decision
        if verdict.decision == "deny":
            why = verdict.block or verdict.reason or "denied by a PreToolUse hook"
            return Decision("deny", reason=f"blocked by a PreToolUse hook: {why}", source="hook")
        if verdict.decision == "ask" and decision.behavior == "allow":
            why = verdict.reason or "a PreToolUse hook asks for this call"
            return replace(decision, behavior="ask", reason=why, source="hook", rule=None)
        if verdict.decision == "allow" and decision.behavior == "ask":
            why = verdict.reason or "allowed by a PreToolUse hook"
            return replace(decision, behavior="allow", reason=why, source="hook", rule=None)
        return decision


async def pre_tool(
    hooks: Any,
    tool_use_id: str,
    tool: str,
    raw: dict[str, Any],
    decision: Decision,
    emit: Callable[[Event], None],
) -> PreToolOutcome:
    """The PreToolUse hooks' verdict on a call the engine decided (`decision`)."""
    if not hooks.matching("PreToolUse", tool):
        return PreToolOutcome()
    fields = {"tool_name": tool, "tool_input": raw, "tool_use_id": tool_use_id}
    runs = await hooks.run("PreToolUse", {**fields, **decision_fields(decision)}, tool)
    verdict = judge("PreToolUse", runs)
    _say(verdict, emit)
    return PreToolOutcome(verdict)


async def post_tool(
    hooks: Any,
    tool_use_id: str,
    tool: str,
    raw: dict[str, Any],
    output: ToolOutput,
    decided: dict[str, Any],
    emit: Callable[[Event], None],
) -> ToolOutput:
    """The tool's output, with what the PostToolUse hooks say to the model added."""
    if not hooks.matching("PostToolUse", tool):
        return output
    response = {"content": output.content, "is_error": output.is_error}
    if output.exit_code is not None:
        response["exit_code"] = output.exit_code
    fields = {"tool_name": tool, "tool_input": raw, "tool_use_id": tool_use_id}
    runs = await hooks.run("PostToolUse", {**fields, "tool_response": response, **decided}, tool)
    verdict = judge("PostToolUse", runs)
    _say(verdict, emit)
    notes = [f"[PostToolUse hook: {verdict.block}]"] if verdict.block else []
    notes += [f"[PostToolUse hook context: {c}]" for c in verdict.context]
    if notes:
        sep = "" if output.content.endswith("\n") else "\n"
        output.content = output.content + sep + "\n".join(notes)
    return output


_notifying: set[asyncio.Task[Any]] = set()


def notify(hooks: Any, message: str, kind: str = "permission_prompt") -> None:
    """`Notification` hooks, not waited for (the question is on screen meanwhile): `message`,
    and `notification_type` (what a Notification matcher matches, as in Claude Code)."""
    if not hooks.matching("Notification", kind):
        return
    fields = {"message": message, "notification_type": kind}
    task = asyncio.ensure_future(hooks.run("Notification", fields, kind))
    _notifying.add(task)
    task.add_done_callback(_notifying.discard)
