"""The plan (the model's `TodoWrite` list) as a checklist at the top of the tool-progress pane:
done items struck through, the one in progress highlighted with its `activeForm`."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

MARKS = {"completed": "☑", "in_progress": "▶", "pending": "☐"}


def plan_text(todos: list[dict[str, Any]]) -> Text:
    done = sum(1 for t in todos if t.get("status") == "completed")
    text = Text(f"Plan · {done}/{len(todos)} done", style="bold")
    for todo in todos:
        status = str(todo.get("status", "pending"))
        text.append("\n")
        text.append(f"{MARKS.get(status, '☐')} ")
        if status == "in_progress":
            label = str(todo.get("activeForm") or todo.get("content") or "")
            text.append(label + "…", style="bold reverse")
        elif status == "completed":
            text.append(str(todo.get("content", "")), style="dim strike")
        else:
            text.append(str(todo.get("content", "")))
    return text


def todos_of(tool_input: Any) -> list[dict[str, Any]] | None:
    """The list of a TodoWrite call's input, if it is one."""
    todos = tool_input.get("todos") if isinstance(tool_input, dict) else None
    if not isinstance(todos, list) or not all(isinstance(t, dict) for t in todos):
        return None
    return todos


def last_plan(messages: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The newest plan in a conversation (a resumed session shows it again)."""
    for message in reversed(messages):
        content = message.get("content")
        if message.get("role") != "assistant" or not isinstance(content, list):
            continue
        for block in reversed(content):
            if block.get("type") == "tool_use" and block.get("name") == "TodoWrite":
                todos = todos_of(block.get("input"))
                if todos is not None:
                    return todos
    return None


class PlanView(Static):
    """Hidden until the model writes a plan."""

    def __init__(self) -> None:
        super().__init__("", id="plan")
        self.todos: list[dict[str, Any]] = []
        self.display = False

    def show_plan(self, todos: list[dict[str, Any]]) -> None:
        self.todos = todos
        self.display = bool(todos)
        self.update(plan_text(todos))
