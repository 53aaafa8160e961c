"""The real anthropic SDK through the agent loop against the loopback SSE server: multi-request
turns, parallel tool calls, pause_turn, errors mid-stream and before content, and headless mode as
a subprocess pointed at the server with ANTHROPIC_BASE_URL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conversation_rules import assert_valid_conversation
from pydantic import BaseModel
from sse_server import SSEServer, run_agent_tui, sse_fixture, uncached, use_loopback_api

from agent_tui.agent.approvals import AllowAll
from agent_tui.agent.loop import Agent, AgentConfig
from agent_tui.protocol.events import Event, Notice, StreamFailed, TextDelta, TurnFinished
from agent_tui.providers.anthropic import AnthropicProvider
from agent_tui.tools.base import Tool, ToolContext, ToolOutput, ToolRegistry

BASH_ID = "toolu_01T1x1fJ34qAmk2tNTrN7Up6"  # the tool_use id in client_tool_bash.sse


class BashInput(BaseModel):
    command: str
    description: str | None = None


class ReadInput(BaseModel):
    path: str


class FakeBash(Tool):
    """Records what it was asked to run instead of running it."""

    name = "Bash"
    description = "Run a shell command."
    input_model = BashInput

    def __init__(self) -> None:
        self.ran: list[str] = []

    async def run(self, params: BashInput, ctx: ToolContext) -> ToolOutput:
        self.ran.append(params.command)
        return ToolOutput(f"M README.md\n(ran {params.command})", summary="exit 0")


class FakeRead(Tool):
    name = "Read"
    description = "Read a file."
    input_model = ReadInput
    read_only = True

    async def run(self, params: ReadInput, ctx: ToolContext) -> ToolOutput:
        return ToolOutput(f"     1\t# contents of {params.path}")


def make_agent(tmp_path: Path, *tools: Tool, **config: Any) -> tuple[Agent, list[Event]]:
    agent = Agent(
        AnthropicProvider("claude-sonnet-4-5"),
        ToolRegistry(list(tools)),
        AgentConfig(model="claude-sonnet-4-5", cwd=tmp_path, data_dir=tmp_path, **config),
        permissions=AllowAll(),
    )
    events: list[Event] = []
    agent.listeners.append(events.append)
    return agent, events


def sequence(*names: str):  # type: ignore[no-untyped-def]
    replies = iter(names)
    return lambda index, body: sse_fixture(next(replies))


async def test_text_answer_streams(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    async with SSEServer(sequence("text_only.sse")) as server:
        use_loopback_api(monkeypatch, server.url)
        agent, events = make_agent(tmp_path)
        result = await agent.submit("hi")
    assert result.stop_reason == "end_turn" and result.requests == 1
    assert "".join(e.text for e in events if isinstance(e, TextDelta))
    body = uncached(server.requests[0].json)
    assert body["stream"] is True and body["model"] == "claude-sonnet-4-5"
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    headers = server.requests[0].headers
    assert "test-key" in (headers.get("x-api-key", "") + headers.get("authorization", ""))


async def test_tool_use_then_result_then_end(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bash = FakeBash()
    async with SSEServer(sequence("client_tool_bash.sse", "text_only.sse")) as server:
        use_loopback_api(monkeypatch, server.url)
        agent, _ = make_agent(tmp_path, bash)
        result = await agent.submit("what changed?")
    assert bash.ran == ["git status --short"]
    assert result.requests == 2 and result.stop_reason == "end_turn"
    second = uncached(server.requests[1].json)
    assert [t["name"] for t in second["tools"]] == ["Bash"]
    assistant, user = second["messages"][-2:]
    assert assistant["content"][1] == {
        "type": "tool_use",
        "id": BASH_ID,
        "name": "Bash",
        "input": {"command": "git status --short"},
    }
    assert user["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": BASH_ID,
            "content": "M README.md\n(ran git status --short)",
        }
    ]
    assert_valid_conversation(agent.messages)


async def test_parallel_tool_calls_each_get_one_result(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    async with SSEServer(sequence("parallel_tools.sse", "text_only.sse")) as server:
        use_loopback_api(monkeypatch, server.url)
        agent, _ = make_agent(tmp_path, FakeBash(), FakeRead())
        await agent.submit("look around")
    second = uncached(server.requests[1].json)["messages"]
    uses = [b["id"] for b in second[-2]["content"] if b["type"] == "tool_use"]
    results = [b["tool_use_id"] for b in second[-1]["content"]]
    assert len(uses) == 2 and results == uses
    assert_valid_conversation(agent.messages)


async def test_pause_turn_resends_content_unchanged(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    async with SSEServer(sequence("pause_turn.sse", "text_only.sse")) as server:
        use_loopback_api(monkeypatch, server.url)
        agent, _ = make_agent(tmp_path)
        result = await agent.submit("python releases?")
    assert result.requests == 2
    first_reply = uncached(server.requests[1].json)["messages"]
    assert first_reply[-1]["role"] == "assistant"  # no extra user message
    paused = first_reply[-1]["content"]
    assert [b["type"] for b in paused] == [
        "text",
        "server_tool_use",
        "web_search_tool_result",
        "server_tool_use",
    ]
    wire = sse_fixture("pause_turn.sse")
    for result_block in (b for b in paused if b["type"] == "web_search_tool_result"):
        for item in result_block["content"]:
            assert item["encrypted_content"] in wire  # sent back byte for byte


async def test_overloaded_midstream_keeps_partial_text_and_recovers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    replies = sequence("overloaded_midstream.sse", "text_only.sse")
    async with SSEServer(replies) as server:
        use_loopback_api(monkeypatch, server.url)
        agent, events = make_agent(tmp_path, retry_base_delay=0.01)
        result = await agent.submit("explain")
        failed = [e for e in events if isinstance(e, StreamFailed)]
        assert result.failed and failed
        assert "overloaded" in failed[0].error.lower()
        assert failed[0].partial_text  # what arrived before the error is kept
        assert agent.messages[-1]["role"] == "assistant"
        assert agent.can_retry
        again = await agent.submit("try again")
    assert again.stop_reason == "end_turn"
    assert len(server.requests) == 2  # content had arrived: no automatic resend
    assert_valid_conversation(agent.messages)


async def test_529_before_content_is_retried(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    error = json.dumps({"type": "error", "error": {"type": "overloaded_error", "message": "busy"}})

    def responder(index: int, body: Any):  # type: ignore[no-untyped-def]
        if index == 0:
            return (529, {"content-type": "application/json", "retry-after": "0"}, error)
        return sse_fixture("text_only.sse")

    async with SSEServer(responder) as server:
        use_loopback_api(monkeypatch, server.url)
        agent, events = make_agent(tmp_path, retry_base_delay=0.01)
        result = await agent.submit("hi")
    assert result.stop_reason == "end_turn" and not result.failed
    assert len(server.requests) == 2
    assert any(isinstance(e, Notice) and "Retrying" in e.text for e in events)


async def test_bad_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    error = json.dumps(
        {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}
    )
    async with SSEServer(lambda i, b: (401, {"content-type": "application/json"}, error)) as srv:
        use_loopback_api(monkeypatch, srv.url)
        agent, events = make_agent(tmp_path)
        result = await agent.submit("hi")
    assert result.failed
    message = next(e for e in events if isinstance(e, StreamFailed)).error
    assert "ANTHROPIC_API_KEY" in message
    assert len(srv.requests) == 1  # not retryable
    assert isinstance(events[-1], TurnFinished)


async def test_headless_subprocess_against_loopback_server(tmp_path: Path) -> None:
    async with SSEServer(sequence("text_only.sse")) as server:
        code, out, err = await run_agent_tui(
            server, tmp_path, tmp_path / "home", "-p", "hi", key="sk-ant-api03-e2e-secret-value"
        )
    assert code == 0, err.decode()
    expected = "".join(
        json.loads(line[5:])["delta"]["text"]
        for line in sse_fixture("text_only.sse").splitlines()
        if line.startswith("data:") and '"text_delta"' in line
    )
    assert out.decode().strip() == expected.strip()
    home = tmp_path / "home"
    assert (home / "sessions.db").exists()
    # nothing the app wrote holds the key: the store, its logs…
    files = [path for path in home.rglob("*") if path.is_file()]
    assert "sessions.db" in {p.name for p in files}
    for path in files:
        assert b"e2e-secret-value" not in path.read_bytes(), path
