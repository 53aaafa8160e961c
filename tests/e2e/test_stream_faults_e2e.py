"""Faults of a stream through the real SDK and CLI (issue 50): a content block this SDK doesn't
know is skipped without pydantic's warnings on stderr; a connection that breaks after the answer
began says so (the API was reached), not "Could not reach the API"; and a reason that ends a
sentence of its own is never followed by a second full stop."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sse_server import Response, SSEServer, run_agent_tui, sse_fixture, use_loopback_api

from agent_tui.agent.approvals import AllowAll
from agent_tui.agent.loop import Agent, AgentConfig
from agent_tui.protocol.events import Event, StreamFailed
from agent_tui.providers.anthropic import AnthropicProvider, _connection_error
from agent_tui.tools.base import ToolRegistry

TEXT = sse_fixture("text_only.sse")
#: the fixture up to (and including) its second text delta
HEAD = TEXT[: TEXT.index("\n\n", TEXT.index('"text_delta"', TEXT.index('"text_delta"') + 1)) + 2]


def with_unknown_block(stream: str) -> str:
    """The stream with a block of a type no SDK knows, before its text block."""
    first = stream.index("event: content_block_start")
    unknown = {"type": "mystery_block", "payload": {"x": 1}}
    shifted = stream[first:].replace('"index":0', '"index":1')
    start = {"type": "content_block_start", "index": 0, "content_block": unknown}
    return (
        stream[:first]
        + f"event: content_block_start\ndata: {json.dumps(start)}\n\n"
        + 'event: content_block_stop\ndata: {"type": "content_block_stop", "index": 0}\n\n'
        + shifted
    )


async def test_an_unknown_content_block_is_skipped_quietly(tmp_path: Path) -> None:
    async with SSEServer(lambda n, body: with_unknown_block(TEXT)) as server:
        code, out, err = await run_agent_tui(server, tmp_path, tmp_path / "home", "-p", "hi")
    assert code == 0, err.decode()
    assert out.decode().startswith("A git rebase replays")
    # before: ~10 lines of "UserWarning: Pydantic serializer warnings: … mystery_block"
    assert "Warning" not in err.decode() and "pydantic" not in err.decode().lower(), err.decode()


async def reset_mid_answer() -> AsyncIterator[bytes]:
    yield HEAD.encode()
    await asyncio.sleep(0.1)
    raise ConnectionResetError("the server went away")


async def test_a_connection_broken_mid_answer_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    async with SSEServer(lambda n, body: Response(reset_mid_answer())) as server:
        use_loopback_api(monkeypatch, server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-e2e")
        agent = Agent(
            AnthropicProvider("claude-sonnet-4-5"),
            ToolRegistry(),
            AgentConfig(model="claude-sonnet-4-5", cwd=tmp_path, data_dir=tmp_path),
            permissions=AllowAll(),
        )
        events: list[Event] = []
        agent.listeners.append(events.append)
        result = await asyncio.wait_for(agent.submit("hi"), 60)
    (failed,) = [e for e in events if isinstance(e, StreamFailed)]
    assert result.failed and len(server.requests) == 1  # never resent after content arrived
    assert failed.error.startswith("The connection to the API broke mid-answer: "), failed.error
    assert "Could not reach" not in failed.error and failed.partial_text == "A git rebase replays"


def test_a_reason_with_its_own_full_stop_gets_no_second_one() -> None:
    try:
        raise ConnectionError("Server disconnected without sending a response.")
    except ConnectionError as exc:
        error = _connection_error(exc, "http://127.0.0.1:9")
    assert "response. Check ANTHROPIC_BASE_URL" in error.message  # was "response.. Check"
    assert ".." not in error.message
