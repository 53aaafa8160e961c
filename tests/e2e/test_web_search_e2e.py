"""The real SDK against the loopback SSE server: the main turn calls WebSearch, the tool's
sub-request reaches the server with the forced server search, and the next main request carries the
tool_result with the links and the reminder."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from sse_server import SSEServer, sse_fixture, uncached, use_loopback_api

from agent_tui.agent.approvals import AllowAll
from agent_tui.agent.loop import Agent, AgentConfig
from agent_tui.protocol.assembler import StreamAssembler
from agent_tui.protocol.events import Event, SearchQueryUpdate, ToolFinished, TurnFinished
from agent_tui.protocol.sse import iter_sse
from agent_tui.providers.anthropic import AnthropicProvider
from agent_tui.tools.base import ToolRegistry
from agent_tui.tools.builtin.web_search import REMINDER, WebSearchTool

CALL_ID = "toolu_01WsCall3Hn8Yd5QpLm2Rv6T"  # the WebSearch call in main_calls_websearch.sse
SERVER_TOOL = {"type": "web_search_20250305", "name": "web_search", "max_uses": 8}


def is_search_request(body: Any) -> bool:
    return any(t.get("type") == SERVER_TOOL["type"] for t in body.get("tools") or [])


def assembled(name: str) -> StreamAssembler:
    assembler = StreamAssembler()
    for event in iter_sse(sse_fixture(name)):
        assembler.feed(event)
    return assembler


async def run_turn(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, search_replies: list[str]
) -> tuple[SSEServer, list[Event], TurnFinished]:
    """One turn: main request → WebSearch call; sub-requests → `search_replies`; main → text."""
    searches = iter(search_replies)
    main = iter(["main_calls_websearch.sse", "text_only.sse"])

    def responder(index: int, body: Any) -> str:
        return sse_fixture(next(searches) if is_search_request(body) else next(main))

    events: list[Event] = []
    async with SSEServer(responder) as server:
        use_loopback_api(monkeypatch, server.url)
        provider = AnthropicProvider()
        config = AgentConfig(model="claude-sonnet-4-5", cwd=tmp_path, data_dir=tmp_path)
        agent = Agent(provider, ToolRegistry([WebSearchTool()]), config, permissions=AllowAll())
        agent.listeners.append(events.append)
        try:
            finished = await agent.submit("When was Python 3.13 released?")
        finally:
            # The client is built lazily by the provider; close it so no connection outlives
            # the server.
            if provider._client is not None:
                with contextlib.suppress(Exception):
                    await provider._client.close()
    return server, events, finished


async def test_main_turn_calls_websearch_through_the_real_sdk(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server, events, finished = await run_turn(monkeypatch, tmp_path, ["web_search.sse"])
    assert finished.stop_reason == "end_turn" and not finished.failed
    assert [r.path for r in server.requests] == ["/v1/messages"] * 3
    first, sub, last = (uncached(r.json) for r in server.requests)

    assert "WebSearch" in [t["name"] for t in first["tools"]]
    assert sub["tools"] == [SERVER_TOOL]
    assert sub["tool_choice"] == {"type": "tool", "name": "web_search"}
    assert sub["stream"] is True and sub["model"] == "claude-sonnet-4-5"
    assert sub["messages"] == [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "Perform a web search for the query: Python 3.13 release date",
                }
            ],
        }
    ]

    [result] = [b for b in last["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert result["tool_use_id"] == CALL_ID and not result.get("is_error")
    text = result["content"]
    assert text.startswith('Web search results for query: "Python 3.13 release date"')
    links = json.loads(re.search(r"^Links: (\[.*\])$", text, re.M).group(1))
    assert len(links) == 3
    assert links[2] == {
        "title": "PEP 719 – Python 3.13 Release Schedule | peps.python.org",
        "url": "https://peps.python.org/pep-0719/",
    }
    assert text.endswith(REMINDER)

    queries = [e.query for e in events if isinstance(e, SearchQueryUpdate)]
    assert queries[-1] == "Python 3.13 release date"
    assert all(e.tool_use_id == CALL_ID for e in events if isinstance(e, SearchQueryUpdate))
    [done] = [e for e in events if isinstance(e, ToolFinished)]
    assert done.tool_use_id == CALL_ID and done.summary.startswith("Did 1 search in ")
    assert finished.usage.web_search_requests == 1
    assert finished.usage == (
        assembled("main_calls_websearch.sse").usage
        + assembled("web_search.sse").usage
        + assembled("text_only.sse").usage
    )


async def test_paused_search_is_resent_verbatim_through_the_sdk(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server, _, finished = await run_turn(
        monkeypatch, tmp_path, ["pause_turn.sse", "pause_turn_continuation.sse"]
    )
    assert finished.stop_reason == "end_turn"
    subs = [uncached(r.json) for r in server.requests if is_search_request(r.json)]
    assert len(subs) == 2
    # What the SDK parsed off the wire goes back byte-for-byte equal as JSON, encrypted_content
    # included, as the one assistant message after the unchanged user message.
    assert subs[1]["messages"] == [
        subs[0]["messages"][0],
        {"role": "assistant", "content": assembled("pause_turn.sse").content},
    ]
    assert subs[1]["tools"] == [SERVER_TOOL]
    assert subs[1]["tool_choice"] == {"type": "tool", "name": "web_search"}
    last = uncached(server.requests[-1].json)
    [result] = [b for b in last["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert "https://peps.python.org/pep-0745/" in result["content"]
    assert finished.usage.web_search_requests == 2
