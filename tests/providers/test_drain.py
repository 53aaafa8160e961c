"""`providers.drain`: the one way a request's stream is read — through the assembler, closed
however it ends, its usage counted however it ends."""

from __future__ import annotations

import asyncio

import pytest
from conversation_rules import ScriptedProvider, hang_after, reply, text

from agent_tui.protocol.assembler import StreamError
from agent_tui.protocol.events import Event, TextDelta, Usage
from agent_tui.providers.base import MessageRequest, ProviderError, StreamStalled
from agent_tui.providers.drain import drain

REQUEST = MessageRequest(model="m", messages=[{"role": "user", "content": "hi"}])
STARTED = reply(text("partial"))[:3]  # message_start (10 in, 1 out), a block and its first piece


async def test_a_finished_stream_is_assembled_counted_and_closed() -> None:
    provider = ScriptedProvider(reply(text("hello"), usage={"output_tokens": 7}))
    counted: list[Usage] = []
    seen: list[Event] = []
    assembler = await drain(
        provider, REQUEST, count=counted.append, stall_timeout=5, on_event=seen.append
    )
    assert assembler.stopped and assembler.partial_text() == "hello"
    assert counted == [Usage(input_tokens=10, output_tokens=7)]
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "hello"
    assert provider.closed == 1


@pytest.mark.parametrize(
    "failure",
    [ProviderError("connection reset", retryable=True), RuntimeError("a provider bug")],
)
async def test_a_failing_stream_is_counted_and_closed(failure: Exception) -> None:
    provider = ScriptedProvider([*STARTED, failure])
    counted: list[Usage] = []
    with pytest.raises(type(failure)):
        await drain(provider, REQUEST, count=counted.append, stall_timeout=5)
    assert counted == [Usage(input_tokens=10, output_tokens=1)]  # billed all the same
    assert provider.closed == 1


async def test_an_error_event_raises_stream_error_counted_and_closed() -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
    provider = ScriptedProvider([*STARTED, error])
    counted: list[Usage] = []
    with pytest.raises(StreamError, match="busy"):
        await drain(provider, REQUEST, count=counted.append, stall_timeout=5)
    assert counted == [Usage(input_tokens=10, output_tokens=1)]
    assert provider.closed == 1


async def test_a_stalled_stream_raises_and_is_closed() -> None:
    provider = ScriptedProvider(hang_after(STARTED))
    counted: list[Usage] = []
    with pytest.raises(StreamStalled):
        await drain(provider, REQUEST, count=counted.append, stall_timeout=0.05)
    assert counted == [Usage(input_tokens=10, output_tokens=1)]
    assert provider.closed == 1


async def test_a_cancelled_stream_is_counted_and_closed() -> None:
    provider = ScriptedProvider(hang_after(STARTED))
    counted: list[Usage] = []
    seen: list[Event] = []
    task = asyncio.create_task(
        drain(provider, REQUEST, count=counted.append, stall_timeout=60, on_event=seen.append)
    )
    while not any(isinstance(e, TextDelta) for e in seen):  # the started events have arrived
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert counted == [Usage(input_tokens=10, output_tokens=1)]
    assert provider.closed == 1
