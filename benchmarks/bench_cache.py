"""Prompt caching over a long session: a scripted 30-turn coding session through the real
`anthropic` SDK at a loopback Messages API (no network).

Each turn: a prompt; the model reads a file and runs a command (real Read and Bash tools in a
temporary project); then a ~1.5 KB answer. Every request body the server receives is kept, and:

- **cache-prefix share**: of all the input the session sent (tools + system + messages, counted
  in characters of their JSON, cache markers removed), the part that lies inside the previous
  request's cached prefix and is byte-for-byte unchanged — what the API reads from the cache
  instead of processing again (goal ≥ 90 %). The first request counts as all new.
- **request building**: the time to build each request's body (conversation → JSON, breakpoints
  included), by turn, first turns vs last turns (goal: flat as the history grows).

    python benchmarks/bench_cache.py [--turns 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import machine, make_answer, median

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def to_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def responder(index: int, body: Any) -> str:
    from conversation_rules import reply, text, tool_use

    last = body["messages"][-1]["content"]
    if not any(b.get("type") == "tool_result" for b in last):
        n = index
        calls = (
            tool_use(f"toolu_r{n}", "Read", {"path": "src/app.py"}),
            tool_use(f"toolu_b{n}", "Bash", {"command": f"echo step {n}"}),
        )
        return to_sse(reply(*calls, stop_reason="tool_use"))
    return to_sse(reply(text(make_answer(1500, seed=index))))


def strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def parts(body: dict[str, Any]) -> list[str]:
    """The request's input in prompt order, one JSON string per cacheable piece."""
    clean = strip(body)
    return [
        json.dumps(clean.get("tools", [])),
        json.dumps(clean.get("system", [])),
        *(json.dumps(m) for m in clean["messages"]),
    ]


def prefix_share(bodies: list[dict[str, Any]]) -> tuple[float, int]:
    cached = total = 0
    previous: list[str] = []
    for body in bodies:
        now = parts(body)
        total += sum(map(len, now))
        same = 0
        for a, b in zip(previous, now, strict=False):
            if a != b:
                break
            same += len(a)
        cached += same
        previous = now
    return cached / total, total


async def run(turns: int) -> None:
    from sse_server import SSEServer

    from agent_tui.agent.approvals import AllowAll
    from agent_tui.agent.loop import Agent, AgentConfig
    from agent_tui.providers.anthropic import AnthropicProvider
    from agent_tui.runtime import make_tools
    from agent_tui.tools.base import ToolRegistry

    build_times: list[float] = []
    json_times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / "src").mkdir()
        (project / "src" / "app.py").write_text(make_answer(3000, seed=3))
        async with SSEServer(responder) as server:
            os.environ.update(ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY="bench")
            provider = AnthropicProvider("claude-sonnet-4-5")
            tools: ToolRegistry = make_tools(provider, "claude-sonnet-4-5")
            config = AgentConfig(model="claude-sonnet-4-5", cwd=project, compaction="off")
            from agent_tui.agent.system_prompt import build_system_prompt

            config.system = build_system_prompt(config.model, project, [], project_trusted=True)
            agent = Agent(provider, tools, config, permissions=AllowAll())
            real = agent._request_for

            def timed() -> Any:
                start = time.perf_counter()
                request = real()
                body = request.body()
                built = time.perf_counter()
                json.dumps(body)  # what the SDK then serialises: linear in the body, inevitably
                build_times.append(built - start)
                json_times.append(time.perf_counter() - built)
                return request

            agent._request_for = timed  # type: ignore[method-assign]
            for turn in range(turns):
                await agent.submit(f"Turn {turn}: look at src/app.py and run the step.")
        bodies = [r.json for r in server.requests]
    share, total = prefix_share(bodies)
    n = 10  # requests in five turns

    def first_last(times: list[float]) -> tuple[float, float]:
        return median(times[:n]), median(times[-n:])

    first, last = first_last(build_times)
    json_first, json_last = first_last(json_times)
    print(machine())
    print(f"{turns} turns, {len(bodies)} requests, {total / 1e6:.2f} M characters of input sent")
    print(f"cache-prefix share: {100 * share:.1f}% of the input was an unchanged cached prefix")
    print(
        f"request building: median {1e3 * first:.3f} ms (turns 1-5) vs "
        f"{1e3 * last:.3f} ms (turns {turns - 4}-{turns}); ratio {last / first:.2f}"
    )
    print(
        f"  + JSON serialisation of the body: {1e3 * json_first:.2f} ms vs "
        f"{1e3 * json_last:.2f} ms; ratio {json_last / json_first:.2f} (grows with the history)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30)
    args = parser.parse_args()
    asyncio.run(run(args.turns))


if __name__ == "__main__":
    main()
