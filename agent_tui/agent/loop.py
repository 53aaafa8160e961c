"""The turn state machine.

A turn sends the conversation, streams one response, then acts on what came back: `tool_use` runs
the requested tools (through permissions and approvals) and sends one `tool_result` per id;
`pause_turn` resends the paused content unchanged; `end_turn`/`stop_sequence` end the turn;
`max_tokens`, `refusal` and anything unknown end it with a visible notice. The number of requests
is never fixed: the stop reason and the blocks decide."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.agent import background
from agent_tui.agent import stop_reasons as stops
from agent_tui.agent.approvals import AllowAll, Approvals, AskFn, PermissionChecker, deny_all
from agent_tui.agent.budget import SpendFn, SpendingCap, SpendingCapReached
from agent_tui.agent.capped_provider import CappedProvider
from agent_tui.agent.compaction import Compactor
from agent_tui.agent.config import AgentConfig, request_defaults
from agent_tui.agent.conversation import Conversation
from agent_tui.agent.cost import cost_usd
from agent_tui.agent.retries import after_failure
from agent_tui.agent.startup_notes import StartupNotes
from agent_tui.agent.tool_runner import ToolCall, ToolRunner, tool_result
from agent_tui.agent.turn_hooks import before_compact, before_prompt, stop_continues
from agent_tui.checkpoints.checkpointer import Checkpointer
from agent_tui.protocol.assembler import StreamAssembler, StreamError
from agent_tui.protocol.events import (
    BlockFinished,
    Event,
    Notice,
    RequestStarted,
    StreamFailed,
    ToolFinished,
    TurnFinished,
    TurnStarted,
    Usage,
    UsageCounted,
)
from agent_tui.providers.base import MessageRequest, Provider, ProviderError, StreamStalled
from agent_tui.providers.drain import drain
from agent_tui.redact import redact
from agent_tui.tools.base import ToolRegistry
from agent_tui.tools.media import prompt_attachments

if TYPE_CHECKING:
    from agent_tui.mcp_servers.session_setup import McpSetup

Listener = Callable[[Event], None]


class TaskRunner(Protocol):
    """Task's runner (`agent.subagents.SubAgents`), as the agent's other parts know it."""

    #: the sub-agent types by name (`agent.subagents.AgentType`)
    types: dict[str, Any]
    #: called with each new sub-agent and its label (the session recorder links it)
    on_start: Callable[[Agent, str], None] | None


CANCELLED = "cancelled by user"
RESUME_PROMPT = "Your previous response was cut off by a connection problem. Please continue."


class _CompactionRefused(Exception):
    """The API refused the server-side compaction edit: the request goes again without it."""


@dataclass
class _Turn:
    """How far the running turn got: its requests, continuations and stop reason so far."""

    requests: int = 0
    continuations: int = 0
    cut_short: int = 0
    stop_reason: str | None = None


class _StreamBroken(Exception):
    def __init__(self, message: str, retryable: bool, assembler: StreamAssembler) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.assembler = assembler


class Agent:
    def __init__(
        self,
        provider: Provider,
        tools: ToolRegistry,
        config: AgentConfig,
        *,
        permissions: PermissionChecker | None = None,
        ask: AskFn = deny_all,
        conversation: Conversation | None = None,
        confirm_spend: SpendFn | None = None,
    ) -> None:
        # Every request goes through the spending cap (`agent.budget`); a sub-agent shares its
        # parent's, and only the parent's turns start a new turn of it.
        self._owns_budget = not isinstance(provider, CappedProvider)
        if not isinstance(provider, CappedProvider):
            provider = CappedProvider(provider, SpendingCap(config, self.emit, confirm_spend))
        self.budget = provider.budget
        self.provider: CappedProvider = provider
        self.tools = tools
        self.config = config
        self.approvals = Approvals(
            permissions or AllowAll(),
            ask,
            self.emit,
            cwd=config.cwd,
            headless=config.headless,
            allow_asks=config.allow_asks,
            sandbox=config.sandbox,
            hooks=config.hooks,
        )
        self.runner = ToolRunner(tools, self.approvals, self.emit, config, provider)
        #: what each turn changed on disk (a sub-agent's calls go to its parent's)
        self.checkpoints = self.runner.checkpoints = Checkpointer(config.cwd, self.emit)
        self.approvals.own_writes = self.checkpoints.own_writes
        #: the memory files (AGENTS.md, CLAUDE.md) in the system prompt, for the person to see
        self.memory_files: tuple[Any, ...] = ()
        #: Task's runner (`agent.subagents.SubAgents`), the MCP servers (`attach_mcp`)
        self.subagents: TaskRunner | None = None
        self.mcp: McpSetup | None = None
        self.conversation = conversation or Conversation()
        self.conversation.observers.append(self.approvals.provenance)
        self.compactor = Compactor(
            provider, config, lambda: self.conversation, self.emit, self.count
        )
        self.listeners: list[Listener] = []
        self.session_usage, self.session_cost = Usage(), 0.0
        #: what the running turn has spent so far: its requests (`count`) and its tools
        self.turn_usage, self.turn_cost = Usage(), 0.0
        self._task: asyncio.Task[Any] | None = None
        self._cancel_requested = self.running = False
        #: the last turn failed in a way that a retry (`retry()`) can pick up
        self.can_retry = False
        background.attach(self)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.conversation.messages

    def switch_model(self, model: str) -> None:
        """Use another model from the next request on (the prompt cache is per model, so it
        starts anew); the system prompt's "You are …" line follows."""
        old = self.config.model
        self.config.model = model
        self.config.system = self.config.system.replace(f"You are {old}.", f"You are {model}.")
        self.provider.label = model
        self.tools.model_changed(self.provider, model)  # deferred tools: see tools.deferred

    def set_session_spend(self, usage: Usage, cost: float) -> None:
        """What this session had spent before this run (a resumed one), or 0 (a new one): the
        totals shown and the spending cap count the whole session."""
        self.session_usage, self.session_cost = usage, cost
        self.budget.restart(cost)

    @property
    def permissions(self) -> PermissionChecker:
        return self.approvals.permissions

    def startup_notes(self) -> StartupNotes:
        """What the person should hear about this session's start (`agent.startup_notes`)."""
        return StartupNotes(self.permissions, self.provider, self.config.sandbox)

    def count(self, usage: Usage, cost: float | None = None) -> None:
        """A request of this turn ended (finished, failed, retried or cancelled): what it used;
        or what a tool's own requests cost (given)."""
        cost = cost_usd(self.config.model, usage) if cost is None else cost
        self.turn_usage += usage
        self.turn_cost += cost
        self.emit(UsageCounted(usage, cost))

    def emit(self, event: Event) -> None:
        for listener in list(self.listeners):
            listener(event)

    def cancel(self) -> bool:
        """Stop the running turn; tools in flight are killed and answered "cancelled by user"."""
        if self._task is None or self._task.done():
            return False
        self._cancel_requested = True
        self._task.cancel()
        return True

    # --- turns -------------------------------------------------------------------------------

    async def submit(self, prompt: str) -> TurnFinished:
        """Run one turn for a new prompt."""
        self._close_dangling_tool_uses("not run: the previous turn ended first")
        blocked, extra = await before_prompt(self, prompt, self._owns_budget)
        if blocked is not None:
            return blocked
        images, notes = prompt_attachments(prompt, self.config.cwd)
        self.conversation.add_prompt(prompt + extra, images)
        at = len(self.messages) - 1
        self.checkpoints.begin_turn(at, prompt)
        self.emit(TurnStarted(prompt, at))
        for note in notes:
            self.emit(Notice("info", f"{note[0].upper()}{note[1:]}."))
        return await self._run_turn(prompt_at=at)

    async def retry(self) -> TurnFinished:
        """Run the turn again from the conversation as it stands (after a failure)."""
        self._close_dangling_tool_uses("not run: the stream failed before the call completed")
        if self.conversation.last_role == "assistant":
            # The kept partial answer: a request may not end on it (prefill is refused by newer
            # models and rejected with trailing whitespace), so ask for the rest instead.
            self.conversation.add_prompt(RESUME_PROMPT)
        self.emit(Notice("info", "Retrying…"))
        return await self._run_turn()

    async def _run_turn(self, prompt_at: int | None = None) -> TurnFinished:
        if self._owns_budget:  # a sub-agent's turn is part of its parent's
            self.budget.new_turn()
        self._task = asyncio.current_task()
        self._cancel_requested, self.running, self.can_retry = False, True, False
        self.turn_usage, self.turn_cost = Usage(), 0.0
        turn = _Turn()
        try:
            await self._steps(turn)
            return await self._finish(turn.stop_reason, turn.requests)
        except SpendingCapReached:  # the last request was not sent; the budget said why
            self._close_dangling_tool_uses("not run: the spending cap was reached")
            if turn.requests == 1 and prompt_at is not None:  # the prompt itself never went
                self.conversation.withdraw_prompt(prompt_at)
            return await self._finish("max_cost", turn.requests - 1)
        except _StreamBroken as exc:
            self._close_dangling_tool_uses("not run: the stream failed before the call completed")
            self.can_retry = True
            self.emit(StreamFailed(exc.message, exc.retryable, exc.assembler.partial_text()))
            return await self._finish(None, turn.requests, failed=True)
        except asyncio.CancelledError:
            if not self._cancel_requested:
                raise
            self._close_dangling_tool_uses(CANCELLED)
            self.emit(Notice("warning", "Cancelled."))
            return await self._finish(None, turn.requests, cancelled=True)
        finally:
            self.running = False
            self._task = None

    async def _steps(self, turn: _Turn) -> None:
        """Request after request until the stop reason and the blocks end the turn."""
        while True:
            if self.compactor.due() and not self.conversation.pending_tool_uses():
                await self._compact_step()
            turn.requests += 1
            self.emit(RequestStarted(turn.requests))
            try:
                assembler, budget_cut = await self._request()
            except _CompactionRefused:
                continue  # again without the edit, compacting on the client if it's time
            self.compactor.note(assembler)
            turn.stop_reason = stop_reason = assembler.stop_reason
            if stop_reason == "compaction":
                continue  # the server paused after compacting: go on from the summary
            if stop_reason == "pause_turn" and not self.conversation.pending_tool_uses():
                turn.continuations += 1
                if self._goes_on_paused(turn.continuations):
                    continue  # the paused content is already the last message; resend it
                return
            if stop_reason == "max_tokens" and budget_cut is not None:
                # cut by what the cap could pay for: said, and not continued (the rest would
                # cost what the cap doesn't allow)
                self.emit(Notice("warning", self.budget.cut_text(budget_cut)))
                self._close_dangling_tool_uses("not run: the spending cap cut the answer")
                turn.stop_reason = "max_cost"
                return
            if stop_reason == "max_tokens" and self._cut_short_answer():
                turn.cut_short += 1
                if self._goes_on_cut(turn.cut_short):
                    continue
            if stop_reason == "tool_use" and self.conversation.pending_tool_uses():
                await self._run_tools(assembler)
                if self.config.max_turns is None or turn.requests < self.config.max_turns:
                    continue
                turn.stop_reason = "max_turns"  # `--max-turns`: the results go unanswered
                return
            self._end_notice(stop_reason)
            if not await stop_continues(self, stop_reason, self._owns_budget):
                return

    def _goes_on_paused(self, continuations: int) -> bool:
        if continuations <= stops.MAX_CONTINUATIONS:
            return True
        paused = f"The model paused {stops.MAX_CONTINUATIONS} times in one turn; stopping "
        self.emit(Notice("warning", paused + "here. Send a prompt to let it go on."))
        return False

    def _goes_on_cut(self, cut_short: int) -> bool:
        """An answer cut by the output limit goes on where it stopped, instead of ending the
        turn half-said (bounded: a runaway answer still ends)."""
        if cut_short > stops.MAX_LENGTH_CONTINUATIONS:
            return False
        self.emit(Notice("info", "The answer hit the output limit; continuing…"))
        self.conversation.add_prompt(stops.LENGTH_PROMPT)
        return True

    async def _finish(
        self,
        stop_reason: str | None,
        requests: int,
        *,
        failed: bool = False,
        cancelled: bool = False,
    ) -> TurnFinished:
        await background.before_turn_end(self)
        await self.checkpoints.end_turn()
        usage, cost = self.turn_usage, self.turn_cost
        self.session_usage += usage
        self.session_cost += cost
        event = TurnFinished(stop_reason, usage, cost, requests, cancelled, failed)
        self.emit(event)
        return event

    def _cut_short_answer(self) -> bool:
        return not self.conversation.pending_tool_uses() and stops.cut_short(self.messages)

    def _end_notice(self, stop_reason: str | None) -> None:
        # A tool call the turn will not run (a finished answer should have none; a cut-off one
        # may) is answered anyway, so the conversation stays valid.
        unanswered = self._close_dangling_tool_uses(f"not run: the response ended ({stop_reason})")
        text = stops.stop_notice(stop_reason, unanswered)
        if text:
            self.emit(Notice("warning", text))

    # --- one request -------------------------------------------------------------------------

    def _request_for(self) -> MessageRequest:
        return MessageRequest(
            messages=self.conversation.request_messages(),
            system=self.config.system,
            tools=self.tools.schemas(),
            **request_defaults(self.config),  # model, max_tokens, thinking, effort
            **self.compactor.request_fields(),
        )

    async def compact(self, instructions: str = "") -> TurnFinished:
        """`/compact`: summarise the older turns now (a turn of its own, with its cost)."""
        self.budget.new_turn()
        self._task, self.running = asyncio.current_task(), True
        self.turn_usage, self.turn_cost = Usage(), 0.0
        try:
            await self._compact_step(instructions, "manual")
        except asyncio.CancelledError:
            pass  # what the summary request used so far is counted all the same
        finally:
            self.running, self._task = False, None
        return await self._finish(None, 1)

    async def _compact_step(self, instructions: str = "", trigger: str = "auto") -> None:
        if await before_compact(self, trigger, instructions):
            await self.compactor.run(self.tools.schemas(), instructions)

    async def _request(self) -> tuple[StreamAssembler, int | None]:
        """One response (retried while nothing arrived), and the max_tokens the spending cap
        cut it to (None: as asked)."""
        attempt = 0
        while True:
            assembler = StreamAssembler()
            request = self._request_for()
            try:
                await self._consume(request, assembler)
                return assembler, request.budget_cut
            except (ProviderError, StreamError) as exc:
                if isinstance(exc, SpendingCapReached):
                    raise
                if isinstance(exc, ProviderError) and self.compactor.refused(exc):
                    raise _CompactionRefused() from None
                step = after_failure(exc, attempt, assembler.got_content, self.config)
                if step.delay is None:
                    raise _StreamBroken(step.text, step.retryable, assembler) from None
                attempt += 1
                self.emit(Notice("warning", step.text, retrying=True))
                await asyncio.sleep(step.delay)
                continue
            except StreamStalled:
                quiet = self.config.stall_timeout
                stalled = f"The stream stalled: nothing arrived for {quiet:.0f}s."
                raise _StreamBroken(stalled, True, assembler) from None
            except Exception as exc:  # a provider or stream bug must end the turn, not crash it
                message = redact(f"The stream failed: {type(exc).__name__}: {exc}")
                raise _StreamBroken(message, False, assembler) from None

    async def _consume(self, request: MessageRequest, assembler: StreamAssembler) -> None:
        opened = self.conversation.last_role == "assistant"  # a pause_turn continuation
        # A server_tool_use is held back until the next block (its result) arrives, so a stream
        # cut between the two leaves no unanswered server call in the conversation. A finished
        # message keeps it even unanswered: that is how pause_turn hands it back.
        held: list[dict[str, Any]] = []

        def commit(blocks: list[dict[str, Any]]) -> None:
            nonlocal opened
            if blocks and not opened:
                self.conversation.begin("assistant")
                opened = True
            for block in blocks:
                self.conversation.append(block)
            blocks.clear()

        def on_event(event: Event) -> None:
            if isinstance(event, BlockFinished):
                if event.block.get("type") == "server_tool_use":
                    held.append(event.block)
                else:
                    commit(held)
                    commit([event.block])
            self.emit(event)

        try:
            await drain(
                self.provider,
                request,
                count=self.count,
                stall_timeout=self.config.stall_timeout,
                assembler=assembler,
                on_event=on_event,
            )
        except BaseException:
            self.conversation.keep_partial(assembler, opened)
            raise
        if assembler.stopped:
            commit(held)
        else:
            self.conversation.keep_partial(assembler, opened)
            raise ProviderError(
                "The stream ended before the response was complete.",
                retryable=True,
                kind="incomplete_stream",
            )

    # --- tools -------------------------------------------------------------------------------

    async def _run_tools(self, assembler: StreamAssembler) -> None:
        """The response's calls run, each answered; a call whose input arrived broken carries
        why (the assembler's `ToolCallReady`), and is answered with it instead."""
        broken = {c.tool_use_id: c.input_error for c in assembler.tool_calls if c.input_error}
        calls = [ToolCall.of(b, broken.get(b["id"])) for b in self.conversation.pending_tool_uses()]
        self.conversation.begin("user")
        async for call, output in self.runner.run_all(calls):
            self.conversation.append(tool_result(call.id, output))
            if output.usage is not None:  # a tool's own requests (WebSearch, WebFetch, Task)
                model = output.meta.get("model", self.config.model)
                self.count(output.usage, output.meta.get("cost_usd", cost_usd(model, output.usage)))

    def _close_dangling_tool_uses(self, reason: str) -> int:
        closed = self.conversation.close_dangling(reason)
        for call in closed if reason == CANCELLED else ():
            self.emit(ToolFinished(call["id"], call.get("name", ""), True, CANCELLED, 0.0))
        return len(closed)
