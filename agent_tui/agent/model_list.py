"""`/model`'s list: the models of `agent_tui.models` with their windows and prices."""

from __future__ import annotations

from agent_tui.agent.context import context_window
from agent_tui.agent.cost import price_for
from agent_tui.models import aliases, catalog, split_1m


def listing(current: str) -> list[str]:
    """`/model`'s lines: each model with its id, window, price and what it does, newest first;
    retired ones left out."""
    by_alias = {v: k for k, v in aliases().items()}
    lines = []
    for row in catalog().values():
        if row.status == "retired":
            continue
        p = price_for(row.id)
        window = context_window(row.id)
        more = f"{window // 1000}K" if window < 1_000_000 else "1M"
        if row.beta_1m:
            more += " (1M with [1m])"
        think = {"always": "adaptive thinking (always)", "adaptive": "adaptive thinking"}.get(
            row.thinking, "extended thinking"
        )
        alias = f" ({by_alias[row.id]})" if row.id in by_alias else ""
        mark = "→ " if split_1m(current)[0] == row.id else "  "
        lines.append(
            f"{mark}{row.id}{alias} · {row.name}, {row.status} · {more} context · "
            f"${p.input:g}/${p.output:g} per MTok · {think}"
            + (f", effort (default {row.default_effort})" if row.default_effort else "")
        )
    return lines
