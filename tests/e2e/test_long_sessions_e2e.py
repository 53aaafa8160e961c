"""Long sessions through the real SDK at the loopback server: server-side compaction (requested,
streamed, kept verbatim and sent back), the client-side fallback when the server refuses it (a
summary request replaces the older turns, and a `--continue`d process goes on from the same
summary), and extended thinking whose signed blocks go back unchanged between tool calls."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conversation_rules import assert_valid_conversation, reply, text, tool_use
from sse_server import SSEServer, run_agent_tui, uncached, use_loopback_api

from agent_tui.agent.approvals import AllowAll
from agent_tui.agent.loop import Agent, AgentConfig
from agent_tui.protocol.events import ContextCompacted, Event
from agent_tui.providers.anthropic import AnthropicProvider
from agent_tui.tools.base import ToolRegistry

SUMMARY = "The user asked for two things; both are done. Next: the third."
FULL = {"input_tokens": 185_000, "output_tokens": 40}  # of a 200k window: time to compact


def to_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def with_usage(events: list[dict[str, Any]], usage: dict[str, int]) -> list[dict[str, Any]]:
    for event in events:
        if event["type"] == "message_start":
            event["message"]["usage"] = {**usage, "output_tokens": 1}
    return events


def compaction_reply(summary: str, answer: str) -> str:
    events = reply(text(answer))
    start = [
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "compaction", "content": None},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "compaction_delta", "content": summary},
        },
        {"type": "content_block_stop", "index": 0},
    ]
    for event in events[1:]:
        if "index" in event:
            event["index"] += 1
    return to_sse([events[0], *start, *events[1:]])


async def test_server_side_compaction_is_requested_streamed_shown_and_sent_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def responder(index: int, body: Any) -> str:
        if index == 0:
            return compaction_reply(SUMMARY, "Carrying on from the summary.")
        return to_sse(reply(text("second answer")))

    async with SSEServer(responder) as server:
        use_loopback_api(monkeypatch, server.url)
        config = AgentConfig(model="claude-opus-4-6", cwd=tmp_path, compaction="server")
        agent = Agent(AnthropicProvider(), ToolRegistry([]), config, permissions=AllowAll())
        events: list[Event] = []
        agent.listeners.append(events.append)
        await agent.submit("first")
        await agent.submit("second")
    first, second = server.requests
    edit = first.json["context_management"]["edits"][0]
    assert edit["type"] == "compact_20260112"
    assert edit["trigger"] == {"type": "input_tokens", "value": 160_000}  # 80% of 200k
    assert "compact-2026-01-12" in first.headers["anthropic-beta"]
    compacted = [e for e in events if isinstance(e, ContextCompacted)]
    assert [(e.how, e.summary) for e in compacted] == [("server", SUMMARY)]
    # kept verbatim in the conversation, and sent back as it came
    block = agent.messages[1]["content"][0]
    assert block == {"type": "compaction", "content": SUMMARY}
    sent = second.json["messages"][1]["content"][0]
    assert {k: v for k, v in sent.items() if k != "cache_control"} == block
    assert_valid_conversation(second.json["messages"])


def refusing_server(summaries: list[Any]) -> Any:
    """Refuses the compaction edit like an API without it; reports a nearly full context; and
    answers summary requests (the ones that may not call tools) with SUMMARY."""

    def responder(index: int, body: Any) -> Any:
        if "context_management" in body:
            error = {"type": "invalid_request_error", "message": "Unknown beta compact-2026-01-12"}
            return (400, {}, json.dumps({"type": "error", "error": error}))
        if body.get("tool_choice") == {"type": "none"}:
            summaries.append(body)
            return to_sse(reply(text(SUMMARY)))
        # the answer to "two" leaves the context nearly full
        full = body["messages"][-1]["content"][-1].get("text") == "two"
        events = reply(text(f"answer {index}"))
        return to_sse(with_usage(events, FULL) if full else events)

    return responder


async def test_client_fallback_when_the_server_refuses_and_a_continued_process_keeps_it(
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    summaries: list[Any] = []
    env = {"AGENT_TUI_COMPACTION": "server"}
    async with SSEServer(refusing_server(summaries)) as server:
        outputs = []
        for n, prompt in enumerate(["one", "two", "three", "four"]):
            # a 200K window, where FULL is nearly full (today's models have 1M)
            args = ("-p", prompt, "--model", "claude-haiku-4-5", *(("--continue",) if n else ()))
            code, _, err = await run_agent_tui(server, project, home, *args, extra_env=env)
            assert code == 0, err.decode()
            outputs.append(err.decode())
    main = [r.json for r in server.requests if "context_management" not in r.json]
    main = [b for b in main if b.get("tool_choice") != {"type": "none"}]
    # every process tried the server path first, was refused, and said so once
    assert "Server-side compaction isn't available" in outputs[0]
    # process 3 found the context nearly full (as process 2 left it), so one summary request
    # replaced turn one; process 4 goes on from the stored summary without another
    assert len(summaries) == 1
    summary_request = summaries[0]
    assert "summary" in summary_request["messages"][-1]["content"][0]["text"]
    said = json.dumps(summary_request["messages"])
    assert '"one"' in said and '"three"' not in said
    third = main[2]["messages"]
    head = third[0]["content"]
    assert head[0]["text"].endswith(SUMMARY)
    assert head[1]["text"] == "two"  # the recent turns stay as they were
    assert '"one"' not in json.dumps(third)
    assert_valid_conversation(third)
    fourth = main[3]["messages"]
    # the same prefix as process 3 sent, byte for byte once the cache markers are set aside
    assert json.dumps(uncached(fourth[: len(third)])) == json.dumps(uncached(third))


async def test_thinking_blocks_and_signatures_go_back_unchanged_between_tool_calls(
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    thought = [
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "Let me list "},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "the files."},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "EqQBCkgIARAB"},
        },
        {"type": "content_block_stop", "index": 0},
    ]
    redacted = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}

    def responder(index: int, body: Any) -> str:
        if index == 0:
            events = reply(
                redacted,
                tool_use("toolu_1", "Bash", {"command": "echo hi"}),
                stop_reason="tool_use",
            )
            for event in events[1:]:
                if "index" in event:
                    event["index"] += 1
            return to_sse([events[0], *thought, *events[1:]])
        return to_sse(reply(text("done")))

    async with SSEServer(responder) as server:
        code, _, err = await run_agent_tui(
            server, project, home, "-p", "list", "--thinking", "2048", "--allow", "Bash(echo:*)",
            "--model", "claude-haiku-4-5",  # extended thinking, with a budget
        )  # fmt: skip
    assert code == 0, err.decode()
    first, second = (r.json for r in server.requests)
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert first["max_tokens"] > 2048
    sent = second["messages"][1]["content"]
    assert sent[0] == {
        "type": "thinking",
        "thinking": "Let me list the files.",
        "signature": "EqQBCkgIARAB",
    }
    assert sent[1] == redacted
    assert sent[2]["type"] == "tool_use"
    assert second["thinking"] == first["thinking"]
