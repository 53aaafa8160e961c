"""What a turn does with each stop reason beyond `end_turn` and `tool_use`: how often it goes on
after `pause_turn` or an answer cut by `max_tokens`, and the notice a turn ends with otherwise."""

from __future__ import annotations

from typing import Any

#: pause_turn continuations of one turn before it is ended with a notice
MAX_CONTINUATIONS = 25
#: times one turn goes on after its answer hit the output limit (max_tokens)
MAX_LENGTH_CONTINUATIONS = 3
LENGTH_PROMPT = (
    "Your answer was cut off by the output limit. Continue exactly where it stopped, without "
    "repeating anything."
)


def cut_short(messages: list[dict[str, Any]]) -> bool:
    """The last response is a text answer (not a half-sent tool call), so it can go on."""
    if not messages or messages[-1].get("role") != "assistant":
        return False
    content = messages[-1].get("content")
    return isinstance(content, list) and bool(content) and content[-1].get("type") == "text"


def stop_notice(stop_reason: str | None, unanswered: int) -> str | None:
    """The notice a turn ends with (None for a normal end)."""
    if stop_reason in ("end_turn", "stop_sequence"):
        return None
    if stop_reason == "max_tokens":
        text = "The answer hit the output token limit (max_tokens) and was cut short."
    elif stop_reason == "refusal":
        text = "The model declined to continue this request (refusal)."
    elif stop_reason == "tool_use":
        text = "The model asked for a tool but sent no tool call."
    else:
        text = f"The turn ended with stop reason {stop_reason!r}."
    if unanswered:
        text += f" {unanswered} tool call(s) were not run."
    return text
