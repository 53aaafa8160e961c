"""Deferred tools (WebFetch and MCP tools, as Claude Code's `shouldDefer`): how they are declared
in each mode, how ToolSearch finds them, and that the declared tools stay the same bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.mcp_servers.tool import McpTool
from agent_tui.providers.anthropic import AnthropicProvider
from agent_tui.providers.base import MessageRequest
from agent_tui.providers.offline import OfflineProvider
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.read import ReadTool
from agent_tui.tools.builtin.web_fetch import WebFetchTool
from agent_tui.tools.deferred import DeferringRegistry, deferral_mode
from agent_tui.tools.tool_search import ToolSearchInput, search


async def _never(server: str, tool: str, args: dict[str, Any]) -> Any:
    raise AssertionError("not called")


def mcp(server: str, tool: str, description: str, **params: str) -> McpTool:
    schema = {
        "type": "object",
        "properties": {name: {"type": "string", "description": d} for name, d in params.items()},
    }
    return McpTool(server, tool, description, schema, _never)


def registry(mode: str) -> DeferringRegistry:
    tools = DeferringRegistry(mode)
    tools.add(ReadTool())
    tools.add(WebFetchTool())
    tools.add(mcp("jira", "create_issue", "Create an issue in a Jira project.", summary="Title"))
    tools.add(mcp("notes", "add_note", "Store a note under a name.", name="Note name"))
    tools.add(mcp("calendar", "list_events", "List events between two dates.", start="ISO date"))
    return tools


def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, data_dir=tmp_path)


def test_api_mode_marks_deferred_tools_and_puts_the_search_last() -> None:
    schemas = registry("api").schemas()
    names = [s["name"] for s in schemas]
    assert names == [
        "Read",
        "WebFetch",
        "mcp__jira__create_issue",
        "mcp__notes__add_note",
        "mcp__calendar__list_events",
        "ToolSearch",
    ]
    flagged = {s["name"] for s in schemas if s.get("defer_loading") is True}
    assert flagged == set(names[1:5])
    search_tool = schemas[-1]
    for name in names[1:5]:
        assert name in search_tool["description"]
    assert "defer_loading" not in search_tool  # the API rejects a request with every tool deferred


def test_client_mode_leaves_deferred_tools_out() -> None:
    schemas = registry("client").schemas()
    assert [s["name"] for s in schemas] == ["Read", "ToolSearch"]
    assert "mcp__notes__add_note" in schemas[-1]["description"]
    assert not any("defer_loading" in s for s in schemas)


def test_off_mode_and_no_deferred_tools_send_every_schema_as_it_is() -> None:
    off = registry("off")
    assert [s["name"] for s in off.schemas()] == off.names()
    assert off.get("ToolSearch") is None
    plain = DeferringRegistry("api")
    plain.add(ReadTool())
    assert [s["name"] for s in plain.schemas()] == ["Read"] and plain.get("ToolSearch") is None


@pytest.mark.parametrize("mode", ["api", "client"])
async def test_the_declared_tools_are_the_same_bytes_before_and_after_a_search(
    mode: str, tmp_path: Path
) -> None:
    tools = registry(mode)
    first = json.dumps(
        MessageRequest("m", [{"role": "user", "content": "hi"}], tools=tools.schemas()).body()[
            "tools"
        ]
    )
    search_tool = tools.get("ToolSearch")
    assert search_tool is not None
    out = await search_tool.run(ToolSearchInput(query="jira issue"), ctx(tmp_path))
    assert out.meta["matches"] == ["mcp__jira__create_issue"]
    later = json.dumps(
        MessageRequest("m", [{"role": "user", "content": "hi"}], tools=tools.schemas()).body()[
            "tools"
        ]
    )
    assert later == first
    assert json.loads(first)[-1]["cache_control"] == {"type": "ephemeral"}  # on ToolSearch


async def test_api_mode_answers_with_tool_references_only(tmp_path: Path) -> None:
    from agent_tui.agent.tool_runner import tool_result

    tools = registry("api")
    search_tool = tools.get("ToolSearch")
    assert search_tool is not None
    out = await search_tool.run(
        ToolSearchInput(query="select:mcp__notes__add_note,WebFetch"), ctx(tmp_path)
    )
    assert tool_result("toolu_1", out)["content"] == [
        {"type": "tool_reference", "tool_name": "mcp__notes__add_note"},
        {"type": "tool_reference", "tool_name": "WebFetch"},
    ]
    assert out.summary == "2 tools loaded: mcp__notes__add_note, WebFetch"


async def test_client_mode_answers_with_the_definitions(tmp_path: Path) -> None:
    tools = registry("client")
    search_tool = tools.get("ToolSearch")
    assert search_tool is not None
    out = await search_tool.run(ToolSearchInput(query="calendar events"), ctx(tmp_path))
    assert out.blocks is None and not out.is_error
    assert out.content.startswith("<functions>\n")
    definition = json.loads(out.content.split("\n")[1])
    assert definition == tools.get("mcp__calendar__list_events").schema()  # type: ignore[union-attr]
    # The found tool is called by name like any other (the runner looks it up in the registry).
    assert isinstance(tools.get("mcp__calendar__list_events"), McpTool)


async def test_nothing_found_lists_the_deferred_tools(tmp_path: Path) -> None:
    search_tool = registry("api").get("ToolSearch")
    assert search_tool is not None
    out = await search_tool.run(ToolSearchInput(query="spreadsheet"), ctx(tmp_path))
    assert not out.is_error and out.blocks is None
    assert "No deferred tool matches 'spreadsheet'" in out.content
    assert "mcp__jira__create_issue" in out.content


def test_search_ranks_name_parts_then_descriptions_then_parameters() -> None:
    tools = registry("api").deferred()
    names = lambda found: [t.name for t in found]  # noqa: E731
    assert names(search("notes", tools, 5)) == ["mcp__notes__add_note"]  # the server's name
    assert names(search("fetch", tools, 5)) == ["WebFetch"]
    assert names(search("ISO", tools, 5)) == ["mcp__calendar__list_events"]  # a parameter's text
    # "note" is a name part of the notes tool and in its description and parameters
    assert names(search("create note", tools, 5)) == [
        "mcp__notes__add_note",
        "mcp__jira__create_issue",
    ]
    assert names(search("create note", tools, 1)) == ["mcp__notes__add_note"]
    assert names(search("select:nope,MCP__NOTES__ADD_NOTE", tools, 5)) == ["mcp__notes__add_note"]
    assert names(search("store", tools, 5)) == ["mcp__notes__add_note"]  # a description word
    assert names(search("jira issue", tools, 5)) == ["mcp__jira__create_issue"]  # not WebFetch
    assert search("!!", tools, 5) == []


def test_the_mode_follows_the_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AGENT_TUI_TOOL_SEARCH", "ENABLE_TOOL_SEARCH", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    first_party = AnthropicProvider()
    first_party.name = "anthropic"
    assert deferral_mode(first_party, "claude-sonnet-4-5") == "api"
    assert deferral_mode(first_party, "claude-3-5-haiku-latest") == "client"
    for platform in ("bedrock", "vertex", "foundry"):
        other = AnthropicProvider()
        other.name = platform
        assert deferral_mode(other, "claude-sonnet-4-5") == "client"
    assert deferral_mode(OfflineProvider(delay_scale=0), "offline") == "client"
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://api.anthropic.com/")
    assert deferral_mode(first_party, "claude-sonnet-4-5") == "api"
    # Another base URL (a proxy, a gateway) may not pass tool search on: not unless it is said
    # to, with Claude Code's ENABLE_TOOL_SEARCH.
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:8787")
    assert deferral_mode(first_party, "claude-sonnet-4-5") == "client"
    monkeypatch.setenv("ENABLE_TOOL_SEARCH", "true")
    assert deferral_mode(first_party, "claude-sonnet-4-5") == "api"
    monkeypatch.setenv("ENABLE_TOOL_SEARCH", "false")
    assert deferral_mode(first_party, "claude-sonnet-4-5") == "off"
    monkeypatch.setenv("AGENT_TUI_TOOL_SEARCH", "client")
    assert deferral_mode(first_party, "claude-sonnet-4-5") == "client"
    monkeypatch.setenv("AGENT_TUI_TOOL_SEARCH", "off")
    assert deferral_mode(first_party, "claude-sonnet-4-5") == "off"
    with pytest.raises(ValueError):
        DeferringRegistry("sometimes")


def test_webfetch_and_mcp_tools_are_declared_deferred() -> None:
    assert WebFetchTool.should_defer and McpTool.should_defer
    assert not ReadTool.should_defer


def test_switching_the_model_chooses_the_mode_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.agent.approvals import AllowAll
    from agent_tui.agent.loop import Agent, AgentConfig

    for name in ("AGENT_TUI_TOOL_SEARCH", "ENABLE_TOOL_SEARCH", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    old = "claude-3-5-haiku-latest"
    provider = AnthropicProvider(old)
    tools = DeferringRegistry(deferral_mode(provider, old))
    tools.add(ReadTool())
    tools.add(WebFetchTool())
    config = AgentConfig(model=old, cwd=tmp_path, data_dir=tmp_path)
    agent = Agent(provider, tools, config, permissions=AllowAll())
    assert tools.mode == "client" and [s["name"] for s in tools.schemas()] == ["Read", "ToolSearch"]

    agent.switch_model("claude-sonnet-4-5")

    assert tools.mode == "api"
    assert [(s["name"], s.get("defer_loading")) for s in tools.schemas()] == [
        ("Read", None),
        ("WebFetch", True),
        ("ToolSearch", None),
    ]
