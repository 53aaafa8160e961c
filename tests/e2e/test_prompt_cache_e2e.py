"""Prompt caching through the real SDK at the loopback server: every request marks its stable
prefix (tools, system, the newest message) with at most four breakpoints, the tools and system
are the same bytes on every request and in a `--continue`d process, and each request's history
is the previous one's plus what is new."""

from __future__ import annotations

import itertools
import json
import subprocess
from pathlib import Path
from typing import Any

from conversation_rules import reply, text, tool_use
from sse_server import SSEServer, run_agent_tui, uncached


def to_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def script(index: int, body: Any) -> str:
    # Odd requests ask for a read-only command; even ones answer.
    if index % 2 == 0:
        call = tool_use(f"toolu_{index:02d}", "Bash", {"command": "echo step"})
        return to_sse(reply(call, stop_reason="tool_use"))
    return to_sse(reply(text(f"answer {index}")))


def breakpoints(value: Any) -> int:
    if isinstance(value, dict):
        return int("cache_control" in value) + sum(breakpoints(v) for v in value.values())
    if isinstance(value, list):
        return sum(breakpoints(v) for v in value)
    return 0


async def cli(server: SSEServer, project: Path, home: Path, *args: str) -> None:
    code, _, err = await run_agent_tui(server, project, home, *args)
    assert code == 0, err.decode()


async def test_the_cached_prefix_is_stable_within_a_session_and_across_processes(
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    async with SSEServer(script) as server:
        await cli(server, project, home, "-p", "first")
        # the work tree changed before the session was continued: the system prompt (which
        # mentions git's status) is the session's own, stored with it, so it doesn't change
        (project / "new.txt").write_text("changed\n")
        await cli(server, project, home, "-p", "second", "--continue")
    bodies = [r.json for r in server.requests]
    assert len(bodies) == 4
    for body in bodies:
        assert 3 <= breakpoints(body) <= 4
        assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
        assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
        assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    # tools and system: the same bytes on every request, in both processes
    assert len({json.dumps(b["tools"]) for b in bodies}) == 1
    assert len({json.dumps(b["system"]) for b in bodies}) == 1
    assert "Today's date" in bodies[0]["system"][0]["text"]
    # history only grows at the end: each request starts with the previous one, byte for byte
    # once the cache markers (which are not prompt content) are set aside
    history = [uncached(b)["messages"] for b in bodies]
    for before, after in itertools.pairwise(history):
        assert json.dumps(after[: len(before)]) == json.dumps(before)
        assert len(after) > len(before)
