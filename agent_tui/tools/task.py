"""`Task`: hand a self-contained job to a sub-agent, as in Claude Code. The sub-agent starts from
the task's prompt alone (none of this conversation), works with its own tools under the same
permissions and approvals, and only its final report comes back as the result. How a sub-agent
is built and run lives in `agent.subagents` (the loop's layer); the tool only carries the call
there, through `runner`, which the session sets up."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from agent_tui.tools.base import Tool, ToolContext, ToolOutput


class TaskInput(BaseModel):
    description: str = Field(min_length=1, description="A short (3-5 word) label for the task.")
    prompt: str = Field(
        min_length=1,
        description="The whole task for the sub-agent: it sees nothing else of this "
        "conversation, so include every detail it needs and say what to report back.",
    )
    subagent_type: str | None = Field(
        default=None, description="A defined sub-agent type to use (default: general-purpose)."
    )


Runner = Callable[[TaskInput, ToolContext], Awaitable[ToolOutput]]


class TaskTool(Tool):
    name: ClassVar[str] = "Task"
    subject_fields: ClassVar[tuple[str, ...]] = ("description",)
    input_model: ClassVar[type[BaseModel]] = TaskInput
    # The call itself changes nothing (each of the sub-agent's calls is checked on its own),
    # and several Task calls in one response run at the same time.
    read_only: ClassVar[bool] = True
    description: ClassVar[str] = ""  # set per session: it lists the sub-agent types

    def __init__(self, runner: Runner | None = None, types: dict[str, str] | None = None) -> None:
        self.runner = runner
        #: sub-agent type -> what it is for
        self.types = types or {}

    def schema(self) -> dict[str, Any]:
        schema = super().schema()
        lines = [
            "Launch a sub-agent for a self-contained task: a search across many files, a "
            "research question, a focused change. It starts with none of this conversation, "
            "uses the same tools (but Task) under the user's permissions, and returns one "
            "final report. Launch several in one response to run them in parallel. Give each "
            "a complete prompt, and say what to report.",
        ]
        if self.types:
            lines.append("Sub-agent types (subagent_type):")
            lines += [f"- {name}: {what}" for name, what in sorted(self.types.items())]
        schema["description"] = "\n".join(lines)
        return schema

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        if self.runner is None:
            return ToolOutput("Sub-agents are not available here.", is_error=True)
        return await self.runner(params, ctx)
