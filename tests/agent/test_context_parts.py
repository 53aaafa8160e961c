"""`/context`'s parts (issue 50): estimated from their sizes, with the messages taking what the
last request measured beyond the rest, so the parts add up to the measured total."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from agent_tui.agent.context_parts import context_parts


def agent(used: int, messages: list[dict[str, Any]]) -> Any:
    tools = [{"name": "Bash", "description": "x" * 400}, {"name": "mcp__notes__add", "x": "y" * 40}]
    return SimpleNamespace(
        config=SimpleNamespace(model="claude-sonnet-4-5", system="s" * 800 + "m" * 400),
        memory_files=[SimpleNamespace(text="m" * 400)],
        tools=SimpleNamespace(schemas=lambda: tools),
        compactor=SimpleNamespace(used=used, window=200_000),
        conversation=SimpleNamespace(request_messages=lambda: messages),
        messages=messages,
    )


def test_a_measured_total_is_split_into_the_parts() -> None:
    parts = context_parts(agent(5_000, [{"role": "user", "content": "hi"}]))
    got = dict(parts.parts)
    assert got["System prompt"] == 200 and got["Memory files"] == 100
    assert got["MCP tools"] > 0 and got["System tools"] > got["MCP tools"]
    assert parts.measured and parts.used == 5_000
    assert got["Messages"] == 5_000 - sum(
        got[k] for k in got if k not in ("Messages", "Free space")
    )
    assert got["Free space"] == 195_000


def test_before_any_request_everything_is_estimated() -> None:
    parts = context_parts(agent(0, []))
    assert not parts.measured and dict(parts.parts)["Messages"] == 0
    assert [name for name, _ in parts.parts][-1] == "Free space"
