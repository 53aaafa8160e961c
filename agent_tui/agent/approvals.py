"""The approval policy for one agent: may this tool call run?

In order: the permission engine decides (allow / deny / ask); headless, an ask becomes a deny
(or an allow with `--approve-asks`); otherwise the tool's preview (a diff) is made and the person
is asked through the injected `ask` callback; an "always" answer saves the engine's suggested
rules. Every path ends in `_decided`, the one place an `ApprovalDecided` event is emitted.

The loop only calls `authorize`; the UI changes the permission mode through `set_mode`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.agent.provenance import ProvenanceIndex
from agent_tui.agent.verdict import HunkChoice, Verdict
from agent_tui.permissions.types import ApprovalAnswer, ApprovalRequest, Behavior, Decision
from agent_tui.protocol.events import ApprovalDecided, ApprovalRequested, Event, Notice
from agent_tui.tools.base import Tool, ToolContext, ToolInputError, ToolOutput

if TYPE_CHECKING:
    from agent_tui.permissions.settings import SourcedRule

AskFn = Callable[[ApprovalRequest], Awaitable[ApprovalAnswer]]


class PermissionChecker(Protocol):
    """What the session needs from a permission engine (see agent_tui.permissions.engine): all
    of it, so nothing is reached for by name."""

    mode: str
    #: why the last "always" rule could not be saved (None: it was)
    save_error: str | None
    #: problems in the settings files read, said once at the start
    load_warnings: tuple[str, ...]
    #: what the project's own files would grant, run or shape, held until it is trusted
    untrusted_grants: tuple[SourcedRule, ...]
    untrusted_hooks: tuple[str, ...]
    untrusted_files: tuple[str, ...]

    def check(self, tool: str, input: dict[str, Any], *, read_only: bool) -> Decision: ...

    def save_always(self, rules: list[str]) -> tuple[str, ...]: ...

    def add_rules(self, texts: Iterable[str], behavior: Behavior, source: str = "session") -> None:
        """Rules for this session only (raises `RuleError`, a ValueError, for one that can't
        be parsed)."""

    def read_denied(self, path: Path) -> bool:
        """A deny rule keeps this file from being read."""

    @property
    def explicit_hosts(self) -> frozenset[str]: ...

    @property
    def local_settings(self) -> Path: ...

    @property
    def trust_question(self) -> tuple[str, ...]:
        """What the project's files would grant or run, asked once (empty: nothing to ask)."""

    @property
    def project_trusted(self) -> bool: ...

    @property
    def settings_broken(self) -> bool:
        """A settings file could not be read: its deny rules may be missing."""


class AllowAll:
    """No permission engine: everything runs (tests of the loop alone)."""

    mode = "default"
    save_error: str | None = None
    load_warnings: tuple[str, ...] = ()
    untrusted_grants: tuple[SourcedRule, ...] = ()
    untrusted_hooks: tuple[str, ...] = ()
    untrusted_files: tuple[str, ...] = ()
    local_settings = Path(".agent-tui/settings.local.toml")
    trust_question: tuple[str, ...] = ()
    project_trusted = False
    settings_broken = False

    def check(self, tool: str, input: dict[str, Any], *, read_only: bool) -> Decision:
        return Decision("allow", reason="no permission engine", source="default")

    def save_always(self, rules: list[str]) -> tuple[str, ...]:
        return ()

    def add_rules(self, texts: Iterable[str], behavior: Behavior, source: str = "session") -> None:
        """No session rules to add to."""

    def read_denied(self, path: Path) -> bool:
        return False

    @property
    def explicit_hosts(self) -> frozenset[str]:
        return frozenset()


def _no_watch(_paths: list[Path]) -> AbstractContextManager[None]:
    return nullcontext()


async def deny_all(request: ApprovalRequest) -> ApprovalAnswer:
    return ApprovalAnswer("deny", "no one is there to approve")


@dataclass(frozen=True, slots=True)
class _Call:
    """The call being decided: as sent, or as a PreToolUse hook rewrote it."""

    id: str
    tool: Tool
    input: dict[str, Any]
    params: Any
    rewritten: bool = False
    #: what PreToolUse hooks added for the model
    context: tuple[str, ...] = ()
    #: what it acts on, and where its text was seen before (`provenance`)
    subject: str = ""
    seen: str = ""


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
        #: the session's OS sandbox (`sandbox.runner.Sandbox`): auto mode and leaving it
        self.sandbox = sandbox
        self.ask = ask
        self.emit = emit
        self.cwd = cwd
        self.headless = headless
        self.allow_asks = allow_asks
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
    ) -> Verdict:
        """Whether the call may run, and as what. Every verdict but a hook's unusable rewrite
        is said once, as an `ApprovalDecided` event."""
        call = _Call(tool_use_id, tool, raw, params)
        decision = self._engine_decision(tool, raw)
        if self.hooks is not None:
            hooked = await self._pre_tool(call, decision)
            if isinstance(hooked, Verdict):
                return hooked
            call, decision = hooked
        call = replace(call, subject=tool.subject(call.params))
        call = replace(call, seen=self.provenance.line(tool.name, call.input))
        if decision.behavior == "allow":
            read_only = decision.read_only
            return self._decided(call, decision, None, decision.source, read_only=read_only)
        if decision.behavior == "deny":
            denial = ToolOutput(
                f"Permission denied: {decision.reason or decision.rule}. Do not retry this call; "
                "ask the user or try another approach.",
                is_error=True,
                summary="denied",
            )
            return self._decided(call, decision, denial, decision.source)
        if self.headless:
            return self._headless(call, decision)
        return await self._ask_person(call, decision, ctx)

    async def _pre_tool(self, call: _Call, decision: Decision) -> tuple[_Call, Decision] | Verdict:
        """The PreToolUse hooks' say: a rewritten call is decided anew, then their verdict
        applies; a rewrite the tool can't use is refused (a verdict no event says)."""
        from agent_tui.hooks.tool_gate import pre_tool

        tool = call.tool
        hooked = await pre_tool(self.hooks, call.id, tool.name, call.input, decision, self.emit)
        rewritten = hooked.updated_input
        if rewritten is not None:  # the call as rewritten is the one decided and run
            try:
                params = tool.validate(rewritten)
            except ToolInputError as exc:
                refused = ToolOutput(
                    f"A PreToolUse hook rewrote this call's input into one {tool.name} "
                    f"can't use ({exc}); the call was not run.",
                    is_error=True,
                    summary="invalid input from a hook",
                )
                return Verdict(False, refused, call.input, call.params)
            call = replace(call, input=rewritten, params=params, rewritten=True)
            decision = self._engine_decision(tool, rewritten)
        return replace(call, context=tuple(hooked.context)), hooked.apply(decision)

    def _headless(self, call: _Call, decision: Decision) -> Verdict:
        """No one to ask: an ask is a deny, or an allow with --approve-asks (never leaving the
        sandbox: that needs the person at the keyboard)."""
        if self.allow_asks and decision.source != "sandbox":
            return self._decided(call, decision, None, "headless")
        denial = ToolOutput(
            f"Permission denied: this call needs approval ({decision.reason}) and no one is "
            "there to give it (headless run). Allow it with --allow.",
            is_error=True,
            summary="denied (headless)",
        )
        return self._decided(
            call,
            decision,
            denial,
            "headless",
            message=decision.reason,
            suggestions=[*decision.suggestions],
        )

    async def _ask_person(self, call: _Call, decision: Decision, ctx: ToolContext) -> Verdict:
        if self.hooks is not None:
            from agent_tui.hooks.tool_gate import notify

            notify(self.hooks, f"agent-tui needs your permission to use {call.tool.name}")
        answer, shown = await self._ask(call, ctx, decision)
        allowed = answer.choice != "deny"
        denial = None
        if not allowed:
            text = "The user denied this tool call."
            if answer.message:
                text += f" The user says: {answer.message}"
            denial = ToolOutput(text, is_error=True, summary="denied by you")
        return self._decided(
            call,
            decision,
            denial,
            "user",
            hunks=(answer.hunks, shown) if allowed and answer.hunks is not None else None,
            review=allowed and bool(answer.review),
            saved_rules=list(answer.saved_rules),
            message=answer.message,
            answer=answer.choice,
            answer_s=answer.took_s,
        )

    def _decided(
        self,
        call: _Call,
        decision: Decision,
        denial: ToolOutput | None,
        by: str,
        *,
        read_only: bool = False,
        hunks: HunkChoice | None = None,
        review: bool = False,
        **extra: Any,
    ) -> Verdict:
        """The one place a verdict is made and said (`ApprovalDecided`)."""
        if by != "user" and decision.rule:
            extra.update(rule=decision.rule, rule_source=decision.rule_source)
        tool = call.tool
        self.emit(
            ApprovalDecided(
                call.id,
                tool.name,
                call.subject,
                "deny" if denial is not None else "allow",
                by,
                mode=self.mode,
                provenance=call.seen,
                updated_input=call.input if call.rewritten else None,
                **extra,
            )
        )
        return Verdict(
            denial is None,
            denial,
            call.input,
            call.params,
            decided_by=by,
            rule=extra.get("rule"),
            rule_source=extra.get("rule_source"),
            read_only=read_only,
            hunks=hunks,
            review=review,
            hook_context=call.context,
        )

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
        self, call: _Call, ctx: ToolContext, decision: Decision
    ) -> tuple[ApprovalAnswer, tuple[str, ...]]:
        tool, raw, params = call.tool, call.input, call.params
        try:
            preview = tool.preview(params, ctx)
            shown = tuple(h.text for h in tool.hunks(params, ctx))
        except Exception as exc:  # a preview that cannot be made must not block the question
            preview, shown = f"(no preview: {exc})", ()
        request = ApprovalRequest(
            call.id,
            tool.name,
            raw,
            call.subject,
            decision,
            str(self.cwd),
            preview,
            save_to=str(self.permissions.local_settings),
            hunks=shown,
            provenance=call.seen,
            can_review=self._reviewable(tool.name, raw),
        )
        self.emit(ApprovalRequested(call.id, tool.name, call.subject, decision.reason))
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
                self.permissions.add_rules(rules, "allow", "session")
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
        problem = self.permissions.save_error
        if not saved or problem:
            self.emit(
                Notice(
                    "warning",
                    f"Could not save {', '.join(rules)}: "
                    f"{problem or 'unknown error'}. It applies for this session only.",
                )
            )
        return answer
