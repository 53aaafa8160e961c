"""Turning usage into dollars, from the price table in `agent_tui/data/prices.toml` and the
person's own rows (`[prices."MODEL"]` in their settings.toml, over the shipped ones)."""

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
    #: what every token costs instead when a request's prompt is over `long_above` tokens
    long_prompt: Price | None = None
    long_above: int = 0

    def for_prompt(self, prompt_tokens: int) -> Price:
        """The prices a request with this many prompt tokens pays."""
        if self.long_prompt is not None and prompt_tokens > self.long_above:
            return self.long_prompt
        return self

    @property
    def dearest(self) -> Price:
        """The highest of its tiers (what a bound before the request must assume)."""
        return self.long_prompt or self


@cache
def _table() -> dict[str, Any]:
    import tomllib  # at the first price asked for, not on the way to a ready prompt (issue 34)

    table = tomllib.loads(package_data("prices.toml").read_text(encoding="utf-8"))
    for name, row in _own_prices().items():
        table["models"][name] = {**table["models"].get(name, _FALLBACK), **row}
    return table


def _own_prices() -> dict[str, dict[str, Any]]:
    """`[prices."MODEL"]` rows of the person's settings.toml (settings_check has checked them)."""
    from agent_tui.paths import config_dir
    from agent_tui.toml_file import TomlFileError, read_toml

    try:
        data = read_toml(config_dir() / "settings.toml") or {}
    except TomlFileError:
        return {}
    rows = data.get("prices")
    return {k: v for k, v in rows.items() if isinstance(v, dict)} if isinstance(rows, dict) else {}


def price_for(model: str) -> Price:
    """The price row of the longest table name `model` starts with (unknown: a Sonnet's)."""
    models: dict[str, dict[str, float]] = _table()["models"]
    # Bedrock IDs carry region and vendor prefixes ("us.anthropic.claude-…"): price the Claude name.
    at = model.find("claude-")
    model = model[at:] if at > 0 else model
    matches = [name for name in models if model.startswith(name)]
    row: dict[str, Any] = dict(models[max(matches, key=len)] if matches else _FALLBACK)
    long = row.pop("long_prompt", None)
    if isinstance(long, dict):
        above = int(long.get("above", 0))
        tier = {k: v for k, v in long.items() if k != "above"}
        return Price(**row, long_prompt=Price(**{**row, **tier}), long_above=above)
    return Price(**row)


def search_price() -> float:
    return float(_table()["web_search_per_1000"]) / 1000


def cost_usd(model: str, usage: Usage) -> float:
    prompt = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens
    p = price_for(model).for_prompt(prompt)
    tokens = (
        usage.input_tokens * p.input
        + usage.output_tokens * p.output
        + usage.cache_creation_input_tokens * p.cache_write
        + usage.cache_read_input_tokens * p.cache_read
    ) / 1_000_000
    per_search = search_price() if p.web_search_per_1000 is None else p.web_search_per_1000 / 1000
    return tokens + usage.web_search_requests * per_search
