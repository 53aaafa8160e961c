"""One request, streamed and drained: the one place a provider's stream is read.

The agent's turn, compaction's summary, WebSearch's sub-request and WebFetch's extraction each
send a request and read its stream. `drain` is how, for all four: every raw event goes through a
`StreamAssembler` (its typed events to `on_event`), a stream silent for `stall_timeout` seconds
raises `StreamStalled`, and however the reading ends (finished, failed, stalled, cancelled) the
provider's stream is closed (an HTTP stream left open holds its connection until it is collected)
and what the request used is handed to `count` (tokens spent on a failed request cost money).

Errors are the caller's to classify: `ProviderError` from the provider, `StreamError` from an
`error` event, `StreamStalled`, `CancelledError`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

from agent_tui.protocol.assembler import StreamAssembler
from agent_tui.protocol.events import Event, Usage
from agent_tui.providers.base import MessageRequest, Provider, with_stall_timeout


async def drain(
    provider: Provider,
    request: MessageRequest,
    *,
    count: Callable[[Usage], object],
    stall_timeout: float,
    assembler: StreamAssembler | None = None,
    on_event: Callable[[Event], object] | None = None,
) -> StreamAssembler:
    """Stream `request` to its end through `assembler` (a new one if None) and return it."""
    assembler = StreamAssembler() if assembler is None else assembler
    stream = provider.stream(request)
    timed = with_stall_timeout(stream, stall_timeout)
    try:
        async for raw in timed:
            events = assembler.feed(raw)
            if on_event is not None:
                for event in events:
                    on_event(event)
    finally:
        count(assembler.usage)
        await _close(timed)
        await _close(stream)
    return assembler


async def _close(stream: AsyncIterator[dict[str, Any]]) -> None:
    """Close an async generator (a no-op once it has finished); a failure to close is no news."""
    if isinstance(stream, AsyncGenerator):
        with contextlib.suppress(Exception):
            await stream.aclose()
