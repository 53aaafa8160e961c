"""`TodoWrite`: the model's plan for the task at hand, as Claude Code's tool has it. Each call
sends the whole list; the plan shows live at the top of the tool-progress pane, is kept in the
conversation (so it is stored with the session) and comes back on resume and in replay."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from agent_tui.tools.base import Tool, ToolContext, ToolOutput


class TodoItem(BaseModel):
    content: str = Field(min_length=1, description="What to do, imperative: 'Run the tests'.")
    status: Literal["pending", "in_progress", "completed"]
    activeForm: str = Field(
        min_length=1, description="The same, as it is being done: 'Running the tests'."
    )


class TodoWriteInput(BaseModel):
    todos: list[TodoItem] = Field(description="The whole updated list, in order.")


def plan_summary(todos: list[dict[str, Any]] | list[TodoItem]) -> str:
    items = [t.model_dump() if isinstance(t, TodoItem) else t for t in todos]
    done = sum(1 for t in items if t.get("status") == "completed")
    active = [t for t in items if t.get("status") == "in_progress"]
    summary = f"{done}/{len(items)} done"
    if active:
        summary += f" · {active[0].get('activeForm') or active[0].get('content')}"
    return summary


class TodoWriteTool(Tool):
    name: ClassVar[str] = "TodoWrite"
    order: ClassVar[int] = 70
    description: ClassVar[str] = (
        "Keep a short plan for the current task and show it to the user, who sees it as a live "
        "checklist. Use it for work of three or more steps: write the list at the start, mark "
        "an item in_progress before working on it (one at a time) and completed as soon as it "
        "is done, and add items you discover. Send the whole list each time. Skip it for "
        "trivial, one-step requests."
    )
    input_model: ClassVar[type[BaseModel]] = TodoWriteInput
    # It changes nothing on disk: allowed in plan mode, and never asks.
    read_only: ClassVar[bool] = True

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        todos: list[TodoItem] = params.todos
        active = sum(1 for t in todos if t.status == "in_progress")
        note = ""
        if active > 1:
            note = f" Note: {active} items are in_progress; keep one at a time."
        return ToolOutput(
            "The plan is updated and shown to the user. Keep it current as you work." + note,
            summary=plan_summary(todos),
        )
