"""Retries and broken streams: back-off before content, never after; cut, stalled and failing
streams end in a clear, recoverable error with nothing lost."""

from __future__ import annotations

from pathlib import Path

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
)
from sse_server import sse_fixture

from agent_tui.agent.cost import cost_usd
from agent_tui.protocol.events import (
    Notice,
    StreamFailed,
    Usage,
)
from agent_tui.protocol.sse import iter_sse
from agent_tui.providers.base import ProviderError

# --- retries and broken streams -------------------------------------------------------------------


async def test_a_retried_request_is_counted_in_the_turn(
    tmp_path: Path, no_sleep: list[float]
) -> None:
    """The agent's turn counts every request it sent, the attempt that failed and was retried
    too (it used to count only the last attempt)."""
    provider = ScriptedProvider(
        [*reply()[:1], ProviderError("overloaded", retryable=True, kind="overloaded_error")],
        reply(text("ok"), usage={"output_tokens": 5}),
    )
    h = Harness(provider, [], tmp_path, retry_base_delay=0.5)
    finished = await h.agent.submit("go")
    assert len(provider.requests) == 2
    assert finished.usage == Usage(input_tokens=20, output_tokens=6)
    assert h.agent.session_usage == finished.usage


async def test_retry_before_content_with_backoff(tmp_path: Path, no_sleep: list[float]) -> None:
    provider = ScriptedProvider(
        [ProviderError("Overloaded.", retryable=True, status=529, kind="overloaded_error")],
        [ProviderError("Rate limited.", retryable=True, status=429, kind="rate_limit_error")],
        reply(text("finally")),
    )
    h = Harness(provider, [], tmp_path, retry_base_delay=0.5)
    result = await h.agent.submit("go")
    assert result.stop_reason == "end_turn" and not result.failed
    assert len(provider.requests) == 3
    assert no_sleep == [0.5, 1.0]
    notices = [n.text for n in h.of(Notice)]
    assert len(notices) == 2 and "attempt 1 of 4" in notices[0] and "attempt 2 of 4" in notices[1]
    assert all(r.messages == provider.requests[0].messages for r in provider.requests)
    assert h.messages[-1]["content"] == [{"type": "text", "text": "finally"}]
    h.check()


async def test_retry_after_is_respected(tmp_path: Path, no_sleep: list[float]) -> None:
    provider = ScriptedProvider(
        [ProviderError("Slow down.", retryable=True, status=429, retry_after=7.0)],
        reply(text("ok")),
    )
    h = Harness(provider, [], tmp_path, retry_base_delay=0.5)
    await h.agent.submit("go")
    assert no_sleep == [7.0]


async def test_stream_error_before_content_is_retried(
    tmp_path: Path, no_sleep: list[float]
) -> None:
    overloaded = [
        *reply(text("x"))[:1],
        {"type": "ping"},
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    ]
    provider = ScriptedProvider(overloaded, reply(text("ok")))
    h = Harness(provider, [], tmp_path)
    result = await h.agent.submit("go")
    assert not result.failed and len(provider.requests) == 2
    assert [m["role"] for m in h.messages] == ["user", "assistant"]


async def test_retries_run_out(tmp_path: Path, no_sleep: list[float]) -> None:
    error = ProviderError("Overloaded.", retryable=True, status=529)
    provider = ScriptedProvider(*([[error]] * 3))
    h = Harness(provider, [], tmp_path, max_retries=2)
    result = await h.agent.submit("go")
    assert result.failed and len(provider.requests) == 3
    (failed,) = h.of(StreamFailed)
    assert failed.retryable and failed.error == "Overloaded. Tried 3 times."
    assert h.agent.can_retry
    assert [m["role"] for m in h.messages] == ["user"]
    h.check()


async def test_non_retryable_error_is_not_retried(tmp_path: Path, no_sleep: list[float]) -> None:
    provider = ScriptedProvider([ProviderError("Invalid API key.", status=401)], reply(text("ok")))
    h = Harness(provider, [], tmp_path)
    result = await h.agent.submit("go")
    assert result.failed and len(provider.requests) == 1 and no_sleep == []
    (failed,) = h.of(StreamFailed)
    assert not failed.retryable and "Invalid API key" in failed.error
    # the next prompt is fine even with two user messages in a row
    await h.agent.submit("again")
    h.check()


async def test_no_retry_after_content_arrived(tmp_path: Path, no_sleep: list[float]) -> None:
    provider = ScriptedProvider(
        list(iter_sse(sse_fixture("overloaded_midstream.sse"))), reply(text("second answer"))
    )
    h = Harness(provider, [], tmp_path)
    result = await h.agent.submit("summarise")
    assert result.failed and len(provider.requests) == 1 and no_sleep == []
    (failed,) = h.of(StreamFailed)
    assert failed.partial_text == "Here is a short summary of the change"
    assert failed.retryable  # overloaded: a retry is offered to the person
    assert h.agent.can_retry
    assert h.messages[-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Here is a short summary of the change"}],
    }
    assert result.usage.input_tokens == 22  # tokens of the failed request still count
    assert result.cost_usd == pytest.approx(cost_usd(MODEL, result.usage)) and result.cost_usd > 0
    h.check()
    await h.agent.submit("try again please")
    assert [m["role"] for m in h.request_messages(1)] == ["user", "assistant", "user"]
    h.check()


async def test_provider_error_after_content_is_not_retried(
    tmp_path: Path, no_sleep: list[float]
) -> None:
    events = reply(text("Some text"), message_stop=False)[:4]
    cut = [*events, ProviderError("Connection reset.", retryable=True, kind="connection")]
    provider = ScriptedProvider(cut, reply(text("ok")))
    h = Harness(provider, [], tmp_path)
    result = await h.agent.submit("go")
    assert result.failed and len(provider.requests) == 1
    assert h.of(StreamFailed)[0].partial_text == "Some text"
    h.check()


async def test_stream_cut_before_message_stop(tmp_path: Path, no_sleep: list[float]) -> None:
    echo = EchoTool()
    cut = reply(
        text("Running it"), tool_use("toolu_1", "Echo", {"text": "x"}), stop_reason="tool_use"
    )
    cut = cut[:-2]  # no message_delta, no message_stop
    provider = ScriptedProvider(cut, reply(text("ok")))
    h = Harness(provider, [echo], tmp_path)
    result = await h.agent.submit("go")
    assert result.failed and len(provider.requests) == 1
    assert echo.calls == []
    (failed,) = h.of(StreamFailed)
    assert "ended before the response was complete" in failed.error
    assert failed.partial_text == "Running it"
    assert h.messages[1]["content"][0] == {"type": "text", "text": "Running it"}
    (res,) = results_of(h.messages[-1])
    assert res["tool_use_id"] == "toolu_1" and res["is_error"]
    h.check()
    await h.agent.submit("again")
    h.check()


async def test_stream_cut_mid_block_keeps_the_text(tmp_path: Path, no_sleep: list[float]) -> None:
    cut = reply(text("Partial answer here"))[:4]  # start, block start, two deltas; no stop
    provider = ScriptedProvider(cut, reply(text("ok")))
    h = Harness(provider, [], tmp_path)
    result = await h.agent.submit("go")
    assert result.failed
    assert h.messages[-1]["content"] == [{"type": "text", "text": "Partial answer here"}]
    h.check()


async def test_stream_cut_before_content_is_retried(tmp_path: Path, no_sleep: list[float]) -> None:
    provider = ScriptedProvider(reply(text("x"))[:1], reply(text("ok")))
    h = Harness(provider, [], tmp_path)
    result = await h.agent.submit("go")
    assert not result.failed and len(provider.requests) == 2
    h.check()


async def test_retry_after_a_failure(tmp_path: Path, no_sleep: list[float]) -> None:
    provider = ScriptedProvider(
        list(iter_sse(sse_fixture("overloaded_midstream.sse"))), reply(text("A full answer."))
    )
    h = Harness(provider, [], tmp_path)
    await h.agent.submit("summarise")
    assert h.agent.can_retry
    result = await h.agent.retry()
    assert not result.failed and result.stop_reason == "end_turn"
    assert not h.agent.can_retry
    assert any(n.text.startswith("Retrying") for n in h.of(Notice))
    assert len(provider.requests) == 2
    assert_valid_conversation(h.request_messages(1))
    h.check()


async def test_retry_after_a_cut_tool_call(tmp_path: Path, no_sleep: list[float]) -> None:
    echo = EchoTool()
    cut = reply(tool_use("toolu_1", "Echo", {"text": "x"}), stop_reason="tool_use")[:-2]
    provider = ScriptedProvider(cut, reply(text("ok")))
    h = Harness(provider, [echo], tmp_path)
    await h.agent.submit("go")
    await h.agent.retry()
    assert echo.calls == []  # never run a tool from a broken response
    sent = h.request_messages(1)
    assert_valid_conversation(sent)
    assert sent[-1]["role"] == "user" and results_of(sent[-1])[0]["is_error"]
    h.check()


async def test_unexpected_provider_exception_becomes_stream_failed(
    tmp_path: Path, no_sleep: list[float]
) -> None:
    provider = ScriptedProvider(
        [*reply(text("abc"))[:3], RuntimeError("provider bug")], reply(text("ok"))
    )
    h = Harness(provider, [], tmp_path)
    result = await h.agent.submit("go")
    assert result.failed
    (failed,) = h.of(StreamFailed)
    assert "provider bug" in failed.error
    h.check()
    await h.agent.submit("again")
    h.check()


async def test_stall_timeout(tmp_path: Path, no_sleep: list[float]) -> None:
    events = reply(text("I am thinking"), message_stop=False)[:3]
    provider = ScriptedProvider(hang_after(events), reply(text("ok")))
    h = Harness(provider, [], tmp_path, stall_timeout=0.2)
    result = await h.agent.submit("go")
    assert result.failed
    (failed,) = h.of(StreamFailed)
    assert "stalled" in failed.error and failed.retryable
    assert failed.partial_text == "I am t"
    assert provider.closed == 1
    h.check()
    await h.agent.submit("again")
    h.check()


async def test_stall_before_any_event(tmp_path: Path, no_sleep: list[float]) -> None:
    provider = ScriptedProvider(hang_after([]))
    h = Harness(provider, [], tmp_path, stall_timeout=0.2)
    result = await h.agent.submit("go")
    assert result.failed and "stalled" in h.of(StreamFailed)[0].error
    assert [m["role"] for m in h.messages] == ["user"]
