"""Deferred tools through the CLI, the real SDK and a real MCP server, at the loopback API: the
model finds an MCP tool with ToolSearch and then calls it, and the declared tools are the same
bytes in every request (the cached prefix holds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conversation_rules import reply, text, tool_use
from sse_server import SSEServer, run_agent_tui

SERVER = Path(__file__).parents[1] / "fixtures" / "mcp" / "notes_server.py"
NOTE = {"name": "todo", "text": "wire the handler"}


def to_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def results(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    last = body["messages"][-1]["content"]
    return {b["tool_use_id"]: b for b in last if b.get("type") == "tool_result"}


def script(index: int, body: Any) -> str:
    step = sum(1 for m in body["messages"] if m["role"] == "assistant")
    if step == 0:
        search = {"query": "add note"}
        return to_sse(reply(tool_use("toolu_search", "ToolSearch", search), stop_reason="tool_use"))
    if step == 1:
        return to_sse(
            reply(tool_use("toolu_note", "mcp__notes__add_note", NOTE), stop_reason="tool_use")
        )
    return to_sse(reply(text("Noted.")))


async def run(tmp_path: Path, extra_env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    work, home = tmp_path / "project", tmp_path / "home"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {"notes": {"command": sys.executable, "args": [str(SERVER)]}}})
    )
    async with SSEServer(script) as server:
        code, out, err = await run_agent_tui(
            server, work, home, "-p", "Note that the handler needs wiring",
            "--mcp-config", str(config), "--allow", "mcp__notes",
            extra_env=extra_env,
        )  # fmt: skip
        assert code == 0, err.decode()
        assert out.decode().strip() == "Noted."
        bodies = [r.json for r in server.requests]
        assert server.domain_checks == []  # nothing was fetched
    assert len(bodies) == 3
    # The declared tools are the same bytes in every request: the cached prefix holds.
    tools = [json.dumps(b["tools"]) for b in bodies]
    assert tools[1] == tools[0] and tools[2] == tools[0]
    last = bodies[0]["tools"][-1]
    assert last["name"] == "ToolSearch" and last["cache_control"] == {"type": "ephemeral"}
    assert "mcp__notes__add_note" in last["description"]
    # The tool found, then called: it ran on the MCP server.
    assert results(bodies[2])["toolu_note"]["content"] == "Stored note 'todo' (16 characters)."
    return bodies


async def test_an_mcp_tool_is_found_with_tool_search_then_called(tmp_path: Path) -> None:
    # The loopback API is another base URL: said to have tool search, as Claude Code is told.
    bodies = await run(tmp_path, {"ENABLE_TOOL_SEARCH": "true"})
    declared = {t["name"]: t for t in bodies[0]["tools"]}
    # Deferred as in Claude Code: WebFetch and every MCP tool, sent with defer_loading so the API
    # keeps them out of the model's context until a tool_reference names them.
    deferred = {name for name, t in declared.items() if t.get("defer_loading") is True}
    assert deferred == {
        "WebFetch",
        "mcp__notes__add_note",
        "mcp__notes__read_note",
        "mcp__notes__note_picture",
    }
    assert {"Bash", "Read", "Edit"} <= set(declared) - deferred
    found = results(bodies[1])["toolu_search"]
    assert found["content"][0] == {"type": "tool_reference", "tool_name": "mcp__notes__add_note"}
    assert all(b["type"] == "tool_reference" for b in found["content"])


@pytest.mark.parametrize(
    "env", [{}, {"AGENT_TUI_TOOL_SEARCH": "client"}], ids=["other-base-url", "forced"]
)
async def test_without_the_apis_tool_search_the_definitions_come_as_text(
    env: dict[str, str], tmp_path: Path
) -> None:
    bodies = await run(tmp_path, env)
    declared = [t["name"] for t in bodies[0]["tools"]]
    assert not any(n.startswith("mcp__") or n == "WebFetch" for n in declared)
    assert not any("defer_loading" in t for t in bodies[0]["tools"])
    found = results(bodies[1])["toolu_search"]["content"]
    assert isinstance(found, str) and found.startswith("<functions>")
    first = json.loads(found.split("\n")[1])
    assert first["name"] == "mcp__notes__add_note"
    assert first["input_schema"]["required"] == ["name", "text"]
