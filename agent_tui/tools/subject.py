"""`tool_subject(name, input)`: what a tool call acts on — the command, the path, the URL, the
query — from its raw input, in one place for the approval dialog, the decision log, the
progress pane, the chat's tool blocks, the sessions browser and exports.

The result is the raw text (shown through `agent_tui.text`, never as markup). A tool without a
known subject field shows its input as compact JSON.
"""

from __future__ import annotations

import json
from typing import Any

#: the input fields that name what each tool acts on, first present wins
SUBJECT_FIELDS: dict[str, tuple[str, ...]] = {
    "Bash": ("command",),
    "Read": ("file_path", "path"),
    "Write": ("file_path", "path"),
    "Edit": ("file_path", "path"),
    "WebFetch": ("url",),
    "WebSearch": ("query",),
    "web_search": ("query",),
    "Grep": ("pattern",),
    "Glob": ("pattern",),
    "Task": ("description",),
    "ToolSearch": ("query",),
    "BashOutput": ("bash_id",),
    "KillShell": ("shell_id",),
}
_ANY_TOOL = ("command", "url", "query", "file_path", "path", "pattern", "description")


def tool_subject(name: str, tool_input: dict[str, Any] | None) -> str:
    if not isinstance(tool_input, dict) or not tool_input:
        return ""
    if name == "TodoWrite" and isinstance(tool_input.get("todos"), list):
        todos = [t for t in tool_input["todos"] if isinstance(t, dict)]
        done = sum(1 for t in todos if t.get("status") == "completed")
        return f"plan: {done}/{len(todos)} done"
    for key in SUBJECT_FIELDS.get(name, _ANY_TOOL):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return json.dumps(tool_input, ensure_ascii=False, default=str, separators=(", ", ": "))
