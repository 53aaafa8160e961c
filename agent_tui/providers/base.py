"""The provider interface: where a stream of raw Messages API events comes from.

A provider yields each streamed event as the plain dict of its wire JSON (`{"type":
"content_block_delta", ...}`), so the core never touches SDK classes and the offline model needs no
SDK import. Failures are raised as `ProviderError`, already classified for retry decisions.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(slots=True)
class MessageRequest:
    model: str
    messages: list[dict[str, Any]]
    max_tokens: int = 16000
    system: str | list[dict[str, Any]] | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_choice: dict[str, Any] | None = None
    # Sub-requests (WebSearch, WebFetch extraction) say what they are; the offline model uses it.
    purpose: str = "main"

    def body(self) -> dict[str, Any]:
        """The JSON body as sent to `/v1/messages` (without `stream`)."""
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": self.messages,
        }
        if self.system:
            body["system"] = self.system
        if self.tools:
            body["tools"] = self.tools
        if self.tool_choice:
            body["tool_choice"] = self.tool_choice
        return body


class ProviderError(Exception):
    """A request failed. `retryable` is true for overload, rate limit and connection errors."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        status: int | None = None,
        kind: str = "api_error",
        retry_after: float | None = None,
        max_retries: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.status = status
        self.kind = kind
        self.retry_after = retry_after
        #: at most this many retries for this kind of failure (None: the loop's own limit)
        self.max_retries = max_retries


class Provider(Protocol):
    #: "anthropic", "bedrock", "vertex", "foundry" or "offline"
    name: str
    #: what the status line shows, e.g. the model name or "offline model"
    label: str

    def supports_web_search(self, model: str) -> bool: ...

    def stream(self, request: MessageRequest) -> AsyncIterator[dict[str, Any]]:
        """Stream one request's raw events; raise `ProviderError` on failure."""
        ...


class StreamStalled(Exception):
    """No event arrived within the stall timeout."""


async def with_stall_timeout(
    stream: AsyncIterator[dict[str, Any]], timeout: float
) -> AsyncIterator[dict[str, Any]]:
    """Iterate `stream`, raising `StreamStalled` when one event takes longer than `timeout`.

    A stream that is silent for too long is a failure the person should hear about, not a hang.
    """
    iterator = aiter(stream)
    while True:
        try:
            item = await asyncio.wait_for(anext(iterator), timeout)
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise StreamStalled() from None
        yield item
