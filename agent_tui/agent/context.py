"""How big each model's context window is (`data/context_windows.toml`), and how full a request
left it."""

from __future__ import annotations

from functools import cache
from typing import Any

from agent_tui.paths import package_data
from agent_tui.protocol.events import Usage


@cache
def _table() -> dict[str, Any]:
    import tomllib  # at the first answer, not on the way to a ready prompt (issue 34)

    return tomllib.loads(package_data("context_windows.toml").read_text("utf-8"))


def context_window(model: str) -> int:
    if model.lower().endswith("[1m]"):  # the 1M beta asked for (`agent_tui.models.for_api`)
        return 1_000_000
    table = _table()
    at = model.find("claude-")
    name = model[at:] if at > 0 else model
    matches = [prefix for prefix in table["windows"] if name.startswith(prefix)]
    return int(table["windows"][max(matches, key=len)] if matches else table["default"])


def context_used(usage: Usage) -> int:
    """Tokens one request's prompt and answer took: what the next request starts from."""
    return (
        usage.input_tokens
        + usage.cache_read_input_tokens
        + usage.cache_creation_input_tokens
        + usage.output_tokens
    )
