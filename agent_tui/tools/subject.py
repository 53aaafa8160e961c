"""`tool_subject(name, input)`: what a tool call acts on — the command, the path, the URL, the
query — from its raw input, in one place for the approval dialog, the decision log, the
progress pane, the chat's tool blocks, the sessions browser and exports.

The result is the raw text (shown through `agent_tui.text`, never as markup). A tool without a
known subject field shows its input as compact JSON.
"""

from __future__ import annotations

import json
from typing import Any

#: the input fields that name what a call acts on, first present wins: each tool declares its own
#: (`Tool.subject_fields`), kept here by name as its class is made
_DECLARED: dict[str, tuple[str, ...]] = {}
#: for one of our tools whose class is not loaded (a resumed session's history is drawn before
#: any tool's module is imported) or a server tool (`web_search`): the usual names, in this order.
#: Every built-in tool's declaration agrees with it (tests/tools/test_subject_fields.py), so a
#: history reads the same before its tools are loaded as after.
ANY_TOOL = (
    *("command", "url", "query", "file_path", "pattern", "path", "description"),
    *("bash_id", "shell_id"),
)
#: an MCP tool's (`mcp__server__tool`), whose input is another program's: the place it acts on
#: before a pattern (a filesystem server's `search_files {path, pattern}` is about its path —
#: what the approval dialog shows and the provenance check traces)
MCP_TOOL = ("command", "url", "query", "file_path", "path", "pattern", "description")


def declare_subject(name: str, fields: tuple[str, ...]) -> None:
    """`name`'s calls are about the first of `fields` present (from `Tool.__init_subclass__`)."""
    _DECLARED[name] = fields


def subject_fields(name: str) -> tuple[str, ...]:
    """The fields `name`'s calls are about, first present wins."""
    if (declared := _DECLARED.get(name)) is not None:
        return declared
    return MCP_TOOL if name.startswith("mcp__") else ANY_TOOL


def tool_subject(name: str, tool_input: dict[str, Any] | None) -> str:
    if not isinstance(tool_input, dict) or not tool_input:
        return ""
    if name == "TodoWrite" and isinstance(tool_input.get("todos"), list):
        todos = [t for t in tool_input["todos"] if isinstance(t, dict)]
        done = sum(1 for t in todos if t.get("status") == "completed")
        return f"plan: {done}/{len(todos)} done"
    for key in subject_fields(name):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return json.dumps(tool_input, ensure_ascii=False, default=str, separators=(", ", ": "))
