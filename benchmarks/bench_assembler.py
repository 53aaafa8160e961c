"""Assembler: events/s through StreamAssembler vs the Anthropic SDK's own stream accumulation.

The same event list (a thinking block with its signature, text blocks of streamed deltas, a tool
call with streamed JSON input, a web search call and its results, message delta and stop) is fed
  - as wire dicts to `StreamAssembler.feed` (what our providers hand it), and
  - as SDK event objects to `anthropic.lib.streaming._messages.accumulate_event`, the function
    `MessageStream` runs on every event to build its message snapshot.
SDK objects are built from the same dicts with the SDK's `construct_type` before timing, so only
the accumulation is compared. A second comparison starts from the raw `data:` JSON, as a real
stream does: `json.loads` + feed, vs `json.loads` + `construct_type` + accumulate.

Both run alternately, several rounds, best round reported, for a typical answer and a long one.

    python benchmarks/bench_assembler.py [--rounds 7] [--long-kb 100]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from _common import machine, make_answer


def event_list(text_chars: int) -> list[dict[str, Any]]:
    from agent_tui.providers.base import MessageRequest
    from agent_tui.providers.offline import _finish, _start, _text_block, _tool_block

    request = MessageRequest(model="offline", messages=[{"role": "user", "content": "hi"}])
    paced = [_start(request)]
    thinking = make_answer(max(200, text_chars // 10), seed=1)
    paced.append(
        (
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            },
            0,
        )
    )
    for i in range(0, len(thinking), 40):
        delta = {"type": "thinking_delta", "thinking": thinking[i : i + 40]}
        paced.append(({"type": "content_block_delta", "index": 0, "delta": delta}, 0))
    signature = {"type": "signature_delta", "signature": "EqQBCkgIARABGAIiQL" * 8}
    paced.append(({"type": "content_block_delta", "index": 0, "delta": signature}, 0))
    paced.append(({"type": "content_block_stop", "index": 0}, 0))
    search = _tool_block(1, "server_tool_use", "web_search", {"query": "textual markdown stream"})
    paced += search
    results = {
        "type": "web_search_tool_result",
        "tool_use_id": search[0][0]["content_block"]["id"],
        "content": [
            {
                "type": "web_search_result",
                "title": f"Result {i}",
                "url": f"https://example.com/{i}",
                "encrypted_content": "x" * 200,
                "page_age": None,
            }
            for i in range(5)
        ],
    }
    paced.append(({"type": "content_block_start", "index": 2, "content_block": results}, 0))
    paced.append(({"type": "content_block_stop", "index": 2}, 0))
    paced += _text_block(3, make_answer(text_chars, seed=2))
    paced += _tool_block(4, "tool_use", "Bash", {"command": "ls -la && git status", "timeout": 30})
    paced += _finish("tool_use", "x" * text_chars)
    return [event for event, _ in paced]


def run_ours(events: list[dict[str, Any]]) -> Any:
    from agent_tui.protocol.assembler import StreamAssembler

    assembler = StreamAssembler()
    for event in events:
        assembler.feed(event)
    return assembler.content


def run_sdk(events: list[Any]) -> Any:
    from anthropic.lib.streaming._messages import accumulate_event

    snapshot = None
    json_bufs: dict[int, bytes] = {}
    for event in events:
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
    return snapshot


def sdk_objects(events: list[dict[str, Any]]) -> list[Any]:
    from anthropic._models import construct_type
    from anthropic.types import RawMessageStreamEvent

    return [construct_type(value=e, type_=RawMessageStreamEvent) for e in events]


def best_of(rounds: int, *runs: Callable[[], Any]) -> list[float]:
    best = [float("inf")] * len(runs)
    for _ in range(rounds):
        for i, run in enumerate(runs):  # alternate, so machine noise hits both alike
            started = time.perf_counter()
            run()
            best[i] = min(best[i], time.perf_counter() - started)
    return best


def compare(label: str, events: list[dict[str, Any]], rounds: int) -> None:
    objects = sdk_objects(events)
    ours, sdk = run_ours(events), run_sdk(objects)
    text = next(b["text"] for b in ours if b["type"] == "text")
    assert text == next(b.text for b in sdk.content if b.type == "text"), "results differ"
    t_ours, t_sdk = best_of(rounds, lambda: run_ours(events), lambda: run_sdk(objects))
    n = len(events)
    print(
        f"{label}: {n} events — StreamAssembler {n / t_ours:,.0f} events/s, "
        f"SDK accumulate_event {n / t_sdk:,.0f} events/s: ratio {t_sdk / t_ours:.2f}x (goal >= 1x)"
    )

    from anthropic._models import construct_type
    from anthropic.types import RawMessageStreamEvent

    wire = [json.dumps(e) for e in events]

    def ours_from_json() -> None:
        run_ours([json.loads(w) for w in wire])

    def sdk_from_json() -> None:
        run_sdk([construct_type(value=json.loads(w), type_=RawMessageStreamEvent) for w in wire])

    t_ours, t_sdk = best_of(rounds, ours_from_json, sdk_from_json)
    print(
        f"{'':{len(label)}}  from raw JSON: ours {n / t_ours:,.0f} events/s, "
        f"SDK (construct + accumulate) {n / t_sdk:,.0f} events/s: ratio {t_sdk / t_ours:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--long-kb", type=int, default=100)
    args = parser.parse_args()
    print(f"machine: {machine()}, anthropic {__import__('anthropic').__version__}")
    compare("typical answer (2 KB text)", event_list(2_000), args.rounds * 5)
    compare(f"long answer ({args.long_kb} KB text)", event_list(args.long_kb * 1000), args.rounds)


if __name__ == "__main__":
    main()
