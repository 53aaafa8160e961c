"""Compaction in the loop: when it is due, where the cut falls, what the summary request and
the requests after it send, `/compact` on demand, and the thinking request fields."""

from __future__ import annotations

from pathlib import Path

from conversation_rules import ScriptedProvider, assert_valid_conversation, reply, text
from loop_harness import EchoTool, Harness

from agent_tui.agent.conversation import SUMMARY_HEADER, Conversation
from agent_tui.protocol.events import ContextCompacted, Notice

NEARLY_FULL = {"input_tokens": 170_000, "output_tokens": 100}  # 85% of a 200k window


def full_reply(answer: str) -> list:  # type: ignore[type-arg]
    events = reply(text(answer))
    events[0]["message"]["usage"] = {"input_tokens": 170_000, "output_tokens": 1}
    return events


def test_the_request_view_puts_the_summary_before_the_kept_turns() -> None:
    conversation = Conversation()
    for n in range(3):
        conversation.add_prompt(f"prompt {n}")
        conversation.begin("assistant")
        conversation.append({"type": "text", "text": f"answer {n}"})
    assert conversation.prompt_starts() == [0, 2, 4]
    conversation.compact(2, "S")
    view = conversation.request_messages()
    assert view[0]["content"][0]["text"] == SUMMARY_HEADER + "S"
    assert view[0]["content"][1]["text"] == "prompt 1"
    assert view[1:] == conversation.messages[3:]
    # the same object each time, so the prefix's bytes never change
    assert conversation.request_messages()[0] is view[0]
    assert len(conversation.messages) == 6  # the history itself is whole


async def test_a_nearly_full_context_is_compacted_before_the_next_request(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        full_reply("one done"),
        reply(text("the summary of turn one")),  # the summary request
        reply(text("two done")),
        reply(text("three done")),
    )
    h = Harness(provider, [EchoTool()], tmp_path, compaction="client")
    await h.agent.submit("one")  # leaves the context 85% full
    assert not h.of(ContextCompacted)
    await h.agent.submit("two")  # turn one is summarised before "two" is sent
    assert len(h.of(ContextCompacted)) == 1
    await h.agent.submit("three")
    summary_request = provider.requests[1]
    assert summary_request.purpose == "compaction"
    assert summary_request.tool_choice == {"type": "none"}
    assert summary_request.tools == provider.requests[0].tools  # the cached prefix is reused
    assert [m["content"][0]["text"] for m in summary_request.messages[:1]] == ["one"]
    compacted = h.of(ContextCompacted)[0]
    assert compacted.how == "client" and compacted.summary == "the summary of turn one"
    assert compacted.tokens_before == 170_000 + 5  # input, and the answer (output)
    for request in provider.requests[2:]:
        after = request.messages
        assert after[0]["content"][0]["text"].endswith("the summary of turn one")
        assert after[0]["content"][1]["text"] == "two"
        assert_valid_conversation(after)
    assert len(provider.requests) == 4


async def test_compact_on_demand_and_when_there_is_nothing_to_compact(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        reply(text("a")), reply(text("b")), reply(text("summary")), reply(text("c"))
    )
    h = Harness(provider, [EchoTool()], tmp_path)
    await h.agent.submit("one")
    result = await h.agent.compact()
    assert "nothing to compact" in h.of(Notice)[-1].text
    assert not result.failed
    await h.agent.submit("two")
    result = await h.agent.compact("keep the file names")
    assert "keep the file names" in provider.requests[2].messages[-1]["content"][0]["text"]
    assert result.usage.output_tokens == 5  # its cost counts like any turn's
    await h.agent.submit("three")
    assert provider.requests[3].messages[0]["content"][0]["text"].endswith("summary")


async def test_compaction_off_never_compacts(tmp_path: Path) -> None:
    provider = ScriptedProvider(full_reply("a"), full_reply("b"), reply(text("c")))
    h = Harness(provider, [EchoTool()], tmp_path, compaction="off")
    for prompt in ("one", "two", "three"):
        await h.agent.submit(prompt)
    assert not h.of(ContextCompacted)
    assert all(r.purpose == "main" for r in provider.requests)


async def test_thinking_is_requested_with_room_for_the_answer(tmp_path: Path) -> None:
    provider = ScriptedProvider(reply(text("a")), reply(text("b")))
    h = Harness(provider, [EchoTool()], tmp_path, thinking_budget=10_000, max_tokens=8000)
    await h.agent.submit("think")
    request = provider.requests[0]
    assert request.thinking == {"type": "enabled", "budget_tokens": 10_000}
    assert request.max_tokens > 10_000
    h.agent.config.thinking_budget = None  # the toggle
    await h.agent.submit("quick")
    assert provider.requests[1].thinking is None
    assert "thinking" not in provider.requests[1].body()
