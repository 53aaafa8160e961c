"""An honest model server for spending-cap tests: it counts a request's input tokens one way (a
token per four bytes of its messages, system and tools), reports that count in its usage and from
the token counting endpoint alike, and answers with one token per word, stopping at the request's
`max_tokens` (stop_reason "max_tokens") as the API does. The cost it reports is the truth the tests
hold the agent to."""

from __future__ import annotations

import json
from typing import Any

from agent_tui.agent.cost import cost_usd
from agent_tui.protocol.events import Usage

#: what a tool call's block costs in output tokens
TOOL_TOKENS = 20


def output_tokens(body: dict[str, Any], words: int, tool: dict[str, Any] | None = None) -> int:
    limit = int(body.get("max_tokens", 4096))
    wanted = words + (TOOL_TOKENS if tool else 0)
    return min(wanted, limit)


def input_tokens(body: dict[str, Any]) -> int:
    counted = {k: body.get(k) for k in ("system", "messages", "tools", "tool_choice", "thinking")}
    return len(json.dumps(counted, separators=(",", ":")).encode()) // 4 + 10


def events(
    body: dict[str, Any], words: int, tool: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The wire events of an answer of `words` words (then `tool`, if given and room is left)."""
    limit = int(body.get("max_tokens", 4096))
    wanted = words + (TOOL_TOKENS if tool else 0)
    said = min(words, limit)
    stop = "max_tokens" if wanted > limit else ("tool_use" if tool else "end_turn")
    usage = {"input_tokens": input_tokens(body), "output_tokens": 1}
    out: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "msg_m", "type": "message", "role": "assistant",
         "model": body.get("model", "m"), "content": [], "stop_reason": None,
         "stop_sequence": None, "usage": usage}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]  # fmt: skip
    for _ in range(0, said, 100):
        chunk = "word " * min(100, said - _)
        out.append(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": chunk},
            }
        )
    out.append({"type": "content_block_stop", "index": 0})
    if tool and stop == "tool_use":
        out.append(
            {"type": "content_block_start", "index": 1, "content_block": {**tool, "input": {}}}
        )
        raw = json.dumps(tool.get("input", {}))
        delta = {"type": "input_json_delta", "partial_json": raw}
        out.append({"type": "content_block_delta", "index": 1, "delta": delta})
        out.append({"type": "content_block_stop", "index": 1})
    out.append({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens(body, words, tool)}})  # fmt: skip
    out.append({"type": "message_stop"})
    return out


def sse(body: dict[str, Any], words: int, tool: dict[str, Any] | None = None) -> str:
    return "".join(
        f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events(body, words, tool)
    )


def cost_of(body: dict[str, Any], words: int, tool: dict[str, Any] | None = None) -> float:
    """What the server charges for answering `body` (all input at the plain input price)."""
    said = output_tokens(body, words, tool)
    usage = Usage(input_tokens=input_tokens(body), output_tokens=said)
    return cost_usd(str(body.get("model", "")), usage)
