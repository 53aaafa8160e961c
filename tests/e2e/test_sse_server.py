"""The loopback SSE server helper itself: SSE bodies, error replies, chunked streams, recording."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sse_server import FIXTURES, Response, SSEServer, sse_fixture, use_loopback_api

from agent_tui.protocol.assembler import StreamAssembler
from agent_tui.providers.anthropic import AnthropicProvider
from agent_tui.providers.base import MessageRequest, ProviderError

REQUEST = MessageRequest(model="claude-sonnet-4-5", messages=[{"role": "user", "content": "hi"}])


async def _stream_text(monkeypatch: pytest.MonkeyPatch, server: SSEServer) -> StreamAssembler:
    use_loopback_api(monkeypatch, server.url)
    provider = AnthropicProvider()
    assembler = StreamAssembler()
    try:
        async for event in provider.stream(REQUEST):
            assembler.feed(event)
    finally:
        if provider._client is not None:  # built lazily; close it before the server goes
            with contextlib.suppress(Exception):
                await provider._client.close()
    return assembler


async def test_serves_an_sse_file_and_records_the_request(monkeypatch: pytest.MonkeyPatch) -> None:
    async with SSEServer(lambda n, body: FIXTURES / "text_only.sse") as server:
        assembler = await _stream_text(monkeypatch, server)
    assert assembler.stop_reason == "end_turn" and assembler.content[0]["text"].startswith("A git")
    [request] = server.requests
    assert (request.index, request.method, request.path) == (0, "POST", "/v1/messages")
    # SDK versions differ in which header carries the key.
    auth = request.headers.get("x-api-key", "") + request.headers.get("authorization", "")
    assert "test-key" in auth
    assert request.json == {**REQUEST.body(), "stream": True}


async def test_chunked_async_body(monkeypatch: pytest.MonkeyPatch) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for event in sse_fixture("text_only.sse").split("\n\n"):
            yield (event + "\n\n").encode()

    async with SSEServer(lambda n, body: Response(chunks())) as server:
        assembler = await _stream_text(monkeypatch, server)
    assert assembler.stopped and assembler.stop_reason == "end_turn"


async def test_error_reply_reaches_the_provider_as_provider_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body = b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    async with SSEServer(lambda n, _: (529, {"retry-after": "2"}, body)) as server:
        with pytest.raises(ProviderError) as info:
            await _stream_text(monkeypatch, server)
    assert info.value.retryable and info.value.kind == "overloaded_error"
    assert info.value.retry_after == 2.0


async def test_keep_alive_and_async_responder() -> None:
    async def responder(n: int, body: Any) -> str:
        return f'data: {{"n": {n}}}\n\n'

    async with SSEServer(responder) as server, httpx.AsyncClient() as client:
        for n in range(3):
            reply = await client.post(server.url + "/v1/messages", json={"n": n})
            assert reply.text == f'data: {{"n": {n}}}\n\n'
    assert [r.json for r in server.requests] == [{"n": 0}, {"n": 1}, {"n": 2}]


async def test_a_failing_responder_answers_500_and_fails_the_test() -> None:
    def responder(n: int, body: Any) -> str:
        raise LookupError("no fixture for this request")

    with pytest.raises(LookupError):
        async with SSEServer(responder) as server, httpx.AsyncClient() as client:
            reply = await client.post(server.url + "/v1/messages", json={})
            assert reply.status_code == 500
