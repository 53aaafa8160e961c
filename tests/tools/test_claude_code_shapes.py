"""Every built-in tool takes Claude Code's input names (models are trained on them), and the
names stored by earlier sessions (`path`, `timeout_ms`) are still read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.tools.base import Tool, ToolContext, ToolOutput
from agent_tui.tools.builtin.bash import BashTool
from agent_tui.tools.builtin.edit import EditTool
from agent_tui.tools.builtin.read import ReadTool
from agent_tui.tools.builtin.search_files import GlobTool, GrepTool
from agent_tui.tools.builtin.shell_tools import BashOutputTool, KillShellTool
from agent_tui.tools.builtin.todo import TodoWriteTool
from agent_tui.tools.builtin.web_fetch import WebFetchInput
from agent_tui.tools.builtin.web_search import WebSearchInput
from agent_tui.tools.builtin.write import WriteTool
from agent_tui.tools.task import TaskInput

#: Claude Code's input names, tool by tool (its tools reference and input schemas)
CLAUDE_CODE = {
    "Read": {"file_path", "offset", "limit"},
    "Write": {"file_path", "content"},
    "Edit": {"file_path", "old_string", "new_string", "replace_all"},
    "Bash": {"command", "timeout", "description", "run_in_background", "dangerouslyDisableSandbox"},
    "Glob": {"pattern", "path"},
    "Grep": {
        "pattern",
        "path",
        "glob",
        "type",
        "output_mode",
        "-i",
        "-n",
        "-A",
        "-B",
        "-C",
        "multiline",
        "head_limit",
        "offset",
    },
    "TodoWrite": {"todos"},
    "BashOutput": {"bash_id", "filter"},
    "KillShell": {"shell_id"},
}


@pytest.mark.parametrize(
    "tool",
    [
        ReadTool(),
        WriteTool(),
        EditTool(),
        BashTool(),
        GlobTool(),
        GrepTool(),
        TodoWriteTool(),
        BashOutputTool(),
        KillShellTool(),
    ],
)
def test_input_names_are_claude_codes(tool: Tool) -> None:
    schema = tool.schema()["input_schema"]
    assert set(schema["properties"]) == CLAUDE_CODE[tool.name]


def test_models_without_a_tool_object_use_claude_codes_names() -> None:
    assert set(TaskInput.model_json_schema()["properties"]) == {
        "description",
        "prompt",
        "subagent_type",
    }
    assert set(WebFetchInput.model_json_schema()["properties"]) == {"url", "prompt"}
    assert set(WebSearchInput.model_json_schema()["properties"]) == {
        "query",
        "allowed_domains",
        "blocked_domains",
    }


def test_file_tools_require_file_path() -> None:
    for tool in (ReadTool(), WriteTool(), EditTool()):
        assert "file_path" in tool.schema()["input_schema"]["required"]


async def call(tool: Any, ctx: ToolContext, **raw: Any) -> ToolOutput:
    return await tool.run(tool.validate(raw), ctx)


@pytest.mark.parametrize("key", ["file_path", "path"])
async def test_file_tools_read_both_names(ctx: ToolContext, tmp_path: Path, key: str) -> None:
    out = await call(WriteTool(), ctx, **{key: "a.txt", "content": "one\n"})
    assert not out.is_error, out.content
    out = await call(EditTool(), ctx, **{key: "a.txt", "old_string": "one", "new_string": "two"})
    assert not out.is_error, out.content
    out = await call(ReadTool(), ctx, **{key: "a.txt"})
    assert "two" in out.content
    assert (tmp_path / "a.txt").read_text() == "two\n"
    assert WriteTool().subject(WriteTool().validate({key: "a.txt", "content": ""})) == "a.txt"


@pytest.mark.parametrize("key", ["timeout", "timeout_ms"])
def test_bash_reads_both_timeout_names(key: str) -> None:
    params = BashTool().validate({"command": "true", key: 1234})
    assert params.timeout == 1234  # type: ignore[attr-defined]


async def test_grep_offset_pages_through_entries(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_text("".join(f"m{i}\n" for i in range(10)))
    raw = {"pattern": "m", "output_mode": "content", "head_limit": 3}
    out = await call(GrepTool(), ctx, **raw, offset=3)
    assert out.content.splitlines()[:3] == ["many.txt:4:m3", "many.txt:5:m4", "many.txt:6:m5"]
    out = await call(GrepTool(), ctx, **raw, offset=50)
    assert out.content == "No matches past offset 10." and not out.is_error
