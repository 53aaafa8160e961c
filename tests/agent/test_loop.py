"""The agent loop, driven by a scripted provider and tiny fake tools: plain turns, stop reasons,
cancellation, usage and cost.

Every test ends by checking the conversation against the API's rules (`assert_valid_conversation`)
and, where a later request was made, that request too: the point of the loop is that whatever
happens (tools fail, the person cancels, the stream breaks) the next request is one the API takes.
"""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any

import pytest
from conversation_rules import (
    ScriptedProvider,
    assert_valid_conversation,
    hang_after,
    reply,
    results_of,
    text,
    tool_use,
)
from loop_harness import (
    MODEL,
    EchoTool,
    Harness,
    MeteredTool,
    TouchTool,
    WaitTool,
)
from sse_server import sse_fixture

from agent_tui.agent.cost import cost_usd
from agent_tui.agent.stop_reasons import MAX_LENGTH_CONTINUATIONS
from agent_tui.protocol.events import (
    BlockFinished,
    MessageStarted,
    Notice,
    RequestStarted,
    TextDelta,
    ToolFinished,
    TurnFinished,
    TurnStarted,
    Usage,
)
from agent_tui.protocol.sse import iter_sse

# --- plain turns ----------------------------------------------------------------------------------


async def test_text_turn(tmp_path: Path) -> None:
    provider = ScriptedProvider(reply(text("Hello there.")))
    h = Harness(provider, [EchoTool()], tmp_path)
    result = await h.agent.submit("hi")
    assert result == h.events[-1]
    assert result.stop_reason == "end_turn" and result.requests == 1
    assert not result.failed and not result.cancelled
    assert h.messages == [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Hello there."}]},
    ]
    (request,) = provider.requests
    assert request.model == MODEL
    assert request.messages == h.messages[:1]
    assert [t["name"] for t in request.tools] == ["Echo"]
    assert request.tools[0]["input_schema"]["required"] == ["text"]
    assert request.system
    assert isinstance(h.events[0], TurnStarted) and h.events[0].prompt == "hi"
    assert isinstance(h.events[1], RequestStarted) and h.events[1].n == 1
    assert isinstance(h.events[2], MessageStarted)
    assert not h.of(Notice)
    assert not h.agent.running
    h.check()


async def test_stop_sequence_ends_quietly(tmp_path: Path) -> None:
    h = Harness(ScriptedProvider(reply(text("a"), stop_reason="stop_sequence")), [], tmp_path)
    result = await h.agent.submit("hi")
    assert result.stop_reason == "stop_sequence"
    assert not h.of(Notice)


async def test_two_prompts_alternate(tmp_path: Path) -> None:
    provider = ScriptedProvider(reply(text("one")), reply(text("two")))
    h = Harness(provider, [], tmp_path)
    await h.agent.submit("first")
    await h.agent.submit("second")
    assert [m["role"] for m in h.request_messages(1)] == ["user", "assistant", "user"]
    h.check()


# --- stop reasons ---------------------------------------------------------------------------------


async def test_pause_turn_resends_the_paused_content_unchanged(tmp_path: Path) -> None:
    paused = list(iter_sse(sse_fixture("pause_turn.sse")))
    continuation = list(iter_sse(sse_fixture("pause_turn_continuation.sse")))
    provider = ScriptedProvider(paused, continuation)
    h = Harness(provider, [], tmp_path)
    received: list[dict[str, Any]] = []
    h.agent.listeners.append(
        lambda e: received.append(copy.deepcopy(e.block)) if isinstance(e, BlockFinished) else None
    )
    result = await h.agent.submit("research")
    assert result.requests == 2 and result.stop_reason == "end_turn"
    first_content = received[:4]
    second = h.request_messages(1)
    assert [m["role"] for m in second] == ["user", "assistant"]  # no extra user message
    assert second[-1]["content"] == first_content
    assert second[-1]["content"][-1]["id"] == "srvtoolu_01Lr8TyNc5XpWd2Gh7KqMb3F"
    # the continuation is appended to the same assistant message
    assert [m["role"] for m in h.messages] == ["user", "assistant"]
    assert h.messages[-1]["content"] == received
    assert len(received) == 8
    assert not h.of(Notice)
    assert result.usage.web_search_requests == 2
    h.check()


async def test_max_tokens_with_a_dangling_tool_use(tmp_path: Path) -> None:
    echo = EchoTool()
    provider = ScriptedProvider(
        reply(
            text("I'll run"), tool_use("toolu_1", "Echo", {"text": "x"}), stop_reason="max_tokens"
        ),
        reply(text("next answer")),
    )
    h = Harness(provider, [echo], tmp_path)
    result = await h.agent.submit("go")
    assert result.stop_reason == "max_tokens" and result.requests == 1
    assert echo.calls == []
    (notice,) = h.of(Notice)
    assert (
        notice.level == "warning" and "max_tokens" in notice.text and "1 tool call" in notice.text
    )
    (res,) = results_of(h.messages[-1])
    assert res["tool_use_id"] == "toolu_1" and res["is_error"]
    assert res["content"].startswith("not run")
    h.check()
    await h.agent.submit("continue")
    assert [m["role"] for m in h.request_messages(1)] == ["user", "assistant", "user", "user"]
    h.check()


async def test_an_answer_cut_by_max_tokens_goes_on_bounded(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        reply(text("The first half"), stop_reason="max_tokens"),
        reply(text(" and the rest."), stop_reason="end_turn"),
    )
    h = Harness(provider, [], tmp_path)
    result = await h.agent.submit("go")
    assert result.stop_reason == "end_turn" and result.requests == 2
    assert "continuing" in h.of(Notice)[0].text
    sent = h.request_messages(1)
    assert sent[-1]["role"] == "user" and "cut off by the output limit" in str(sent[-1])
    h.check()
    # a runaway answer still ends, with the usual notice
    runaway = ScriptedProvider(*[reply(text("more"), stop_reason="max_tokens")] * 10)
    h2 = Harness(runaway, [], tmp_path)
    result = await h2.agent.submit("go")
    assert result.stop_reason == "max_tokens" and result.requests == MAX_LENGTH_CONTINUATIONS + 1
    assert "max_tokens" in h2.of(Notice)[-1].text
    h2.check()


@pytest.mark.parametrize(
    ("stop_reason", "words"),
    [
        ("refusal", "refusal"),
        ("model_context_window_exceeded", "'model_context_window_exceeded'"),
        (None, "None"),
        ("tool_use", "no tool call"),
    ],
)
async def test_other_stop_reasons_end_with_a_notice(
    tmp_path: Path, stop_reason: str | None, words: str
) -> None:
    h = Harness(ScriptedProvider(reply(text("partial"), stop_reason=stop_reason)), [], tmp_path)
    result = await h.agent.submit("go")
    assert result.stop_reason == stop_reason and result.requests == 1
    assert not result.failed
    (notice,) = h.of(Notice)
    assert words in notice.text
    assert h.messages[-1]["content"] == [{"type": "text", "text": "partial"}]
    h.check()


# --- cancellation ---------------------------------------------------------------------------------


async def test_cancel_while_a_tool_runs(tmp_path: Path) -> None:
    wait = WaitTool()
    provider = ScriptedProvider(
        reply(text("waiting"), tool_use("toolu_w", "Wait"), stop_reason="tool_use"),
        reply(text("fresh start")),
    )
    h = Harness(provider, [wait], tmp_path)
    task = asyncio.create_task(h.agent.submit("wait"))
    await asyncio.wait_for(wait.started.wait(), 5)
    assert h.agent.running
    assert h.agent.cancel() is True
    result = await task
    assert result.cancelled and not result.failed
    assert wait.cancelled
    (res,) = results_of(h.messages[-1])
    assert res == {
        "type": "tool_result",
        "tool_use_id": "toolu_w",
        "content": "cancelled by user",
        "is_error": True,
    }
    finished = h.of(ToolFinished)
    assert [(f.tool_use_id, f.is_error, f.summary) for f in finished] == [
        ("toolu_w", True, "cancelled by user")
    ]
    assert any(n.text == "Cancelled." for n in h.of(Notice))
    assert not h.agent.running and h.agent.cancel() is False
    h.check()
    # the next prompt works, and its request is valid
    second = await h.agent.submit("again")
    assert second.stop_reason == "end_turn"
    sent = h.request_messages(1)
    assert_valid_conversation(sent)
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "user"]
    h.check()


async def test_cancel_parallel_tools_answers_every_call(tmp_path: Path) -> None:
    wait = WaitTool()
    log: list[str] = []
    calls = [
        tool_use("toolu_1", "Touch", {"path": "a"}),
        tool_use("toolu_2", "Wait"),
        tool_use("toolu_3", "Touch", {"path": "b"}),
    ]
    provider = ScriptedProvider(reply(*calls, stop_reason="tool_use"))
    h = Harness(provider, [wait, TouchTool(log)], tmp_path)
    task = asyncio.create_task(h.agent.submit("go"))
    await asyncio.wait_for(wait.started.wait(), 5)
    h.agent.cancel()
    result = await task
    assert result.cancelled
    results = results_of(h.messages[-1])
    assert [r["tool_use_id"] for r in results] == ["toolu_1", "toolu_2", "toolu_3"]
    assert results[0]["content"] == "created a"  # it ran before the cancel
    assert [r["content"] for r in results[1:]] == ["cancelled by user"] * 2
    assert log == ["touch a", "touched a"]  # the third never ran
    h.check()


async def test_cancel_while_streaming_keeps_the_partial_text(tmp_path: Path) -> None:
    events = reply(text("Half an ans"), message_stop=False)[:3]  # start, block start, 1st delta
    provider = ScriptedProvider(hang_after(events), reply(text("ok")))
    h = Harness(provider, [], tmp_path)
    task = asyncio.create_task(h.agent.submit("go"))
    while not h.of(TextDelta):
        await asyncio.sleep(0)
    h.agent.cancel()
    result = await task
    assert result.cancelled, h.events
    assert h.messages[-1] == {"role": "assistant", "content": [{"type": "text", "text": "Half "}]}
    assert provider.closed == 1
    h.check()
    await h.agent.submit("again")
    h.check()


async def test_cancel_a_streamed_tool_call(tmp_path: Path) -> None:
    """A tool_use block that finished streaming before the cancel still gets its result."""
    events = reply(tool_use("toolu_1", "Echo", {"text": "x"}), stop_reason="tool_use")[:-2]
    provider = ScriptedProvider(hang_after(events), reply(text("ok")))
    h = Harness(provider, [EchoTool()], tmp_path)
    task = asyncio.create_task(h.agent.submit("go"))
    while not h.of(BlockFinished):
        await asyncio.sleep(0)
    h.agent.cancel()
    result = await task
    assert result.cancelled
    (res,) = results_of(h.messages[-1])
    assert res["content"] == "cancelled by user"
    h.check()
    await h.agent.submit("again")
    h.check()


async def test_an_outside_cancel_is_not_swallowed(tmp_path: Path) -> None:
    wait = WaitTool()
    provider = ScriptedProvider(reply(tool_use("toolu_w", "Wait"), stop_reason="tool_use"))
    h = Harness(provider, [wait], tmp_path)
    task = asyncio.create_task(h.agent.submit("wait"))
    await asyncio.wait_for(wait.started.wait(), 5)
    task.cancel()  # not Agent.cancel(): e.g. the app shutting down
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not h.agent.running


# --- usage and cost -------------------------------------------------------------------------------


async def test_usage_and_cost_are_summed_over_requests(tmp_path: Path) -> None:
    u1 = {"input_tokens": 1000, "output_tokens": 200, "cache_read_input_tokens": 50}
    u2 = {"input_tokens": 1300, "output_tokens": 100, "server_tool_use": {"web_search_requests": 1}}
    first = reply(tool_use("toolu_1", "Metered"), stop_reason="tool_use", usage=u1)
    second = reply(text("done"), usage=u2)
    provider = ScriptedProvider(first, second)
    h = Harness(provider, [MeteredTool()], tmp_path)
    result = await h.agent.submit("go")
    # message_start says input 10 / output 1; message_delta replaces field by field
    req1 = Usage(1000, 200, 0, 50, 0)
    req2 = Usage(1300, 100, 0, 0, 1)
    tool = Usage(100, 50, web_search_requests=2)
    assert result.usage == req1 + req2 + tool
    expected_cost = cost_usd(MODEL, req1) + cost_usd(MODEL, req2) + cost_usd(MODEL, tool)
    assert result.cost_usd == pytest.approx(expected_cost)
    assert result.cost_usd > 0
    assert h.agent.session_usage == result.usage
    # a second turn adds to the session totals
    provider.steps.append(reply(text("again"), usage={"output_tokens": 7}))
    second_turn = await h.agent.submit("more")
    assert second_turn.usage == Usage(10, 7)
    assert h.agent.session_usage == result.usage + Usage(10, 7)
    assert h.agent.session_cost == pytest.approx(result.cost_usd + second_turn.cost_usd)


async def test_turn_finished_is_the_last_event(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "x"}), stop_reason="tool_use"), reply(text("y"))
    )
    h = Harness(provider, [EchoTool()], tmp_path)
    await h.agent.submit("go")
    kinds = [type(e).__name__ for e in h.events]
    assert kinds[0] == "TurnStarted" and kinds[-1] == "TurnFinished"
    assert kinds.count("RequestStarted") == 2 and kinds.count("TurnFinished") == 1
    assert kinds.index("ToolFinished") < kinds.index("RequestStarted", 2)
    assert all(isinstance(e.to_dict()["type"], str) for e in h.events)
    assert isinstance(h.events[-1], TurnFinished)


@pytest.mark.parametrize("stop_reason", ["end_turn", "pause_turn"])
async def test_a_client_tool_call_with_the_wrong_stop_reason_is_answered_not_run(
    tmp_path: Path, stop_reason: str
) -> None:
    """The API would not send this, but if it does, the conversation must stay valid."""
    echo = EchoTool()
    provider = ScriptedProvider(
        reply(text("odd"), tool_use("toolu_1", "Echo", {"text": "x"}), stop_reason=stop_reason),
        reply(text("ok")),
    )
    h = Harness(provider, [echo], tmp_path)
    result = await h.agent.submit("go")
    assert result.requests == 1 and echo.calls == []
    (res,) = results_of(h.messages[-1])
    assert res["tool_use_id"] == "toolu_1" and res["content"].startswith("not run")
    h.check()
