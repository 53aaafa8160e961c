"""Test helpers for the agent loop: the Messages API's conversation rules as an assertion, and a
scripted fake provider that records every request (deep-copied, as it was when sent).

`assert_valid_conversation(messages)` checks what the API would reject:
- roles are "user" / "assistant" and the first message is the user's; two messages of the same
  role in a row are allowed (the API joins them into one turn), so rules apply to joined turns;
- content is a string or a non-empty list of typed blocks (only a final assistant message may be
  empty);
- every `tool_use` id is unique and has exactly one `tool_result` in the very next user turn, and
  those results come before any other block of that turn;
- no `tool_result` answers a tool_use that is not in the turn just before;
- unless `trailing_tool_use=True`, the conversation does not end with unanswered tool calls.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from agent_tui.providers.base import MessageRequest

Raw = dict[str, Any]


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    assert isinstance(content, list), f"content must be a str or a list, not {content!r}"
    for block in content:
        assert isinstance(block, dict) and isinstance(block.get("type"), str), block
    return content


def assert_valid_conversation(
    messages: list[dict[str, Any]], *, trailing_tool_use: bool = False
) -> None:
    assert messages, "a request needs at least one message"
    assert messages[0]["role"] == "user", "the first message must be the user's"
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    for i, message in enumerate(messages):
        role = message.get("role")
        assert role in ("user", "assistant"), f"message {i}: bad role {role!r}"
        blocks = _blocks(message.get("content"))
        last = i == len(messages) - 1
        if not blocks:
            assert last and role == "assistant", f"message {i} ({role}) has no content"
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, list(blocks)))

    seen_ids: set[str] = set()
    for t, (role, blocks) in enumerate(turns):
        if role == "assistant":
            for block in blocks:
                assert block["type"] != "tool_result", f"turn {t}: tool_result from assistant"
            ids = [b.get("id") for b in blocks if b["type"] == "tool_use"]
            for tool_id in ids:
                assert isinstance(tool_id, str) and tool_id, f"turn {t}: tool_use without id"
                assert tool_id not in seen_ids, f"turn {t}: duplicate tool_use id {tool_id}"
                seen_ids.add(tool_id)
            if not ids:
                continue
            if t + 1 == len(turns):
                assert trailing_tool_use, f"turn {t}: tool_use {ids} never answered"
                continue
            answers = turns[t + 1][1]
            result_ids = [b.get("tool_use_id") for b in answers if b["type"] == "tool_result"]
            assert sorted(result_ids, key=str) == sorted(ids), (
                f"turn {t + 1}: tool_results {result_ids} do not answer tool_uses {ids}"
            )
            leading = answers[: len(result_ids)]
            assert all(b["type"] == "tool_result" for b in leading), (
                f"turn {t + 1}: tool_result blocks must come first"
            )
        else:
            previous = turns[t - 1][1] if t > 0 else []
            asked = {b.get("id") for b in previous if b["type"] == "tool_use"}
            for block in blocks:
                if block["type"] == "tool_result":
                    assert block.get("tool_use_id") in asked, (
                        f"turn {t}: tool_result for unknown tool_use {block.get('tool_use_id')}"
                    )


def results_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of a user message."""
    return [b for b in _blocks(message["content"]) if b["type"] == "tool_result"]


# --- a scripted provider --------------------------------------------------------------------------

#: one response: a list of wire events (an exception in it is raised at that point), or a function
#: of the request returning an async iterator of wire events
Step = list[Any] | Callable[[MessageRequest], AsyncIterator[Raw]]


def reply(
    *blocks: dict[str, Any],
    stop_reason: str | None = "end_turn",
    usage: dict[str, Any] | None = None,
    msg_id: str = "msg_test",
    message_stop: bool = True,
) -> list[Raw]:
    """The wire events of a response whose content is `blocks` (their API form). Text arrives in
    two deltas, tool input as JSON in small pieces; a tool block with a `raw_json` key streams that
    text verbatim instead (for invalid JSON); any other block arrives whole in its start event."""
    events: list[Raw] = [
        {
            "type": "message_start",
            "message": {
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "model": "claude-test",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        }
    ]
    for index, block in enumerate(blocks):
        kind = block["type"]
        if kind == "text":
            text = block["text"]
            half = len(text) // 2
            events.append(
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                }
            )
            for piece in (text[:half], text[half:]):
                events.append(
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "text_delta", "text": piece},
                    }
                )
        elif kind in ("tool_use", "server_tool_use"):
            head = {k: block[k] for k in ("type", "id", "name")}
            raw = block["raw_json"] if "raw_json" in block else json.dumps(block["input"])
            events.append(
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {**head, "input": {}},
                }
            )
            for i in range(0, len(raw), 4):
                events.append(
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": raw[i : i + 4]},
                    }
                )
        else:
            events.append({"type": "content_block_start", "index": index, "content_block": block})
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": usage if usage is not None else {"output_tokens": 5},
        }
    )
    if message_stop:
        events.append({"type": "message_stop"})
    return events


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(tool_id: str, name: str, input: dict[str, Any] | None = None, **extra: Any) -> Raw:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": input or {}, **extra}


class ScriptedProvider:
    """Answers request n with step n; records each request deep-copied. When the script runs out
    it answers with a plain end_turn text, so a test sees the extra request instead of a hang."""

    name = "scripted"
    label = "scripted model"

    def __init__(self, *steps: Step) -> None:
        self.steps: list[Step] = list(steps)
        self.requests: list[MessageRequest] = []
        self.closed = 0

    def supports_web_search(self, model: str) -> bool:
        return False

    async def stream(self, request: MessageRequest) -> AsyncIterator[Raw]:
        self.requests.append(copy.deepcopy(request))
        step: Step = self.steps.pop(0) if self.steps else reply(text("(script ended)"))
        try:
            if callable(step):
                async for event in step(request):
                    yield event
                return
            for item in step:
                await asyncio.sleep(0)
                if isinstance(item, BaseException):
                    raise item
                yield copy.deepcopy(item)
        finally:
            self.closed += 1


def hang_after(events: list[Raw], forever: asyncio.Event | None = None) -> Step:
    """A step that sends `events`, then waits until `forever` is set (or forever)."""

    async def step(request: MessageRequest) -> AsyncIterator[Raw]:
        for event in events:
            await asyncio.sleep(0)
            yield copy.deepcopy(event)
        await (forever or asyncio.Event()).wait()

    return step
