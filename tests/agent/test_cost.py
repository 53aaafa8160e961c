"""Cost: tokens × the model's price + $10 per 1,000 searches, and a turn's usage summed over every
request, WebSearch's sub-requests included."""

from __future__ import annotations

import tomllib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sse_server import sse_fixture

from agent_tui.agent.approvals import AllowAll
from agent_tui.agent.cost import Price, cost_usd, price_for, search_price
from agent_tui.agent.loop import Agent, AgentConfig
from agent_tui.paths import package_data
from agent_tui.protocol.assembler import StreamAssembler
from agent_tui.protocol.events import TurnFinished, Usage
from agent_tui.protocol.sse import iter_sse
from agent_tui.providers.base import MessageRequest
from agent_tui.tools.base import ToolRegistry
from agent_tui.tools.builtin.web_search import WebSearchTool

M = 1_000_000


def test_tokens_times_price() -> None:
    usage = Usage(
        input_tokens=2 * M,
        output_tokens=M,
        cache_creation_input_tokens=M,
        cache_read_input_tokens=10 * M,
    )
    # claude-sonnet-4-6: 3 in, 15 out, 3.75 cache write, 0.30 cache read per million
    assert cost_usd("claude-sonnet-4-6", usage) == pytest.approx(6 + 15 + 3.75 + 3.0)


def test_a_long_prompt_pays_its_tier_on_every_token() -> None:
    short = Usage(input_tokens=90_000, output_tokens=M)
    long = Usage(input_tokens=60_000, output_tokens=M, cache_read_input_tokens=50_000)
    # Haiku 5.5: 0.10 / 0.50 up to 100K prompt tokens, 0.50 / 2.50 / 0.05 over
    assert cost_usd("claude-haiku-5-5", short) == pytest.approx(0.009 + 0.5)
    assert cost_usd("claude-haiku-5-5", long) == pytest.approx(0.03 + 2.5 + 0.0025)
    # the spending cap's bound assumes the dearest tier
    assert price_for("claude-haiku-5-5").dearest.output == 2.5


def test_the_persons_prices_win(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    from pathlib import Path

    from agent_tui.agent import cost

    (Path(os.environ["AGENT_TUI_HOME"]) / "settings.toml").write_text(
        '[prices."claude-opus-5-5"]\ninput = 1.5\n[prices."my-proxy-model"]\noutput = 2.0\n'
    )
    cost._table.cache_clear()
    try:
        assert price_for("claude-opus-5-5").input == 1.5
        assert price_for("claude-opus-5-5").output == 20.0  # the rest stays the table's
        assert price_for("my-proxy-model").output == 2.0
    finally:
        cost._table.cache_clear()


def test_searches_cost_ten_dollars_per_thousand() -> None:
    assert search_price() == pytest.approx(0.01)
    assert cost_usd("claude-sonnet-4-5", Usage(web_search_requests=3)) == pytest.approx(0.03)
    usage = Usage(input_tokens=1000, output_tokens=100, web_search_requests=2)
    tokens = (1000 * 3.0 + 100 * 15.0) / M
    assert cost_usd("claude-sonnet-4-5", usage) == pytest.approx(tokens + 0.02)


def test_the_offline_model_costs_nothing_searches_included() -> None:
    assert cost_usd("offline", Usage(input_tokens=M, output_tokens=M)) == 0
    assert cost_usd("offline", Usage(web_search_requests=2)) == 0  # the demo shows $0.00


@pytest.mark.parametrize(
    ("model", "input_price"),
    [
        ("claude-opus-4-5", 5.0),
        ("claude-opus-4-5-20251101", 5.0),  # longest prefix wins over claude-opus-4
        ("claude-opus-4-1-20250805", 15.0),
        ("claude-opus-4", 15.0),
        ("claude-haiku-4-5", 1.0),
        ("claude-3-5-haiku-20241022", 0.80),
        ("claude-sonnet-4-5@20250929", 3.0),  # Vertex
        ("us.anthropic.claude-haiku-4-5-20251001-v1:0", 1.0),  # Bedrock
        ("offline", 0.0),
    ],
)
def test_longest_prefix_match(model: str, input_price: float) -> None:
    assert price_for(model).input == input_price


@pytest.mark.parametrize("model", ["gpt-unknown", "", "claude-next-9"])
def test_unknown_model_is_priced_like_sonnet(model: str) -> None:
    assert price_for(model) == Price(input=3.0, output=15.0, cache_write=3.75, cache_read=0.30)


def test_price_table_is_complete() -> None:
    table = tomllib.loads(package_data("prices.toml").read_text(encoding="utf-8"))
    assert table["web_search_per_1000"] == 10.0
    for name, row in table["models"].items():
        extra = {"web_search_per_1000", "long_prompt"}  # searches priced apart; a long tier
        assert set(row) - extra == {"input", "output", "cache_write", "cache_read"}, name
        tier = row.pop("long_prompt", {"above": 1})
        assert set(tier) == {"above", "input", "output", "cache_write", "cache_read"} or tier == {
            "above": 1
        }, name
        assert all(value >= 0 for value in (*row.values(), *tier.values())), name


def test_usage_sums_field_by_field() -> None:
    a = Usage(1, 2, 3, 4, 5)
    b = Usage(10, 20, 30, 40, 50)
    assert a + b == Usage(11, 22, 33, 44, 55)
    assert (a + b).total_tokens == 11 + 22 + 33 + 44
    assert Usage.from_api({"input_tokens": 7, "server_tool_use": {"web_search_requests": 2}}) == (
        Usage(input_tokens=7, web_search_requests=2)
    )
    assert Usage.from_api(None) == Usage()


def _usage_of(name: str) -> Usage:
    assembler = StreamAssembler()
    for event in iter_sse(sse_fixture(name)):
        assembler.feed(event)
    return assembler.usage


class _Replay:
    """Main turn: a WebSearch call, then a text answer; sub-requests get a search stream."""

    name = "anthropic"
    label = "replay"

    def __init__(self) -> None:
        self.main = iter(["main_calls_websearch.sse", "text_only.sse"])

    def supports_web_search(self, model: str) -> bool:
        return True

    async def stream(self, request: MessageRequest) -> AsyncIterator[dict[str, Any]]:
        name = "web_search.sse" if request.purpose == "web_search" else next(self.main)
        for event in iter_sse(sse_fixture(name)):
            yield event


async def test_turn_usage_and_cost_include_the_search_sub_request(tmp_path: Path) -> None:
    config = AgentConfig(model="claude-sonnet-4-5", cwd=tmp_path, data_dir=tmp_path)
    agent = Agent(_Replay(), ToolRegistry([WebSearchTool()]), config, permissions=AllowAll())
    finished = await agent.submit("When was Python 3.13 released?")
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "end_turn"
    parts = [_usage_of(n) for n in ("main_calls_websearch.sse", "web_search.sse", "text_only.sse")]
    total = parts[0] + parts[1] + parts[2]
    assert finished.usage == total
    assert finished.usage.web_search_requests == 1
    assert finished.cost_usd == pytest.approx(cost_usd("claude-sonnet-4-5", total))
    assert agent.session_cost == pytest.approx(finished.cost_usd)
    assert agent.session_usage == total
