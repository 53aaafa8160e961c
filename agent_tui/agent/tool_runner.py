"""Running one tool call: the tool looked up, its streamed input checked and validated, the
approval policy asked, the tool run with a context for live progress, and exactly one
`ToolFinished` emitted. A tool that raises, an unknown tool or unusable input all become an
is_error result for the model; nothing here ends the turn except cancellation.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from agent_tui.agent.approvals import Approvals
from agent_tui.agent.verdict import Verdict
from agent_tui.protocol.events import Event, ToolFinished, ToolProgress
from agent_tui.redact import redact
from agent_tui.tools.base import ToolContext, ToolInputError, ToolOutput, ToolRegistry

if TYPE_CHECKING:
    from agent_tui.agent.config import AgentConfig
    from agent_tui.checkpoints.checkpointer import Checkpointer
    from agent_tui.providers.base import Provider


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call of a response, as the runner takes it: the model's block, and why its
    streamed input was unusable (invalid JSON) when it was; such a call is never run."""

    id: str
    name: str
    input: dict[str, Any]
    input_error: str | None = None

    @classmethod
    def of(cls, block: dict[str, Any], input_error: str | None = None) -> ToolCall:
        given = block.get("input")
        raw = given if isinstance(given, dict) else {}
        return cls(str(block.get("id", "")), str(block.get("name", "")), raw, input_error)


class ToolRunner:
    def __init__(
        self,
        tools: ToolRegistry,
        approvals: Approvals,
        emit: Callable[[Event], None],
        config: AgentConfig,
        provider: Provider,
    ) -> None:
        self.tools = tools
        self.approvals = approvals
        self.emit = emit
        self.config = config
        self.provider = provider
        #: records what calls that may change files are about to change (set by the Agent)
        self.checkpoints: Checkpointer | None = None

    async def run_all(self, calls: list[ToolCall]) -> AsyncIterator[tuple[ToolCall, ToolOutput]]:
        """Run one response's tool calls, yielding each with its output in the calls' order.

        Consecutive read-only calls run together; a call that can change things runs alone, in
        order, so the model's sequencing of side effects is kept."""
        batches: list[list[ToolCall]] = []
        previous_read_only = False
        for call in calls:
            read_only = self.is_read_only(call.name)
            if read_only and previous_read_only:
                batches[-1].append(call)
            else:
                batches.append([call])
            previous_read_only = read_only
        for batch in batches:
            outputs = await asyncio.gather(*(self.run(call) for call in batch))
            for pair in zip(batch, outputs, strict=True):
                yield pair

    def is_read_only(self, name: str) -> bool:
        tool = self.tools.get(name)
        return tool is not None and tool.read_only

    async def run(self, call: ToolCall) -> ToolOutput:
        started = time.monotonic()
        output = await self._permitted_run(call)
        duration = time.monotonic() - started
        self.emit(
            ToolFinished(
                call.id,
                call.name,
                output.is_error,
                output.summary or ("error" if output.is_error else "done"),
                duration,
                output.content[:2000],
            )
        )
        return output

    async def _permitted_run(self, call: ToolCall) -> ToolOutput:
        tool, name = self.tools.get(call.name), call.name
        if tool is None:
            known = ", ".join(self.tools.names())
            return ToolOutput(f"Unknown tool {name!r}. Available tools: {known}.", is_error=True)
        if call.input_error is not None:
            return ToolOutput(
                f"The input for {name} could not be used: {call.input_error}. Send the call "
                "again with the input as one valid JSON object.",
                is_error=True,
                summary="invalid input",
            )
        try:
            params = tool.validate(call.input)
        except ToolInputError as exc:
            return ToolOutput(str(exc), is_error=True, summary="invalid input")
        ctx = self._context(call.id, name)
        verdict = await self.approvals.authorize(call.id, tool, call.input, params, ctx)
        if verdict.denial is not None:
            return verdict.denial
        ctx.hunks, ctx.review = verdict.hunks, verdict.review
        checkpoint = None
        if self.checkpoints is not None and not (tool.read_only or verdict.read_only):
            ctx.blobs = self.checkpoints.blobs
            exact = tool.transactional(verdict.params, ctx)
            path = tool.changed_path(verdict.params, self.config.cwd)
            subject = tool.subject(verdict.params)
            checkpoint = await self.checkpoints.before(subject, name, path, call.id, exact=exact)
        meta: dict[str, Any] = {}
        try:
            output = await tool.run(verdict.params, ctx)
            meta = output.meta
            return await self._after(call, verdict, output)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a tool bug must not end the turn
            return ToolOutput(
                f"{name} failed: {type(exc).__name__}: {redact(str(exc))}",
                is_error=True,
                summary="failed",
            )
        finally:
            if self.checkpoints is not None and checkpoint is not None:
                # what this call changed, recorded now (not at the turn's end): a kill later
                # in the turn still leaves it to undo
                await self.checkpoints.after(checkpoint, meta.get("changes"), meta.get("not_kept"))

    async def _after(self, call: ToolCall, verdict: Verdict, output: ToolOutput) -> ToolOutput:
        """A run's output as the model reads it: what PreToolUse hooks added, then what
        PostToolUse hooks say."""
        if verdict.hook_context:
            sep = "" if output.content.endswith("\n") else "\n"
            notes = "\n".join(f"[PreToolUse hook context: {c}]" for c in verdict.hook_context)
            output.content = output.content + sep + notes
        if self.config.hooks is None:
            return output
        from agent_tui.hooks.tool_gate import post_tool

        how = verdict.how()
        return await post_tool(
            self.config.hooks, call.id, call.name, verdict.input, output, how, self.emit
        )

    def _context(self, tool_use_id: str, name: str) -> ToolContext:
        def progress(status: str = "", output: str = "") -> None:
            self.emit(ToolProgress(tool_use_id, name, status, output))

        return ToolContext(
            cwd=self.config.cwd,
            data_dir=self.config.data_dir,
            progress=progress,
            provider=self.provider,
            model=self.config.model,
            small_model=self.config.small_model,
            tool_use_id=tool_use_id,
            explicit_hosts=self.approvals.permissions.explicit_hosts,
            emit=self.emit,
            read_denied=self.approvals.permissions.read_denied,
            sandbox=self.config.sandbox,
            shells=self.config.shells,
            ask_host=partial(self.approvals.ask_host, tool_use_id, name),
            review_changes=None
            if self.approvals.headless
            else partial(self.approvals.review_changes, tool_use_id, name),
            ask_forward=None if self.approvals.headless else self.approvals.ask_forward,
            ask_user=None if self.approvals.headless else self.config.ask_user,
        )


def tool_result(tool_use_id: str, output: ToolOutput) -> dict[str, Any]:
    """The `tool_result` block that answers one call."""
    content: str | list[dict[str, Any]] = output.content or "(no output)"
    if output.blocks:
        text = [{"type": "text", "text": output.content}] if output.content else []
        content = [*text, *output.blocks]
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if output.is_error:
        block["is_error"] = True
    return block
