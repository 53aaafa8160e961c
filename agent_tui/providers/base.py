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
    """One Messages API request, as the agent builds it; `body()` is the JSON sent."""

    model: str
    messages: list[dict[str, Any]]
    max_tokens: int = 16000
    system: str | list[dict[str, Any]] | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_choice: dict[str, Any] | None = None
    # Sub-requests (WebSearch, WebFetch extraction) say what they are; the offline model uses it.
    purpose: str = "main"
    #: mark the prompt's stable prefix for caching (`cache_control` breakpoints, see `body`)
    cache: bool = True
    #: thinking: extended (`{"type": "enabled", "budget_tokens": N}`) or adaptive
    #: (`{"type": "adaptive"}`); None: off (or the model's default)
    thinking: dict[str, Any] | None = None
    #: `output_config` (the model's `effort`), None: the model's defaults
    output_config: dict[str, Any] | None = None
    #: server-side context management (the `compact_20260112` edit), None: off
    context_management: dict[str, Any] | None = None
    #: beta features the request needs (sent as the `anthropic-beta` header, not in the body)
    betas: tuple[str, ...] = ()
    #: set when it was sent: the smaller max_tokens the spending cap could pay for (None: as
    #: asked), so an answer cut there can say so (`agent.capped_provider`)
    budget_cut: int | None = None

    def body(self) -> dict[str, Any]:
        """The JSON body as sent to `/v1/messages` (without `stream`).

        With `cache`, up to three prompt-caching breakpoints (the API allows four): after the
        tools, after the system prompt, and on the newest message's last block, so each request
        reads everything before it from the cache and writes only what is new. The conversation
        itself is never changed: the newest message is copied to carry the marker.
        """
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
        if self.thinking:
            body["thinking"] = self.thinking
        if self.output_config:
            body["output_config"] = self.output_config
        if self.context_management:
            body["context_management"] = self.context_management
        if self.cache:
            _add_breakpoints(body)
        return body


EPHEMERAL = {"type": "ephemeral"}


def _add_breakpoints(body: dict[str, Any]) -> None:
    tools = body.get("tools")
    if tools:
        body["tools"] = [*tools[:-1], {**tools[-1], "cache_control": EPHEMERAL}]
    system = body.get("system")
    if isinstance(system, str) and system:
        body["system"] = [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
    elif isinstance(system, list) and system:
        body["system"] = [*system[:-1], {**system[-1], "cache_control": EPHEMERAL}]
    messages = body.get("messages")
    if messages:
        # Every message goes out in block form, so a message renders the same bytes whether or
        # not it is the newest one (the one carrying the marker).
        messages = [_as_blocks(m) for m in messages]
        last = messages[-1]
        content = last.get("content")
        if isinstance(content, list) and content and isinstance(content[-1], dict):
            marked = {**content[-1], "cache_control": EPHEMERAL}
            if marked.get("type") not in ("thinking", "redacted_thinking"):
                messages[-1] = {**last, "content": [*content[:-1], marked]}
        body["messages"] = messages


def _as_blocks(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    if isinstance(content, str):
        return {**message, "content": [{"type": "text", "text": content}]}
    return message


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


def web_search_available(provider: Provider | None, model: str) -> bool:
    """Whether WebSearch may be offered: the provider must run server-side search for `model`
    (first-party and Foundry yes, Vertex only for Claude 4-family models, Bedrock no; the offline
    model yes, its script streams searches)."""
    if provider is None:
        return False
    supports = getattr(provider, "supports_web_search", None)
    return bool(supports(model)) if callable(supports) else False
