"""Reading API message content, which is either a string or a list of content blocks."""

from __future__ import annotations

from typing import Any


def text_of(content: Any, sep: str = "") -> str:
    """The text blocks of `content` joined by `sep` (a plain string is its own text)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return sep.join(
        str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"
    )


def carries_tool_results(message: dict[str, Any]) -> bool:
    """Whether `message` is a user message that sends tool calls' results back."""
    content = message.get("content")
    return (
        message.get("role") == "user"
        and isinstance(content, list)
        and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    )


def is_prompt(message: dict[str, Any]) -> bool:
    """Whether `message` begins a turn: the person's message, not the results of tool calls."""
    return message.get("role") == "user" and not carries_tool_results(message)
