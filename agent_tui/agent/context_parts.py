"""What fills the context window, part by part, as Claude Code's `/context` breaks it down: the
system prompt, the tools (built-in and MCP), the memory files, the messages, and the space left.

Each part is estimated from its size (about four characters a token, as the request's bytes
are); the messages take what the last request measured beyond the rest, once one has, so the
parts add up to the total the status line shows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

#: characters a token, for the estimates (English prose and JSON are 3.5-4.5)
CHARS_PER_TOKEN = 4


@dataclass(frozen=True, slots=True)
class ContextParts:
    model: str
    window: int
    #: (part, tokens), in Claude Code's order; "Free space" last
    parts: tuple[tuple[str, int], ...]
    #: measured by the last request (True) or all estimated
    measured: bool

    @property
    def used(self) -> int:
        return sum(tokens for name, tokens in self.parts if name != "Free space")


def _tokens(value: Any) -> int:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def context_parts(agent: Any) -> ContextParts:
    """`agent`'s context now (an `Agent`: its config, tools, memory files, conversation)."""
    config = agent.config
    memory = sum(_tokens(m.text) for m in agent.memory_files)
    system = max(0, _tokens(config.system) - memory)
    schemas = agent.tools.schemas()
    mcp = [s for s in schemas if str(s.get("name", "")).startswith("mcp__")]
    tools = [s for s in schemas if s not in mcp]
    fixed = [
        ("System prompt", system),
        ("System tools", _tokens(tools) if tools else 0),
        ("MCP tools", _tokens(mcp) if mcp else 0),
        ("Memory files", memory),
    ]
    before = sum(tokens for _, tokens in fixed)
    compactor = agent.compactor
    estimated = _tokens(agent.conversation.request_messages()) if agent.messages else 0
    measured = bool(compactor.used) and compactor.used >= before
    messages = compactor.used - before if measured else estimated
    window = compactor.window
    used = before + messages
    parts = [
        *((name, tokens) for name, tokens in fixed if tokens or name != "MCP tools"),
        ("Messages", messages),
        ("Free space", max(0, window - used)),
    ]
    return ContextParts(config.model, window, tuple(parts), measured)
