"""Turning usage into dollars, from the price table in `agent_tui/data/prices.toml`."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from agent_tui.paths import package_data
from agent_tui.protocol.events import Usage

# Unknown models are priced like a current Sonnet rather than as free: an estimate that errs high.
_FALLBACK = {"input": 3.0, "output": 15.0, "cache_write": 3.75, "cache_read": 0.30}


@dataclass(frozen=True, slots=True)
class Price:
    """A model's prices in US dollars per million tokens, as `data/prices.toml` gives them."""

    input: float
    output: float
    cache_write: float
    cache_read: float
    #: dollars per 1,000 web searches for this model's requests (None: the table's default)
    web_search_per_1000: float | None = None


@cache
def _table() -> dict[str, Any]:
    import tomllib  # at the first price asked for, not on the way to a ready prompt (issue 34)

    return tomllib.loads(package_data("prices.toml").read_text(encoding="utf-8"))


def price_for(model: str) -> Price:
    """The price row of the longest table name `model` starts with (unknown: a Sonnet's)."""
    models: dict[str, dict[str, float]] = _table()["models"]
    # Bedrock IDs carry region and vendor prefixes ("us.anthropic.claude-…"): price the Claude name.
    at = model.find("claude-")
    model = model[at:] if at > 0 else model
    matches = [name for name in models if model.startswith(name)]
    row = models[max(matches, key=len)] if matches else _FALLBACK
    return Price(**row)


def search_price() -> float:
    return float(_table()["web_search_per_1000"]) / 1000


def cost_usd(model: str, usage: Usage) -> float:
    p = price_for(model)
    tokens = (
        usage.input_tokens * p.input
        + usage.output_tokens * p.output
        + usage.cache_creation_input_tokens * p.cache_write
        + usage.cache_read_input_tokens * p.cache_read
    ) / 1_000_000
    per_search = search_price() if p.web_search_per_1000 is None else p.web_search_per_1000 / 1000
    return tokens + usage.web_search_requests * per_search
