"""What the file tools share: diffs, schemas."""

from __future__ import annotations

from typing import Any

from agent_tui.diffs import diff_stats, unified_diff
from agent_tui.tools.base import ToolContext, ToolOutput
from agent_tui.tools.builtin.edit import EditTool
from agent_tui.tools.builtin.read import ReadTool
from agent_tui.tools.builtin.write import WriteTool


async def call(tool: Any, ctx: ToolContext, **raw: Any) -> ToolOutput:
    return await tool.run(tool.validate(raw), ctx)


# ---------------------------------------------------------------------------------------- misc


def test_unified_diff_no_newline_at_eof() -> None:
    diff = unified_diff("a\nb", "a\nc", "f.txt")
    assert diff.endswith("-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file")
    assert unified_diff("same\n", "same\n", "f.txt") == "(no changes to f.txt)"


def test_diff_stats() -> None:
    assert str(diff_stats("a\nb\nc\n", "a\nB\nc\nd\n")) == "+2 −1"
    assert str(diff_stats(None, "+++x\n---y\n")) == "+2 −0"


def test_file_tool_schemas_name_file_path() -> None:
    tools = [ReadTool(), WriteTool(), EditTool()]
    assert [t.name for t in tools] == ["Read", "Write", "Edit"]
    for t in tools:
        schema = t.schema()
        assert schema["description"]
        assert "file_path" in schema["input_schema"]["required"]
