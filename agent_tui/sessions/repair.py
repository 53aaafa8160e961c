"""Turn a recorded conversation that may have been cut off into one the API accepts.

A process killed mid-turn leaves the stored messages in one of a few shapes: an assistant message
whose `tool_use` blocks never got results, a user message holding only some of the results, a
message begun but with no blocks yet, or a `server_tool_use` whose result never arrived. A resumed
session can also carry such a shape in the middle (the crash, then a new prompt after it).

`repair_messages` fixes exactly those and leaves a valid conversation unchanged (the same JSON), so
resuming a cleanly finished session sends what was sent before. The API treats consecutive messages
of the same role as one turn, so the rules are checked per run of same-role messages:

- every `tool_use` id has exactly one `tool_result`, at the start of the next message, which is a
  user message (missing ones are added as is_error "interrupted" results, in a new user message
  if need be);
- no `tool_result` answers a `tool_use` that is not in the assistant run just before it;
- every `server_tool_use` has its result block in the same assistant run;
- no message is empty.
"""

from __future__ import annotations

from typing import Any

INTERRUPTED = "interrupted: the session ended before this tool finished"

Message = dict[str, Any]
Block = dict[str, Any]


def interrupted_result(tool_use_id: str) -> Block:
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": INTERRUPTED,
        "is_error": True,
    }


def _blocks(message: Message) -> list[Block]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def _is_empty(message: Message) -> bool:
    content = message.get("content")
    if isinstance(content, str):
        return not content.strip()
    return not content


def _runs(messages: list[Message]) -> list[list[Message]]:
    runs: list[list[Message]] = []
    for message in messages:
        if runs and runs[-1][0].get("role") == message.get("role"):
            runs[-1].append(message)
        else:
            runs.append([message])
    return runs


def _drop_unanswered_server_calls(run: list[Message]) -> list[Message]:
    answered = {
        b.get("tool_use_id")
        for m in run
        for b in _blocks(m)
        if "tool_use_id" in b and b.get("type") != "tool_result"
    }
    out: list[Message] = []
    for message in run:
        blocks = _blocks(message)
        kept = [b for b in blocks if b.get("type") != "server_tool_use" or b.get("id") in answered]
        if len(kept) != len(blocks):
            message = {**message, "content": kept}
        if not _is_empty(message):
            out.append(message)
    return out


def _split_after_tool_use(runs: list[list[Message]]) -> list[list[Message]]:
    """End an assistant run at each message with a `tool_use`: its results must come next."""
    out: list[list[Message]] = []
    for run in runs:
        if run[0].get("role") != "assistant":
            out.append(run)
            continue
        current: list[Message] = []
        for message in run:
            current.append(message)
            if _tool_use_ids([message]):
                out.append(current)
                current = []
        if current:
            out.append(current)
    return out


def _tool_use_ids(run: list[Message]) -> list[str]:
    ids = [b["id"] for m in run for b in _blocks(m) if b.get("type") == "tool_use" and "id" in b]
    return list(dict.fromkeys(ids))  # a repeated id (never sent by the API) is answered once


def _run_is_valid(run: list[Message], expected: list[str]) -> bool:
    """Whether a user run already answers exactly `expected`, results first in its first message."""
    first = _blocks(run[0]) if expected else []
    if expected and not isinstance(run[0].get("content"), list):
        return False
    lead = 0
    while lead < len(first) and first[lead].get("type") == "tool_result":
        lead += 1
    ids = [b.get("tool_use_id") for b in first[:lead]]
    if sorted(ids, key=str) != sorted(expected, key=str):
        return False
    later = [b for m in run for b in _blocks(m) if b.get("type") == "tool_result"]
    return len(later) == lead


def _fix_user_run(run: list[Message], expected: list[str]) -> list[Message]:
    wanted = set(expected)
    found: dict[str, Block] = {}
    rest: list[list[Block] | str] = []
    for message in run:
        content = message.get("content")
        if isinstance(content, str):
            rest.append(content)
            continue
        others: list[Block] = []
        for block in _blocks(message):
            if block.get("type") == "tool_result":
                tid = block.get("tool_use_id")
                if tid in wanted and tid not in found:
                    found[tid] = block
                continue  # an orphan or a duplicate: the API would reject it
            others.append(block)
        rest.append(others)
    # Keep recorded results in their recorded order, then the missing ones in tool_use order.
    results = list(found.values()) + [interrupted_result(t) for t in expected if t not in found]
    out: list[Message] = []
    for i, (message, content) in enumerate(zip(run, rest, strict=True)):
        if i == 0 and results:
            head = [{"type": "text", "text": content}] if isinstance(content, str) else content
            content = results + head
        if isinstance(content, str) and content is message.get("content"):
            fixed = message
        else:
            fixed = {**message, "content": content}
        if not _is_empty(fixed):
            out.append(fixed)
    return out


def repair_messages(messages: list[Message]) -> list[Message]:
    """A conversation the API accepts; a valid one is returned unchanged (equal JSON)."""
    cleaned = [m for m in messages if not _is_empty(m)]
    # A server call's result must be in the same stretch of assistant content: the results of a
    # client tool_use in between would otherwise separate them.
    runs = _split_after_tool_use(_runs(cleaned))
    runs = [
        _drop_unanswered_server_calls(r) if r[0].get("role") == "assistant" else r for r in runs
    ]
    runs = _runs([m for r in runs for m in r])  # dropping may have emptied and joined runs

    out: list[Message] = []
    expected: list[str] = []
    for run in _split_after_tool_use(runs):
        if run[0].get("role") == "assistant":
            if expected:  # an assistant run right after one with unanswered tool_use
                out.append({"role": "user", "content": [interrupted_result(t) for t in expected]})
            out.extend(run)
            expected = _tool_use_ids(run)
            continue
        if _run_is_valid(run, expected):
            out.extend(run)
        else:
            out.extend(_fix_user_run(run, expected))
        expected = []
    if expected:
        out.append({"role": "user", "content": [interrupted_result(t) for t in expected]})
    return out


def conversation_problems(messages: list[Message]) -> list[str]:
    """What the API would reject in `messages` (empty when valid); used by tests and `show`."""
    problems: list[str] = []
    for i, message in enumerate(messages):
        if message.get("role") not in ("user", "assistant"):
            problems.append(f"message {i}: bad role {message.get('role')!r}")
        if _is_empty(message):
            problems.append(f"message {i}: empty")
    for run in _split_after_tool_use(_runs(messages)):
        if run[0].get("role") != "assistant":
            continue
        answered = {
            b.get("tool_use_id")
            for m in run
            for b in _blocks(m)
            if "tool_use_id" in b and b.get("type") != "tool_result"
        }
        for m in run:
            for b in _blocks(m):
                if b.get("type") == "server_tool_use" and b.get("id") not in answered:
                    problems.append(f"server_tool_use {b.get('id')} has no result")
                if b.get("type") == "tool_result":
                    problems.append("tool_result inside an assistant message")
    expected: list[str] = []
    for run in _split_after_tool_use(_runs(messages)):
        if run[0].get("role") == "assistant":
            if expected:
                problems.append(f"tool_use {expected} not answered before the next assistant turn")
            expected = _tool_use_ids(run)
            continue
        if not _run_is_valid(run, expected):
            problems.append(f"user turn does not answer exactly {expected} first")
        expected = []
    if expected:
        problems.append(f"tool_use {expected} never answered")
    return problems
