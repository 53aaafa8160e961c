"""Deferred tools with 50 MCP tools configured: request size, and the cached prefix.

A scripted 4-turn session through the real `anthropic` SDK at a loopback Messages API, with the
built-in tools and 50 MCP tools (5 servers × 10 tools, descriptions and parameters shaped like
real servers'; ~0.7 KB of definition each). In turn 2 the model finds an MCP tool with ToolSearch
and calls it. Run once per deferral mode:

- `off`: no deferral, every definition in full on every request (before this change);
- `api`: the first-party API's tool search (deferred tools sent with `defer_loading`, found
  through `tool_reference` blocks);
- `client`: deferred tools left out of the request, found as text (the offline model, Bedrock,
  Vertex, Foundry).

Printed per mode: the bytes of the first request's body as the server received it, the bytes of
tool definitions the model reads on a turn (what `defer_loading` keeps out of its context is not
counted), whether the declared tools were byte-identical in every request, and the share of all
input that lay inside the previous request's unchanged prefix (as `bench_cache.py` counts it).

    python benchmarks/bench_deferred_tools.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import machine
from bench_cache import prefix_share, to_sse

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

SERVERS = ("github", "jira", "slack", "sentry", "grafana")
VERBS = (
    "list",
    "get",
    "create",
    "update",
    "delete",
    "search",
    "comment",
    "assign",
    "close",
    "link",
)


def mcp_tools(call: Any) -> list[Any]:
    from agent_tui.mcp_servers.tool import McpTool

    tools = []
    for server in SERVERS:
        for verb in VERBS:
            thing = {"github": "issue", "jira": "ticket", "slack": "message"}.get(server, "alert")
            description = (
                f"{verb.title()} a {thing} in {server.title()}. Use it when the user asks to "
                f"{verb} {thing}s; the result lists each {thing}'s id, title, state, author, "
                "labels and the time it last changed, newest first. Needs the server's token."
            )
            properties = {
                "project": {"type": "string", "description": f"The {server} project or org."},
                "id": {"type": "string", "description": f"The {thing}'s id, when there is one."},
                "query": {"type": "string", "description": "Words to search for, or a filter."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
                "state": {"type": "string", "enum": ["open", "closed", "all"]},
            }
            schema = {"type": "object", "properties": properties, "required": ["project"]}
            tools.append(McpTool(server, f"{verb}_{thing}", description, schema, call))
    return tools


def responder(index: int, body: Any) -> str:
    from conversation_rules import reply, text, tool_use

    turn = sum(1 for m in body["messages"] if m["role"] == "user" and _is_prompt(m))
    last = body["messages"][-1]["content"]
    answered = {b.get("tool_use_id") for b in last if b.get("type") == "tool_result"}
    if turn == 2 and not answered:
        search = {"query": "jira create ticket"}
        return to_sse(reply(tool_use("toolu_s", "ToolSearch", search), stop_reason="tool_use"))
    if "toolu_s" in answered:
        args = {"project": "OPS", "query": "disk full"}
        call = tool_use("toolu_j", "mcp__jira__create_ticket", args)
        return to_sse(reply(call, stop_reason="tool_use"))
    return to_sse(reply(text(f"Answer {index}: done.")))


def _is_prompt(message: dict[str, Any]) -> bool:
    content = message["content"]
    return isinstance(content, str) or any(b.get("type") == "text" for b in content)


async def session(mode: str, turns: int) -> dict[str, Any]:
    from sse_server import SSEServer

    from agent_tui.agent.approvals import AllowAll
    from agent_tui.agent.loop import Agent, AgentConfig
    from agent_tui.providers.anthropic import AnthropicProvider
    from agent_tui.runtime import make_tools

    calls: list[str] = []

    async def call(server: str, tool: str, args: dict[str, Any]) -> Any:
        from mcp.types import CallToolResult, TextContent

        calls.append(f"mcp__{server}__{tool}")
        return CallToolResult(content=[TextContent(type="text", text="Created OPS-17.")])

    os.environ["AGENT_TUI_TOOL_SEARCH"] = mode
    with tempfile.TemporaryDirectory() as tmp:
        async with SSEServer(responder) as server:
            os.environ.update(ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY="bench")
            provider = AnthropicProvider("claude-sonnet-4-5")
            tools = make_tools(provider, "claude-sonnet-4-5")
            for tool in mcp_tools(call):
                tools.add(tool)
            config = AgentConfig(model="claude-sonnet-4-5", cwd=Path(tmp), compaction="off")
            agent = Agent(provider, tools, config, permissions=AllowAll())
            for turn in range(turns):
                await agent.submit(f"Turn {turn}: what next?")
            client = getattr(provider, "_client", None)
            if client is not None:
                await client.close()  # before this event loop closes
        sizes = [len(r.body) for r in server.requests]
        bodies = [r.json for r in server.requests]
    declared = [json.dumps(b["tools"]) for b in bodies]

    def size(value: Any) -> int:  # compact, as the SDK sends it
        return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())

    in_context = [t for t in bodies[0]["tools"] if not t.get("defer_loading")]
    share, _total = prefix_share(bodies)
    return {
        "requests": len(bodies),
        "first_body": sizes[0],
        "all_bodies": sum(sizes),
        "tools_bytes": size(bodies[0]["tools"]),
        "context_tools": len(in_context),
        "context_bytes": size(in_context),
        "stable": all(d == declared[0] for d in declared),
        "share": share,
        "called": calls,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=4)
    args = parser.parse_args()
    print(machine())
    print(
        f"{'mode':7} {'first body B':>12} {'all bodies B':>13} {'tools B':>9} "
        f"{'model reads':>17} {'tools same':>10} {'cached prefix':>13}"
    )
    results = {}
    for mode in ("off", "api", "client"):
        r = results[mode] = asyncio.run(session(mode, args.turns))
        assert r["called"] == ["mcp__jira__create_ticket"], r["called"]
        reads = f"{r['context_tools']} tools, {r['context_bytes']:,} B"
        print(
            f"{mode:7} {r['first_body']:12,} {r['all_bodies']:13,} {r['tools_bytes']:9,} "
            f"{reads:>17} {r['stable']!s:>10} {100 * r['share']:12.1f}%"
        )
    off = results["off"]
    for mode in ("api", "client"):
        r = results[mode]
        print(
            f"{mode}: first body {r['first_body'] / off['first_body']:.2f}x of off; tool "
            f"definitions the model reads {r['context_bytes'] / off['context_bytes']:.2f}x"
        )


if __name__ == "__main__":
    main()
