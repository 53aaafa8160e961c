"""Running one tool call: the tool looked up, its streamed input checked and validated, the
approval policy asked, the tool run with a context for live progress, and exactly one
`ToolFinished` emitted. A tool that raises, an unknown tool or unusable input all become an
is_error result for the model; nothing here ends the turn except cancellation.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from agent_tui.agent.approvals import Approvals
from agent_tui.protocol.events import Event, ToolFinished, ToolProgress
from agent_tui.redact import redact
from agent_tui.tools.base import ToolContext, ToolInputError, ToolOutput, ToolRegistry

if TYPE_CHECKING:
    from agent_tui.agent.config import AgentConfig
    from agent_tui.checkpoints.checkpointer import Checkpointer
    from agent_tui.providers.base import Provider


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
        #: tool_use id -> why its streamed input was unusable (invalid JSON): never run those
        self.input_errors: dict[str, str] = {}
        #: records what calls that may change files are about to change (set by the Agent)
        self.checkpoints: Checkpointer | None = None

    async def run_all(
        self, calls: list[dict[str, Any]]
    ) -> AsyncIterator[tuple[dict[str, Any], ToolOutput]]:
        """Run one response's tool calls, yielding each with its output in the calls' order.

        Consecutive read-only calls run together; a call that can change things runs alone, in
        order, so the model's sequencing of side effects is kept."""
        batches: list[list[dict[str, Any]]] = []
        previous_read_only = False
        for call in calls:
            read_only = self.is_read_only(call)
            if read_only and previous_read_only:
                batches[-1].append(call)
            else:
                batches.append([call])
            previous_read_only = read_only
        for batch in batches:
            outputs = await asyncio.gather(*(self.run(call) for call in batch))
            for pair in zip(batch, outputs, strict=True):
                yield pair

    def is_read_only(self, call: dict[str, Any]) -> bool:
        tool = self.tools.get(call.get("name", ""))
        return tool is not None and tool.read_only

    async def run(self, call: dict[str, Any]) -> ToolOutput:
        started = time.monotonic()
        name = str(call.get("name", ""))
        output = await self._permitted_run(call, name)
        duration = time.monotonic() - started
        self.emit(
            ToolFinished(
                call["id"],
                name,
                output.is_error,
                output.summary or ("error" if output.is_error else "done"),
                duration,
                output.content[:2000],
            )
        )
        return output

    async def _permitted_run(self, call: dict[str, Any], name: str) -> ToolOutput:
        tool = self.tools.get(name)
        if tool is None:
            known = ", ".join(self.tools.names())
            return ToolOutput(f"Unknown tool {name!r}. Available tools: {known}.", is_error=True)
        input_error = self.input_errors.pop(str(call.get("id", "")), None)
        if input_error is not None:
            return ToolOutput(
                f"The input for {name} could not be used: {input_error}. Send the call again "
                "with the input as one valid JSON object.",
                is_error=True,
                summary="invalid input",
            )
        given = call.get("input")
        raw_input: dict[str, Any] = given if isinstance(given, dict) else {}
        try:
            params = tool.validate(raw_input)
        except ToolInputError as exc:
            return ToolOutput(str(exc), is_error=True, summary="invalid input")
        ctx = self._context(call["id"], name)
        denied = await self.approvals.authorize(call["id"], tool, raw_input, params, ctx)
        hook_context = self.approvals.hook_context.pop(call["id"], [])
        rewritten = self.approvals.rewritten.pop(call["id"], None)
        if denied is not None:
            return denied
        if rewritten is not None:  # a PreToolUse hook's updatedInput: the call that was decided
            raw_input, params = rewritten
        ctx.hunks = self.approvals.hunk_choices.pop(call["id"], None)
        ctx.review = self.approvals.review_calls.pop(call["id"], False)
        read_only = tool.read_only or self.approvals.read_only_calls.pop(call["id"], False)
        checkpoint = None
        exact = False
        if self.checkpoints is not None and not read_only:
            ctx.blobs = self.checkpoints.blobs
            exact = tool.transactional(params, ctx)
            path = tool.changed_path(params, self.config.cwd)
            checkpoint = await self.checkpoints.before(
                tool.subject(params), name, path, call["id"], exact=exact
            )
        meta: dict[str, Any] = {}
        try:
            output = await tool.run(params, ctx)
            meta = output.meta
            if hook_context:
                sep = "" if output.content.endswith("\n") else "\n"
                notes = "\n".join(f"[PreToolUse hook context: {c}]" for c in hook_context)
                output.content = output.content + sep + notes
            if self.config.hooks is not None:
                from agent_tui.hooks.tool_gate import post_tool

                decided = self.approvals.decided.pop(call["id"], {})
                output = await post_tool(
                    self.config.hooks, call["id"], name, raw_input, output, decided, self.emit
                )
            return output
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
            read_denied=getattr(self.approvals.permissions, "read_denied", _never),
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


def _never(_path: Any) -> bool:
    return False
