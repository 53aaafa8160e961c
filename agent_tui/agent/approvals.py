"""The approval policy for one agent: may this tool call run?

In order: the permission engine decides (allow / deny / ask); headless, an ask becomes a deny
(or an allow with `--approve-asks`); otherwise the tool's preview (a diff) is made and the person
is asked through the injected `ask` callback; an "always" answer saves the engine's suggested
rules. Every path ends in `_decided`, the one place an `ApprovalDecided` event is emitted.

The loop only calls `authorize`; the UI changes the permission mode through `set_mode`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from agent_tui.agent.provenance import ProvenanceIndex
from agent_tui.permissions.types import ApprovalAnswer, ApprovalRequest, Decision
from agent_tui.protocol.events import ApprovalDecided, ApprovalRequested, Event, Notice
from agent_tui.tools.base import Tool, ToolContext, ToolInputError, ToolOutput

AskFn = Callable[[ApprovalRequest], Awaitable[ApprovalAnswer]]


class PermissionChecker(Protocol):
    """What the policy needs from a permission engine (see agent_tui.permissions.engine)."""

    mode: str
    save_error: str | None

    def check(self, tool: str, input: dict[str, Any], *, read_only: bool) -> Decision: ...

    def save_always(self, rules: list[str]) -> tuple[str, ...]: ...

    @property
    def explicit_hosts(self) -> frozenset[str]: ...

    @property
    def local_settings(self) -> Path: ...


class AllowAll:
    """No permission engine: everything runs (tests of the loop alone)."""

    mode = "default"
    save_error: str | None = None
    local_settings = Path(".agent-tui/settings.local.toml")

    def check(self, tool: str, input: dict[str, Any], *, read_only: bool) -> Decision:
        return Decision("allow", reason="no permission engine", source="default")

    def save_always(self, rules: list[str]) -> tuple[str, ...]:
        return ()

    @property
    def explicit_hosts(self) -> frozenset[str]:
        return frozenset()


def _no_watch(_paths: list[Path]) -> AbstractContextManager[None]:
    return nullcontext()


def _no_rules(_rules: list[str], _behavior: str, _source: str) -> None:
    """A permission checker without session rules (`AllowAll`): nothing to add."""


async def deny_all(request: ApprovalRequest) -> ApprovalAnswer:
    return ApprovalAnswer("deny", "no one is there to approve")


class Approvals:
    def __init__(
        self,
        permissions: PermissionChecker,
        ask: AskFn,
        emit: Callable[[Event], None],
        *,
        cwd: Path,
        headless: bool = False,
        allow_asks: bool = False,
        sandbox: Any = None,
        hooks: Any = None,
    ) -> None:
        self.permissions = permissions
        #: the session's hooks (`hooks.runner.HookRunner`): PreToolUse sees each decision
        self.hooks = hooks
        #: tool_use id -> how it was decided (decided_by, rule, rule_source), for PostToolUse
        self.decided: dict[str, dict[str, Any]] = {}
        #: the session's OS sandbox (`sandbox.runner.Sandbox`): auto mode and leaving it
        self.sandbox = sandbox
        self.ask = ask
        self.emit = emit
        self.cwd = cwd
        self.headless = headless
        self.allow_asks = allow_asks
        #: tool_use ids of calls allowed as read-only commands (no checkpoint needed)
        self.read_only_calls: dict[str, bool] = {}
        #: tool_use id -> (input, params) a PreToolUse hook rewrote the call to (`updatedInput`)
        self.rewritten: dict[str, tuple[dict[str, Any], Any]] = {}
        #: tool_use id -> what PreToolUse hooks added for the model (`additionalContext`)
        self.hook_context: dict[str, list[str]] = {}
        #: tool_use id -> (hunks the person kept, the hunks shown) for a partly approved edit
        self.hunk_choices: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {}
        #: tool_use ids of calls whose change set the person asked to review before it lands
        self.review_calls: dict[str, bool] = {}
        #: wraps the app's own writes (`Checkpointer.own_writes`, set by the Agent)
        self.own_writes: Callable[[list[Path]], AbstractContextManager[None]] = _no_watch
        #: untrusted text seen so far (fed by the conversation): where a call's text came from
        self.provenance = ProvenanceIndex()

    @property
    def mode(self) -> str:
        return self.permissions.mode

    def set_mode(self, mode: str) -> None:
        """Change the permission mode (raises ValueError for an unknown one)."""
        self.permissions.mode = mode

    async def authorize(
        self, tool_use_id: str, tool: Tool, raw: dict[str, Any], params: Any, ctx: ToolContext
    ) -> ToolOutput | None:
        """None when the call may run; otherwise the is_error result to send the model."""
        decision = self._engine_decision(tool, raw)
        rewritten: dict[str, Any] | None = None
        if self.hooks is not None:
            from agent_tui.hooks.tool_gate import pre_tool

            hooked = await pre_tool(self.hooks, tool_use_id, tool.name, raw, decision, self.emit)
            rewritten = hooked.updated_input
            if rewritten is not None:  # the call as rewritten is the one decided and run
                try:
                    params = tool.validate(rewritten)
                except ToolInputError as exc:
                    return ToolOutput(
                        f"A PreToolUse hook rewrote this call's input into one {tool.name} "
                        f"can't use ({exc}); the call was not run.",
                        is_error=True,
                        summary="invalid input from a hook",
                    )
                raw = rewritten
                self.rewritten[tool_use_id] = (raw, params)
                decision = self._engine_decision(tool, raw)
            decision = hooked.apply(decision)
            if hooked.context:
                self.hook_context[tool_use_id] = list(hooked.context)
        subject = tool.subject(params)
        seen = self.provenance.line(tool.name, raw)

        def decided(allowed: bool, by: str, **extra: Any) -> None:
            verdict = "allow" if allowed else "deny"
            if by != "user" and decision.rule:
                extra.update(rule=decision.rule, rule_source=decision.rule_source)
            self.decided[tool_use_id] = {
                "decided_by": by,
                "rule": extra.get("rule"),
                "rule_source": extra.get("rule_source"),
            }
            event = ApprovalDecided(
                tool_use_id,
                tool.name,
                subject,
                verdict,
                by,
                mode=self.mode,
                provenance=seen,
                updated_input=rewritten,
                **extra,
            )
            self.emit(event)

        if decision.behavior == "allow":
            decided(True, decision.source)
            if decision.read_only:
                self.read_only_calls[tool_use_id] = True
            return None
        if decision.behavior == "deny":
            decided(False, decision.source)
            return ToolOutput(
                f"Permission denied: {decision.reason or decision.rule}. Do not retry this call; "
                "ask the user or try another approach.",
                is_error=True,
                summary="denied",
            )
        if self.headless:
            # Leaving the sandbox needs the person at the keyboard: --approve-asks doesn't do it.
            allow = self.allow_asks and decision.source != "sandbox"
            why = (
                {}
                if allow
                else {"message": decision.reason, "suggestions": [*decision.suggestions]}
            )
            decided(allow, "headless", **why)
            if allow:
                return None
            return ToolOutput(
                f"Permission denied: this call needs approval ({decision.reason}) and no one is "
                "there to give it (headless run). Allow it with --allow.",
                is_error=True,
                summary="denied (headless)",
            )
        if self.hooks is not None:
            from agent_tui.hooks.tool_gate import notify

            notify(self.hooks, f"agent-tui needs your permission to use {tool.name}")
        answer, shown = await self._ask(
            tool_use_id, tool, raw, params, ctx, subject, decision, seen
        )
        allowed = answer.choice != "deny"
        if allowed and answer.hunks is not None:
            self.hunk_choices[tool_use_id] = (answer.hunks, shown)
        if allowed and answer.review:
            self.review_calls[tool_use_id] = True
        decided(
            allowed,
            "user",
            saved_rules=list(answer.saved_rules),
            message=answer.message,
            answer=answer.choice,
            answer_s=answer.took_s,
        )
        if allowed:
            return None
        text = "The user denied this tool call."
        if answer.message:
            text += f" The user says: {answer.message}"
        return ToolOutput(text, is_error=True, summary="denied by you")

    def _engine_decision(self, tool: Tool, raw: dict[str, Any]) -> Decision:
        """The permission engine's decision, with the sandbox's say for Bash."""
        decision = self.permissions.check(tool.name, raw, read_only=tool.read_only)
        if self.sandbox is not None and tool.name == "Bash":
            from agent_tui.sandbox.policy import sandbox_decision

            decision = sandbox_decision(self.sandbox, raw, decision)
        return decision

    async def ask_host(self, tool_use_id: str, tool: str, host: str, port: int) -> bool:
        """A sandboxed call wants to reach a new host: the person decides (headless: only with
        --approve-asks). "Always" saves `WebFetch(domain:HOST)`. Said in the chat either way."""
        from agent_tui.permissions.rules import RuleError, parse_rule

        rule = f"WebFetch(domain:{host})"
        try:
            parse_rule(rule)
            suggestions: tuple[str, ...] = (rule,)
        except RuleError:
            suggestions = ()
        what = f"{tool} wants to reach {host}"
        if port not in (80, 443):
            what += f" (port {port})"
        if self.headless:
            allowed = self.allow_asks
            answer = ApprovalAnswer("once" if allowed else "deny")
        else:
            decision = Decision(
                "ask",
                reason=f"{what}: no rule allows it (the command runs in the sandbox)",
                suggestions=suggestions,
                risk=what,
            )
            request = ApprovalRequest(
                tool_use_id,
                tool,
                {"host": host, "port": port},
                host,
                decision,
                str(self.cwd),
                save_to=str(self.permissions.local_settings),
            )
            answer = await self.ask(request)
            allowed = answer.choice != "deny"
            if answer.choice in ("session", "always") and suggestions:
                self._keep(answer, tuple(suggestions))
        by = "--approve-asks" if self.headless and allowed else "you"
        verdict = f"allowed by {by}" if allowed else "refused by you"
        if self.headless and not allowed:
            verdict = "refused (headless: no one to ask; --approve-asks allows)"
        self.emit(Notice("info" if allowed else "warning", f"{what}: {verdict}"))
        return allowed

    async def ask_forward(self, shell: str, port: int) -> str:
        """A background shell listens on `port` in the sandbox: forward it? (`sandbox_asks`)"""
        from agent_tui.agent.sandbox_asks import ask_forward

        return await ask_forward(self, shell, port)

    async def review_changes(
        self, tool_use_id: str, tool: str, review: Any
    ) -> tuple[int, ...] | None:
        """A sandboxed call's change set needs the person (`sandbox_asks`)."""
        from agent_tui.agent.sandbox_asks import review_changes

        return await review_changes(self, tool_use_id, tool, review)

    async def _ask(
        self,
        tool_use_id: str,
        tool: Tool,
        raw: dict[str, Any],
        params: Any,
        ctx: ToolContext,
        subject: str,
        decision: Decision,
        provenance: str = "",
    ) -> tuple[ApprovalAnswer, tuple[str, ...]]:
        try:
            preview = tool.preview(params, ctx)
            shown = tuple(h.text for h in tool.hunks(params, ctx))
        except Exception as exc:  # a preview that cannot be made must not block the question
            preview, shown = f"(no preview: {exc})", ()
        request = ApprovalRequest(
            tool_use_id,
            tool.name,
            raw,
            subject,
            decision,
            str(self.cwd),
            preview,
            save_to=str(self.permissions.local_settings),
            hunks=shown,
            provenance=provenance,
            can_review=self._reviewable(tool.name, raw),
        )
        self.emit(ApprovalRequested(tool_use_id, tool.name, subject, decision.reason))
        answer = await self.ask(request)
        if answer.choice in ("session", "always") and decision.suggestions:
            answer = self._keep(answer, decision.suggestions)
        return answer, shown

    def _reviewable(self, tool: str, raw: dict[str, Any]) -> bool:
        """A Bash call that will run as a transaction: its change set can wait for review."""
        sandbox = self.sandbox
        if tool != "Bash" or sandbox is None or raw.get("run_in_background"):
            return False
        if raw.get("dangerouslyDisableSandbox") is True:
            return False
        return bool(sandbox.active and sandbox.transactional)

    def _keep(self, answer: ApprovalAnswer, suggested: tuple[str, ...]) -> ApprovalAnswer:
        """A "session" answer's rules apply until the app quits; an "always" answer's (as the
        person edited them) are saved too. A rule that can't be is said, never half-applied."""
        rules = list(answer.saved_rules or suggested)
        if answer.choice == "session":
            try:
                getattr(self.permissions, "add_rules", _no_rules)(rules, "allow", "session")
            except ValueError as exc:  # RuleError: the edited line doesn't parse
                self.emit(Notice("warning", f"Could not apply {', '.join(rules)}: {exc}"))
                return replace(answer, saved_rules=())
            return replace(answer, saved_rules=tuple(rules))
        mine = [self.cwd / self.permissions.local_settings, self.cwd / ".gitignore"]
        try:
            with self.own_writes(mine):  # the app's writes, never a running call's change
                saved = tuple(self.permissions.save_always(rules) or ())
        except ValueError as exc:  # a rule a project's local file may not hold, or malformed
            self.emit(Notice("warning", f"Could not save {', '.join(rules)}: {exc}"))
            return replace(answer, saved_rules=())
        answer = replace(answer, saved_rules=saved)
        problem = getattr(self.permissions, "save_error", None)
        if not saved or problem:
            self.emit(
                Notice(
                    "warning",
                    f"Could not save {', '.join(rules)}: "
                    f"{problem or 'unknown error'}. It applies for this session only.",
                )
            )
        return answer
