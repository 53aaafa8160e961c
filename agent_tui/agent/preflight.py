"""What a request may cost at most, before it is sent, and the `max_tokens` a budget can pay for.

**Input.** Every request is first bounded without a round trip: its JSON body's UTF-8 bytes (a
token is at least one byte: the tokenizer works on bytes), plus a fixed allowance for what the API
adds (the tool-use system prompt, role markers), plus a per-item bound for images and PDF pages,
whose base64 bytes say little about their tokens. The bound is 2-4 times the real count, so while a
request at that bound and its full `max_tokens` fits the budget, it is sent as it is: nothing can
cross the cap, and nothing waits. Only near the cap is the input counted exactly, with the API's
token counting (free, one round trip); a server that can't count (Bedrock, Vertex, other servers
behind a base URL, the offline model) keeps the bound, which stops a little early rather than late.

**Output.** The rest of the budget buys output at the model's output price: `max_tokens` is
lowered to what it can pay for. A request that can't pay for its input and a useful answer
(`MIN_ANSWER` tokens; with thinking, 1,024 thinking tokens more; a compaction summary, all of its
`max_tokens`) is not sent.

**Server-side web search** (the WebSearch tool's sub-request) adds work the server decides: each
search adds its results to the input of the next round. Each search is planned at its fee plus
`SEARCH_RESULT_TOKENS` of input for every round after it, and `max_uses` is lowered to what the
budget pays for; the result sizes are the server's, so this one is an allowance, not a bound.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from agent_tui.agent.cost import Price, price_for, search_price
from agent_tui.providers.base import MessageRequest

#: the fewest output tokens worth paying for: a paragraph, or a couple of tool calls
MIN_ANSWER = 512
#: the API's smallest thinking budget
MIN_THINKING = 1024
#: what the API adds to a request's own bytes (tool-use system prompt, role and turn markers)
OVERHEAD_TOKENS = 1000
#: an image, or a page of a PDF, at most (Claude scales images down to about 1,600 tokens)
MEDIA_TOKENS = 6000
#: the input one server-side web search adds to each later round of its request
SEARCH_RESULT_TOKENS = 10_000
#: an exact count may still be off by a little (the docs call it an estimate)
COUNT_MARGIN = 1.02

#: request -> its exact input tokens, or None when they can't be counted
Counter = Callable[[MessageRequest], Awaitable[int | None]]


@dataclass(frozen=True, slots=True)
class Plan:
    """What `plan` makes of a request before it is sent: what to send, the most it may cost, and
    whether that fits the budget."""

    #: what to send (the request itself, or a copy with a smaller max_tokens / max_uses)
    request: MessageRequest
    #: the most this request can cost, in dollars (0 when it doesn't fit)
    reserve: float
    #: the least a useful request would cost (what the person is told when it doesn't fit)
    needed: float
    fits: bool
    #: max_tokens as lowered for the budget (None: as asked)
    cut_to: int | None = None


def input_bound(request: MessageRequest) -> int:
    """An upper bound of the request's input tokens, computed locally."""
    media = 0

    def strip(value: Any) -> Any:
        nonlocal media
        if isinstance(value, dict):
            if value.get("type") in ("base64", "url") and value.get("data", value.get("url")):
                media += _media_tokens(value)
                return {k: v for k, v in value.items() if k not in ("data", "url")}
            return {k: strip(v) for k, v in value.items()}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    body = strip(request.body())
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    return len(text.encode("utf-8")) + OVERHEAD_TOKENS + media


def _media_tokens(source: dict[str, Any]) -> int:
    if source.get("media_type") != "application/pdf" or source.get("type") != "base64":
        return MEDIA_TOKENS
    try:
        data = base64.b64decode(str(source.get("data", "")), validate=False)
    except (binascii.Error, ValueError):
        return MEDIA_TOKENS
    pages = data.count(b"/Type /Page") + data.count(b"/Type/Page")
    pages -= data.count(b"/Type /Pages") + data.count(b"/Type/Pages")
    return MEDIA_TOKENS * max(1, pages)


def search_uses(request: MessageRequest) -> int:
    """`max_uses` of the request's server-side web search tool (0: it has none)."""
    for tool in request.tools:
        if str(tool.get("type", "")).startswith("web_search_"):
            return int(tool.get("max_uses") or 10)
    return 0


class _Rates:
    def __init__(self, price: Price) -> None:
        # Input is paid at the dearest of its rates: a cache write costs more than plain input.
        self.input = max(price.input, price.cache_write, price.cache_read) / 1_000_000
        self.output = price.output / 1_000_000
        per_1000 = price.web_search_per_1000
        self.search = search_price() if per_1000 is None else per_1000 / 1000

    def input_cost(self, tokens: int, searches: int) -> float:
        # rounds = searches + 1, each reading the input and the results of the searches before it
        rounds = (searches + 1) * tokens + SEARCH_RESULT_TOKENS * searches * (searches + 1) // 2
        return rounds * self.input + searches * self.search


def floor_tokens(request: MessageRequest) -> int:
    """The least output that makes this request worth sending."""
    if request.purpose == "compaction":
        return request.max_tokens  # half a summary would replace the history with half of it
    least = MIN_ANSWER + (MIN_THINKING if request.thinking else 0)
    return min(least, request.max_tokens)


async def plan(request: MessageRequest, left: float, count: Counter) -> Plan:
    """How `request` can be sent with `left` dollars, or why it can't."""
    rates = _Rates(price_for(request.model).dearest)  # a long prompt's tier, if it has one
    searches = search_uses(request)
    bound = input_bound(request)
    full = rates.input_cost(bound, searches) + request.max_tokens * rates.output
    if full <= left:
        return Plan(request, full, full, True)
    counted = await count(request)
    tokens = bound if counted is None else math.ceil(counted * COUNT_MARGIN) + 16
    least = floor_tokens(request)
    for uses in range(searches, 0, -1) if searches else (0,):
        input_cost = rates.input_cost(tokens, uses)
        room = math.floor((left - input_cost) / rates.output) if left > input_cost else 0
        if room >= least:
            max_tokens = min(request.max_tokens, room)
            reserve = input_cost + max_tokens * rates.output
            sent = _fitted(request, max_tokens, uses)
            cut = max_tokens if max_tokens < request.max_tokens else None
            return Plan(sent, reserve, reserve, True, cut)
    needed = rates.input_cost(tokens, min(searches, 1)) + least * rates.output
    return Plan(request, 0.0, needed, False)


def _fitted(request: MessageRequest, max_tokens: int, uses: int) -> MessageRequest:
    if max_tokens == request.max_tokens and uses == search_uses(request):
        return request
    thinking = request.thinking
    if thinking and int(thinking.get("budget_tokens", 0)) > max_tokens - MIN_ANSWER:
        # thinking must leave room for the answer, and the API wants at least 1,024 of it
        thinking = {**thinking, "budget_tokens": max(MIN_THINKING, max_tokens - MIN_ANSWER)}
    tools = [
        {**tool, "max_uses": uses} if str(tool.get("type", "")).startswith("web_search_") else tool
        for tool in request.tools
    ]
    return dataclasses.replace(request, max_tokens=max_tokens, thinking=thinking, tools=tools)
