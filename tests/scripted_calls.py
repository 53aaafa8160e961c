"""What the CLI end-to-end tests share: a loopback API that asks for tool calls in turn, then
answers; a fresh git project with a home beside it; and the tool results the model was sent."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conversation_rules import reply, text, tool_use


def to_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def calls_then_done(
    *calls: tuple[str, dict[str, Any]], answer: str = "done"
) -> Callable[[int, Any], str]:
    """A responder: the `index`-th request gets `calls[index]` as a tool call, later ones
    `answer`."""

    def responder(index: int, body: Any) -> str:
        if index < len(calls):
            name, input = calls[index]
            return to_sse(reply(tool_use(f"toolu_{index}", name, input), stop_reason="tool_use"))
        return to_sse(reply(text(answer)))

    return responder


def setup(tmp_path: Path) -> tuple[Path, Path]:
    """(a git work tree `project`, a `home` for AGENT_TUI_HOME) under `tmp_path`."""
    work, home = tmp_path / "project", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work, home


def tool_results(server: Any) -> list[str]:
    """The text of every tool result the model was sent, in order."""
    out = []
    for request in server.requests[1:]:
        for b in request.json["messages"][-1]["content"]:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                c = b["content"]
                out.append(c if isinstance(c, str) else "".join(x.get("text", "") for x in c))
    return out
