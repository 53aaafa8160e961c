"""The spending cap: a warning at 80 %, and at the cap the next request waits for the person
(TUI) or the turn stops (headless); never over the cap silently."""

from __future__ import annotations

from pathlib import Path

from conversation_rules import ScriptedProvider, reply, text, tool_use
from loop_harness import EchoTool, Harness

from agent_tui.agent.cost import cost_usd
from agent_tui.protocol.events import Notice, Usage

# One response of this usage costs $0.0165 at the harness model's (a Sonnet's) price.
BIG = {"input_tokens": 3000, "output_tokens": 500}


def call(n: int) -> list[dict]:  # type: ignore[type-arg]
    return reply(tool_use(f"toolu_{n}", "Echo", {"text": "x"}), stop_reason="tool_use", usage=BIG)


def test_one_response_costs_what_the_tests_assume() -> None:
    assert cost_usd("claude-sonnet-4-5", Usage(**BIG)) == 0.0165


async def test_headless_stops_at_the_cap_before_the_next_request(tmp_path: Path) -> None:
    provider = ScriptedProvider(call(1), call(2), call(3), reply(text("done")))
    h = Harness(provider, [EchoTool()], tmp_path, max_cost=0.02)
    result = await h.agent.submit("go")
    # $0.0165 (82 %) after the first response: a warning; $0.033 after the second: no third
    assert result.requests == 2 and result.stop_reason == "max_cost"
    assert len(provider.requests) == 2
    notices = [n.text for n in h.of(Notice)]
    assert any("of the $0.02 spending cap used" in t for t in notices)  # the 80 % warning
    assert any(t.startswith("Stopped: this session has spent $0.03") for t in notices)
    h.check()


async def test_the_person_can_let_it_go_on(tmp_path: Path) -> None:
    asked: list[tuple[float, float]] = []

    async def confirm(spent: float, cap: float) -> bool:
        asked.append((spent, cap))
        return True

    provider = ScriptedProvider(call(1), call(2), call(3), reply(text("done")))
    h = Harness(provider, [EchoTool()], tmp_path, max_cost=0.03)
    h.agent.budget.confirm = confirm
    result = await h.agent.submit("go")
    assert result.stop_reason == "end_turn" and result.requests == 4
    assert len(asked) == 1 and asked[0][1] == 0.03  # asked once, then lifted for the session
    h.check()


async def test_no_cap_means_no_check(tmp_path: Path) -> None:
    provider = ScriptedProvider(call(1), reply(text("done")))
    h = Harness(provider, [EchoTool()], tmp_path)
    result = await h.agent.submit("go")
    assert result.stop_reason == "end_turn" and not h.of(Notice)
