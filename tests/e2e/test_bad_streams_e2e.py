"""Bad streams through the real SDK: each ends in a clear, recoverable error, the partial text is
kept, the API key never shows, and the next prompt works."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from conversation_rules import assert_valid_conversation
from sse_server import Response, SSEServer, sse_fixture, use_loopback_api

from agent_tui.agent.approvals import AllowAll
from agent_tui.agent.loop import Agent, AgentConfig
from agent_tui.protocol.events import Event, StreamFailed
from agent_tui.providers.anthropic import AnthropicProvider
from agent_tui.tools.base import ToolRegistry

TEXT = sse_fixture("text_only.sse")
#: the fixture up to (and including) its second text delta: a stream cut mid-answer
HEAD = TEXT[: TEXT.index("\n\n", TEXT.index('"text_delta"', TEXT.index('"text_delta"') + 1)) + 2]


def agent_for(tmp_path: Path, **config: Any) -> tuple[Agent, list[Event]]:
    agent = Agent(
        AnthropicProvider("claude-sonnet-4-5"),
        ToolRegistry(),
        AgentConfig(
            model="claude-sonnet-4-5", cwd=tmp_path, data_dir=tmp_path, max_retries=0, **config
        ),
        permissions=AllowAll(),
    )
    events: list[Event] = []
    agent.listeners.append(events.append)
    return agent, events


async def stalled() -> AsyncIterator[bytes]:
    yield HEAD.encode()
    await asyncio.sleep(30)


BAD = {
    "truncated mid-event": HEAD + 'event: content_block_delta\ndata: {"type": "content_bl',
    "invalid JSON in data": HEAD + "event: content_block_delta\ndata: {not json}\n\n",
    "error event mid-stream": HEAD
    + 'event: error\ndata: {"type": "error", "error": {"type": "api_error", "message": "x"}}\n\n',
    "stalled": Response(stalled()),
}


@pytest.mark.parametrize("case", list(BAD))
async def test_bad_stream_is_a_clear_recoverable_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, case: str
) -> None:
    replies = iter([BAD[case], TEXT])
    async with SSEServer(lambda index, body: next(replies)) as server:
        use_loopback_api(monkeypatch, server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-never-show-this-key")
        agent, events = agent_for(tmp_path, stall_timeout=1.0)
        agent.provider.warm_up()  # the SDK import must not count against the 1 s stall timeout
        result = await asyncio.wait_for(agent.submit("hi"), 60)
        failed = [e for e in events if isinstance(e, StreamFailed)]
        assert result.failed and len(failed) == 1
        assert failed[0].error and "Traceback" not in failed[0].error
        assert "never-show-this-key" not in failed[0].error
        assert failed[0].partial_text  # the text that had arrived is kept…
        assert agent.messages[-1]["role"] == "assistant"  # …in the conversation too
        assert agent.can_retry
        again = await asyncio.wait_for(agent.retry(), 60)
    assert again.stop_reason == "end_turn"
    assert_valid_conversation(agent.messages)
