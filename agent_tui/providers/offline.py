"""The built-in offline model: replays scripted turns as the same wire events the API streams.

Everything above the provider (assembler, loop, tools, permissions, UI, store) runs unchanged, so
the offline model is both the first thing a new user sees and what the tests drive. Scripts live in
`agent_tui/assets/offline/` (inside the package so a wheel install has them).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import AsyncIterator
from functools import cache
from itertools import count
from typing import Any

from agent_tui.paths import offline_assets
from agent_tui.protocol.content import carries_tool_results, text_of
from agent_tui.providers.base import MessageRequest

OFFLINE_MODEL = "offline"
_TOKEN = re.compile(r"\S+\s*|\s+")
_SEARCH_PREFIX = re.compile(
    r"^\s*(please\s+)?(search|look up|find)(\s+the\s+web|\s+online|\s+the\s+internet)?"
    r"(\s+for|\s+about)?\s+",
    re.I,
)
_ids = count(1)


@cache
def _script() -> dict[str, Any]:
    script: dict[str, Any] = json.loads((offline_assets() / "script.json").read_text("utf-8"))
    return script


@cache
def _search_index() -> list[dict[str, Any]]:
    path = offline_assets() / "search_index.json"
    index: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return index


def _delay_scale() -> float:
    try:
        return float(os.environ.get("AGENT_TUI_OFFLINE_DELAY", "1"))
    except ValueError:
        return 1.0


class OfflineProvider:
    name = "offline"
    label = "offline model"

    def __init__(self, delay_scale: float | None = None) -> None:
        #: 1.0 streams at a readable pace; 0 streams as fast as possible (tests, benchmarks)
        self.delay_scale = _delay_scale() if delay_scale is None else delay_scale

    def supports_web_search(self, model: str) -> bool:
        return True  # the script provides search streams

    async def stream(self, request: MessageRequest) -> AsyncIterator[dict[str, Any]]:
        if request.purpose == "web_search":
            events = _search_events(request)
        elif request.purpose == "extract":
            events = _message_events([{"text": _extract(request)}], request)
        elif request.purpose == "compaction":
            events = _message_events([{"text": _summary(request.messages[:-1])}], request)
        else:
            events = _message_events(_choose_step(request.messages), request)
        loop = asyncio.get_running_loop()
        due = loop.time()
        for event, pause in events:
            if pause and self.delay_scale:
                # Paced against a clock, not sleep after sleep: a busy event loop wakes sleepers
                # late, and that lateness must not add up into a slower stream.
                due = max(due + pause * self.delay_scale, loop.time() - 0.5)
                await asyncio.sleep(max(0.0, due - loop.time()))
            else:
                await asyncio.sleep(0)  # stay cooperative even at full speed
            yield event


def _summary(messages: list[dict[str, Any]]) -> str:
    """What the offline model says when asked to summarise: each earlier prompt, with the first
    line of its answer (built from the conversation, the way a model would)."""
    lines = []
    for message in messages:
        said = text_of(message["content"]).strip()
        if not said:
            continue
        first = said.splitlines()[0][:160]
        lines.append(f"- {'The user asked' if message['role'] == 'user' else 'Answered'}: {first}")
    return "Summary of the earlier conversation:\n" + "\n".join(lines or ["- (nothing yet)"])


# --- choosing what to say ------------------------------------------------------------------------


def _choose_step(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    prompt_at = max(
        (i for i, m in enumerate(messages) if m["role"] == "user" and text_of(m["content"])),
        default=0,
    )
    prompt = _prompt_of(messages[prompt_at]["content"]) if messages else ""
    step = sum(1 for m in messages[prompt_at + 1 :] if carries_tool_results(m))
    scenario = _scenario_for(prompt)
    steps = scenario["steps"]
    blocks = steps[min(step, len(steps) - 1)]
    if step and "after_error" in scenario and _last_result_failed(messages):
        blocks = scenario["after_error"]
    values = {
        "prompt": prompt,
        "query": _query_from(prompt),
        "tool_result": _last_tool_result(messages),
        "links": _links_markdown(_last_tool_result(messages, limit=None)),
    }
    return [_fill(block, values) for block in blocks]


def _prompt_of(content: Any) -> str:
    """What the person typed: the message's first text block (a `!command`'s output or a
    `#note` rides in the blocks after it), without what was piped in (`-p` puts stdin after
    the prompt in `<stdin>`): their words, not a file's or a command's, choose the scenario."""
    if isinstance(content, list):
        texts = [b for b in content if isinstance(b, dict) and b.get("type") == "text"]
        text = str(texts[0].get("text", "")) if texts else ""
    else:
        text = text_of(content)
    return _PIPED.sub("", text).strip()


#: what `piped_input.join` adds after the prompt
_PIPED = re.compile(r"\n*<stdin>\n.*?\n</stdin>", re.S)


@cache
def _matcher(words: tuple[str, ...]) -> re.Pattern[str]:
    """One pass over the prompt for all of a scenario's words (not one a word: a 4 MB prompt)."""
    return re.compile(rf"\b(?:{'|'.join(map(re.escape, words))})\b", re.IGNORECASE)


def _scenario_for(prompt: str) -> dict[str, Any]:
    script = _script()
    scenarios: list[dict[str, Any]] = script["scenarios"]
    for scenario in scenarios:
        if scenario["match"] and _matcher(tuple(scenario["match"])).search(prompt):
            return scenario
    return next(s for s in scenarios if s["name"] == script["default"])


def _query_from(prompt: str) -> str:
    query = _SEARCH_PREFIX.sub("", prompt.strip().splitlines()[0] if prompt.strip() else "")
    return query.strip(" ?.!") or "textual markdown streaming"


def _last_tool_result(messages: list[dict[str, Any]], limit: int | None = 1500) -> str:
    for message in reversed(messages):
        if carries_tool_results(message):
            parts = []
            for block in message["content"]:
                if block.get("type") != "tool_result":
                    continue
                content = block.get("content", "")
                parts.append(content if isinstance(content, str) else text_of(content))
            text = "\n".join(parts).strip()
            if limit is not None and len(text) > limit:
                text = text[:limit] + "\n…"
            return text
    return ""


def _last_result_failed(messages: list[dict[str, Any]]) -> bool:
    for message in reversed(messages):
        if carries_tool_results(message):
            return any(
                b.get("is_error") for b in message["content"] if b.get("type") == "tool_result"
            )
    return False


def _links_markdown(tool_result: str) -> str:
    match = re.search(r"^Links: (\[.*\])$", tool_result, re.M)
    if not match:
        return "_No links came back._"
    try:
        links = json.loads(match.group(1))
    except ValueError:
        return "_The links could not be read._"
    return "\n".join(f"- [{link['title']}]({link['url']})" for link in links) or "_No results._"


def _fill(value: Any, values: dict[str, str]) -> Any:
    if isinstance(value, str):
        return re.sub(r"\{\{(\w+)\}\}", lambda m: values.get(m.group(1), m.group(0)), value)
    if isinstance(value, dict):
        return {k: _fill(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, values) for v in value]
    return value


# --- producing wire events -----------------------------------------------------------------------

Paced = tuple[dict[str, Any], float]


def _chunks(text: str, words: int = 3) -> list[str]:
    tokens = _TOKEN.findall(text)
    return ["".join(tokens[i : i + words]) for i in range(0, len(tokens), words)]


def _estimate_tokens(value: Any) -> int:
    return max(1, len(json.dumps(value, ensure_ascii=False)) // 4)


def _start(request: MessageRequest) -> Paced:
    message: dict[str, Any] = {
        "id": f"msg_offline_{next(_ids):06d}",
        "type": "message",
        "role": "assistant",
        "model": OFFLINE_MODEL,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": _estimate_tokens(request.messages), "output_tokens": 1},
    }
    return {"type": "message_start", "message": message}, 0.15


def _text_block(index: int, text: str, pace: float = 0.02) -> list[Paced]:
    events: list[Paced] = [
        (
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": ""},
            },
            0.0,
        )
    ]
    for chunk in _chunks(text):
        delta = {"type": "text_delta", "text": chunk}
        events.append(({"type": "content_block_delta", "index": index, "delta": delta}, pace))
    events.append(({"type": "content_block_stop", "index": index}, 0.0))
    return events


def _tool_block(index: int, block_type: str, name: str, args: dict[str, Any]) -> list[Paced]:
    prefix = "srvtoolu" if block_type == "server_tool_use" else "toolu"
    block = {"type": block_type, "id": f"{prefix}_offline_{next(_ids):06d}", "name": name}
    events: list[Paced] = [
        (
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {**block, "input": {}},
            },
            0,
        )
    ]
    raw = json.dumps(args)
    for i in range(0, len(raw), 3):  # small pieces, so a query visibly grows as it arrives
        delta = {"type": "input_json_delta", "partial_json": raw[i : i + 3]}
        events.append(({"type": "content_block_delta", "index": index, "delta": delta}, 0.05))
    events.append(({"type": "content_block_stop", "index": index}, 0.0))
    return events


def _finish(stop_reason: str, output: Any, searches: int = 0) -> list[Paced]:
    usage: dict[str, Any] = {"output_tokens": _estimate_tokens(output)}
    if searches:
        usage["server_tool_use"] = {"web_search_requests": searches}
    delta = {"stop_reason": stop_reason, "stop_sequence": None}
    return [
        ({"type": "message_delta", "delta": delta, "usage": usage}, 0.0),
        ({"type": "message_stop"}, 0.0),
    ]


def _message_events(blocks: list[dict[str, Any]], request: MessageRequest) -> list[Paced]:
    events = [_start(request)]
    stop_reason = "end_turn"
    for index, block in enumerate(blocks):
        if "text" in block:
            events += _text_block(index, block["text"])
        else:
            call = block["tool_use"]
            events += _tool_block(index, "tool_use", call["name"], call["input"])
            stop_reason = "tool_use"
    return events + _finish(stop_reason, blocks)


def _search_hits(query: str, skip: int = 0, n: int = 3) -> list[dict[str, Any]]:
    """Index entries sharing a keyword with the query, best first: results follow the query,
    and a query the small offline index knows nothing about gets none."""
    words = set(re.findall(r"[\w.-]+", query.lower()))
    scored = [(len(words & set(entry["keywords"])), entry) for entry in _search_index()]
    ranked = [entry for score, entry in sorted(scored, key=lambda se: -se[0]) if score > 0]
    return ranked[skip : skip + n]


def _search_events(request: MessageRequest) -> list[Paced]:
    """Two searches (the query, then a refinement), their results, and a cited summary."""
    query = text_of(request.messages[-1]["content"]).split(":", 1)[-1].strip() or "search"
    queries = [query, f"{query} documentation"]
    events = [_start(request)]
    index = 0
    all_hits: list[dict[str, Any]] = []
    for n, q in enumerate(queries):
        tool = _tool_block(index, "server_tool_use", "web_search", {"query": q})
        events += tool
        tool_id = tool[0][0]["content_block"]["id"]
        hits = _search_hits(q, skip=3 * n)
        all_hits += hits
        result = {
            "type": "web_search_tool_result",
            "tool_use_id": tool_id,
            "content": [
                {
                    "type": "web_search_result",
                    "title": hit["title"],
                    "url": hit["url"],
                    "encrypted_content": f"offline-{n}-{i}",
                    "page_age": None,
                }
                for i, hit in enumerate(hits)
            ],
        }
        events.append(
            ({"type": "content_block_start", "index": index + 1, "content_block": result}, 0.6)
        )
        events.append(({"type": "content_block_stop", "index": index + 1}, 0.0))
        index += 2
    summary = " ".join(f"{hit['title']}: {hit['text']}" for hit in all_hits[:3]) or (
        f"The offline model's small search index has no pages about “{query}”. With an API key, "
        "this is a real web search."
    )
    events += _text_block(index, summary, pace=0.01)
    return events + _finish("end_turn", summary, searches=len(queries))


def _extract(request: MessageRequest) -> str:
    """Without a model, answer extraction requests extractively: the page's first sentences."""
    text = text_of(request.messages[-1]["content"])
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if len(s.strip()) > 40]
    picked = " ".join(sentences[:5])[:1200]
    return f"(Offline extraction, no model was asked.) {picked}" if picked else "(Empty page.)"
