"""The loop after a broken stream: what is kept, what a retry sends, and when it stops going on."""

from __future__ import annotations

from pathlib import Path

from conversation_rules import ScriptedProvider, assert_valid_conversation, reply, text

from agent_tui.agent import loop as loop_module
from agent_tui.agent.loop import RESUME_PROMPT, Agent, AgentConfig
from agent_tui.protocol.events import Event, Notice, StreamFailed
from agent_tui.providers.base import ProviderError
from agent_tui.tools.base import ToolRegistry

SEARCH = {
    "type": "server_tool_use",
    "id": "srvtoolu_1",
    "name": "web_search",
    "input": {"query": "q"},
}
RESULT = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}


def agent_for(provider: ScriptedProvider, tmp_path: Path) -> tuple[Agent, list[Event]]:
    agent = Agent(
        provider,
        ToolRegistry(),
        AgentConfig(model="claude-test", cwd=tmp_path, data_dir=tmp_path, max_retries=0),
    )
    events: list[Event] = []
    agent.listeners.append(events.append)
    return agent, events


def cut(events: list, keep: int, error: Exception | None = None) -> list:  # type: ignore[type-arg]
    """The first `keep` events of a response, then a failure."""
    return [*events[:keep], error or ProviderError("connection reset", retryable=True)]


async def test_retry_after_partial_answer_asks_to_continue(tmp_path: Path) -> None:
    partial = cut(reply(text("The first half of the answer and")), keep=3)
    provider = ScriptedProvider(partial, reply(text("the second half.")))
    agent, events = agent_for(provider, tmp_path)
    first = await agent.submit("explain")
    assert first.failed and any(isinstance(e, StreamFailed) for e in events)
    assert agent.messages[-1]["role"] == "assistant"  # the partial text is kept
    again = await agent.retry()
    assert again.stop_reason == "end_turn"
    sent = provider.requests[1].messages
    assert sent[-1] == {"role": "user", "content": [{"type": "text", "text": RESUME_PROMPT}]}
    assert sent[-2]["role"] == "assistant"
    assert_valid_conversation(agent.messages)


async def test_retry_without_partial_resends_as_is(tmp_path: Path) -> None:
    provider = ScriptedProvider(cut(reply(text("x")), keep=1), reply(text("ok")))
    agent, _ = agent_for(provider, tmp_path)
    await agent.submit("hi")
    await agent.retry()
    assert provider.requests[1].messages == provider.requests[0].messages


async def test_stream_cut_between_search_and_result_drops_the_search(tmp_path: Path) -> None:
    response = reply(text("Searching."), SEARCH, RESULT, text("Found it."))
    # message_start, text (start, 2 deltas, stop), search (start, deltas…, stop): cut right after
    stop_of_search = next(
        i for i, e in enumerate(response) if e["type"] == "content_block_stop" and e["index"] == 1
    )
    provider = ScriptedProvider(cut(response, keep=stop_of_search + 1), reply(text("ok")))
    agent, _ = agent_for(provider, tmp_path)
    await agent.submit("search")
    kept = [b["type"] for b in agent.messages[-1]["content"]]
    assert kept == ["text"]  # the unanswered server call is not kept
    await agent.submit("again")
    assert_valid_conversation(provider.requests[-1].messages)


async def test_search_and_result_are_kept_together(tmp_path: Path) -> None:
    provider = ScriptedProvider(reply(text("Searching."), SEARCH, RESULT, text("Found it.")))
    agent, _ = agent_for(provider, tmp_path)
    await agent.submit("search")
    kinds = [b["type"] for b in agent.messages[-1]["content"]]
    assert kinds == ["text", "server_tool_use", "web_search_tool_result", "text"]


async def test_paused_content_keeps_its_trailing_search(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        reply(text("Searching."), SEARCH, stop_reason="pause_turn"), reply(text("done"))
    )
    agent, _ = agent_for(provider, tmp_path)
    await agent.submit("search")
    resent = provider.requests[1].messages[-1]["content"]
    assert [b["type"] for b in resent] == ["text", "server_tool_use"]


async def test_endless_pause_turn_stops_with_a_notice(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(loop_module.stops, "MAX_CONTINUATIONS", 3)
    paused = [reply(text(f"part {i}"), stop_reason="pause_turn") for i in range(10)]
    provider = ScriptedProvider(*paused)
    agent, events = agent_for(provider, tmp_path)
    result = await agent.submit("go")
    assert result.requests == 4
    assert any(isinstance(e, Notice) and "paused 3 times" in e.text for e in events)
