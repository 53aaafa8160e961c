"""The spending cap, planned before each request (`agent.budget`, `agent.preflight`): a request
that can't pay for its input and a useful answer is not sent (headless: the turn stops; TUI: the
person may raise the cap), `max_tokens` is lowered to what the budget pays for and a cut answer
says so, requests side by side can't cross the cap together, and a resumed session's spend
counts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from conversation_rules import ScriptedProvider, reply, text, tool_use
from loop_harness import MODEL, EchoTool, Harness
from metered import events

from agent_tui.agent.budget import CapQuestion, SpendingCap, SpendingCapReached
from agent_tui.agent.config import AgentConfig
from agent_tui.agent.cost import cost_usd, price_for
from agent_tui.agent.preflight import MIN_ANSWER, input_bound, plan
from agent_tui.protocol.events import Notice, TurnFinished, Usage
from agent_tui.providers.base import MessageRequest, ProviderError


def honest(words: int, tool: dict[str, Any] | None = None) -> Any:
    """A scripted step that answers like the API: usage from the request, cut at max_tokens."""

    async def step(request: MessageRequest) -> Any:
        for event in events(request.body(), words, tool):
            yield event

    return step


def spent_by(provider: ScriptedProvider, words: int) -> float:
    from metered import cost_of

    return sum(cost_of(r.body(), words) for r in provider.requests)


def request(max_tokens: int = 16000, **kw: Any) -> MessageRequest:
    messages = [{"role": "user", "content": "hello " * 200}]
    return MessageRequest(model=MODEL, messages=messages, max_tokens=max_tokens, **kw)


async def no_count(request: MessageRequest) -> int | None:
    return None


# --- the plan --------------------------------------------------------------------------------


def test_the_local_bound_is_above_what_the_request_holds() -> None:
    r = request()
    assert input_bound(r) >= len(str(r.body()).encode()) // 2
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "A" * 900_000},
    }
    with_image = MessageRequest(model=MODEL, messages=[{"role": "user", "content": [image]}])
    assert input_bound(with_image) < 10_000  # an image's bytes are not its tokens


async def test_far_from_the_cap_a_request_goes_as_it_is_without_counting() -> None:
    counted: list[MessageRequest] = []

    async def count(r: MessageRequest) -> int:
        counted.append(r)
        return 10

    r = request()
    planned = await plan(r, 100.0, count)
    assert planned.fits and planned.request is r and planned.cut_to is None and not counted


async def test_near_the_cap_the_exact_count_buys_the_answer_room() -> None:
    r = request()
    rates = price_for(MODEL)
    left = 0.02
    planned = await plan(r, left, lambda _r: asyncio.sleep(0, 1500))
    assert planned.fits and planned.cut_to is not None
    assert planned.request.max_tokens == planned.cut_to < 16000
    assert planned.reserve <= left
    # the exact count leaves more room than the bound would
    bounded = await plan(r, left, no_count)
    assert bounded.request.max_tokens < planned.request.max_tokens
    assert r.max_tokens == 16000  # the caller's request is not changed
    assert rates.output > 0


async def test_thinking_is_kept_under_the_lowered_max_tokens() -> None:
    r = request(thinking={"type": "enabled", "budget_tokens": 8000})
    planned = await plan(r, 0.05, lambda _r: asyncio.sleep(0, 1500))
    assert planned.fits
    budget = planned.request.thinking["budget_tokens"]  # type: ignore[index]
    assert 1024 <= budget <= planned.request.max_tokens - MIN_ANSWER


async def test_server_search_uses_are_lowered_to_what_the_budget_pays_for() -> None:
    search = {"type": "web_search_20250305", "name": "web_search", "max_uses": 8}
    r = request(max_tokens=2000, tools=[search])
    planned = await plan(r, 0.3, lambda _r: asyncio.sleep(0, 1000))
    assert planned.fits
    uses = planned.request.tools[0]["max_uses"]
    assert 1 <= uses < 8


async def test_too_little_left_for_a_useful_answer_does_not_fit() -> None:
    r = request()
    planned = await plan(r, 0.001, lambda _r: asyncio.sleep(0, 1500))
    assert not planned.fits and planned.needed > 0.001


# --- the loop --------------------------------------------------------------------------------


async def test_headless_sends_nothing_it_cannot_pay_for(tmp_path: Path) -> None:
    provider = ScriptedProvider(honest(100))
    h = Harness(provider, [EchoTool()], tmp_path, max_cost=0.001)
    result = await h.agent.submit("go")
    assert result.stop_reason == "max_cost" and result.requests == 0
    assert provider.requests == []
    (notice,) = [n.text for n in h.of(Notice)]
    assert notice.startswith("Spending cap reached: this session has spent $0.0000 of its $0.0010")
    assert h.agent.messages == []  # none of the prompt was sent: the conversation doesn't keep it


async def test_a_refused_prompt_is_taken_back_with_its_notes(tmp_path: Path) -> None:
    """A prompt refused before anything of it was sent leaves the conversation (the next prompt
    is sent alone); what the person ran with `!` waits for that next prompt."""
    provider = ScriptedProvider(honest(100), honest(100))
    h = Harness(provider, [EchoTool()], tmp_path, max_cost=0.001)
    h.agent.conversation.notes.append("<bash-input>ls</bash-input>")
    await h.agent.submit("refused")
    assert h.agent.messages == [] and provider.requests == []
    h.agent.config.max_cost = 5.0
    await h.agent.submit("sent")
    (sent,) = provider.requests
    texts = [b["text"] for b in sent.messages[0]["content"]]
    assert texts == ["sent", "<bash-input>ls</bash-input>"]
    h.check()


class Counting(ScriptedProvider):
    """A scripted provider whose server counts tokens (as the first-party API does)."""

    async def count_tokens(self, request: MessageRequest) -> int:
        from metered import input_tokens

        return input_tokens(request.body())


@pytest.mark.parametrize("kind", [Counting, ScriptedProvider])
async def test_a_turn_never_crosses_the_cap(tmp_path: Path, kind: type[ScriptedProvider]) -> None:
    tool = {"type": "tool_use", "id": "toolu_1", "name": "Echo", "input": {"text": "x"}}
    steps = [honest(300, {**tool, "id": f"toolu_{i}"}) for i in range(30)]
    provider = kind(*steps)
    h = Harness(provider, [EchoTool()], tmp_path, max_cost=0.03)
    result = await h.agent.submit("go")
    assert result.stop_reason == "max_cost"
    assert spent_by(provider, 300) <= 0.03  # what the "server" charged, every request
    assert h.agent.budget.spent == pytest.approx(result.cost_usd)
    if kind is Counting:  # counted exactly: it stops only when a useful answer can't be paid
        assert h.agent.budget.spent > 0.02
    h.check()


async def test_an_answer_cut_by_the_budget_says_so_and_is_not_continued(tmp_path: Path) -> None:
    provider = ScriptedProvider(honest(20_000), reply(text("more")))
    h = Harness(provider, [], tmp_path, max_cost=0.05)
    result = await h.agent.submit("go")
    assert len(provider.requests) == 1  # no "continue where you stopped" request
    sent = provider.requests[0].max_tokens
    assert sent < 16000 and result.stop_reason == "max_cost"
    assert any(n.text.startswith(f"The answer was cut at {sent:,} tokens") for n in h.of(Notice))
    assert spent_by(provider, 20_000) <= 0.05


async def test_the_person_can_raise_the_cap(tmp_path: Path) -> None:
    asked: list[CapQuestion] = []

    async def confirm(question: CapQuestion) -> bool:
        asked.append(question)
        return True

    provider = ScriptedProvider(honest(100))
    h = Harness(provider, [], tmp_path, max_cost=0.001)
    h.agent.budget.confirm = confirm
    result = await h.agent.submit("go")
    assert result.stop_reason == "end_turn" and len(provider.requests) == 1
    (question,) = asked
    assert question.cap == 0.001 and question.raise_to > question.needed
    assert h.agent.config.max_cost == question.raise_to
    # amounts as the status line shows them, not rounded to cents
    assert "spent $0.0000 of its $0.0010 spending cap" in question.text
    assert f"Raise the cap to ${question.raise_to:.4f} for this session?" in question.text


async def test_saying_no_stops_the_turn_and_is_asked_once(tmp_path: Path) -> None:
    asked: list[CapQuestion] = []

    async def confirm(question: CapQuestion) -> bool:
        asked.append(question)
        return False

    provider = ScriptedProvider(honest(100))
    h = Harness(provider, [], tmp_path, max_cost=0.001)
    h.agent.budget.confirm = confirm
    result = await h.agent.submit("go")
    assert result.stop_reason == "max_cost" and provider.requests == [] and len(asked) == 1


async def test_a_resumed_sessions_spend_counts(tmp_path: Path) -> None:
    provider = ScriptedProvider(honest(100))
    h = Harness(provider, [], tmp_path, max_cost=0.05)
    h.agent.set_session_spend(Usage(input_tokens=10), 0.0499)
    result = await h.agent.submit("go")
    assert result.stop_reason == "max_cost" and provider.requests == []
    assert "spent $0.0499 of its $0.0500" in h.of(Notice)[0].text


async def test_requests_side_by_side_reserve_their_worst_case() -> None:
    notices: list[Any] = []
    config = AgentConfig(model=MODEL, max_cost=0.03)
    cap = SpendingCap(config, notices.append)

    async def count(r: MessageRequest) -> int:
        return 1500

    grants = []
    for _ in range(5):  # as parallel tool calls would, none settled yet
        try:
            grants.append(await cap.admit(request(), count))
        except SpendingCapReached:
            break
    assert 1 <= len(grants) < 5
    assert sum(g.reserved for g in grants) <= 0.03
    worst = sum(
        cost_usd(MODEL, Usage(input_tokens=1600, output_tokens=g.request.max_tokens))
        for g in grants
    )
    assert worst <= 0.03
    for g in grants:
        cap.settle(g, 0.001)
    assert cap.reserved == 0 and cap.spent == pytest.approx(0.001 * len(grants))
    assert "held for requests under way" in notices[-1].text  # the one refused
    cap.settle(grants[0].__class__(request(), 0.0), 0.024)  # past 80 %: said once
    cap.settle(grants[0].__class__(request(), 0.0), 0.0001)
    assert [n.text for n in notices if "spending cap used" in n.text] == [
        f"${cap.spent - 0.0001:.4f} of the $0.0300 spending cap used."
    ]


async def test_no_cap_means_no_planning(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        reply(tool_use("toolu_1", "Echo", {"text": "x"}), stop_reason="tool_use"),
        reply(text("done")),
    )
    h = Harness(provider, [EchoTool()], tmp_path)
    result = await h.agent.submit("go")
    assert result.stop_reason == "end_turn" and not h.of(Notice)
    assert all(r.max_tokens == provider.requests[0].max_tokens for r in provider.requests)
    assert isinstance(h.of(TurnFinished)[0], TurnFinished)


async def test_sub_requests_go_through_the_cap_and_say_when_cut() -> None:
    """WebFetch's extraction (like WebSearch's sub-request, compaction and sub-agents) goes
    through the session's provider, so through the cap; an extraction it cut says so."""
    from agent_tui.agent.capped_provider import CappedProvider
    from agent_tui.web.extract import build_request, run_extraction

    config = AgentConfig(model=MODEL, max_cost=0.02)
    cap = SpendingCap(config, lambda e: None)
    inner = Counting(honest(20_000))
    provider = CappedProvider(inner, cap)
    request = build_request(
        model="claude-haiku-4-5", url="https://example.com/", prompt="summarise", content="page"
    )
    text, usage = await run_extraction(provider, request)
    assert request.budget_cut is not None and inner.requests[0].max_tokens == request.budget_cut
    assert text.endswith("that is all the session's spending cap could pay for.]")
    assert cap.spent == pytest.approx(cost_usd("claude-haiku-4-5", usage)) and cap.spent <= 0.02
    cap.config.max_cost = 0.0001
    with pytest.raises(ProviderError, match=r"^Spending cap reached"):  # nobody to raise it
        await run_extraction(provider, build_request(
            model="claude-haiku-4-5", url="https://example.com/", prompt="again", content="page"
        ))  # fmt: skip
    assert len(inner.requests) == 1
