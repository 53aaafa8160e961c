"""The spending cap in the TUI: a request the cap can't pay for waits for the person — raise the
cap for this session (y), or stop (n, and nothing is sent) — with amounts at the status line's
precision; a resumed session's status line and cap count what it had spent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from app_helpers import make_app, type_prompt, wait_for

from agent_tui.protocol.events import Usage
from agent_tui.ui.chat.messages import AssistantMessage, NoticeMessage
from agent_tui.ui.screens.confirm import ConfirmScreen

pytestmark = pytest.mark.usefixtures("offline_env", "priced_offline")


@pytest.fixture
def priced_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """The offline model is free; here it is billed like a Sonnet, so the cap has work to do."""
    import agent_tui.agent.cost as cost
    import agent_tui.agent.preflight as preflight

    real = cost.price_for

    def price_for(model: str) -> Any:
        return real("claude-sonnet-4-5" if model == "offline" else model)

    monkeypatch.setattr(cost, "price_for", price_for)
    monkeypatch.setattr(preflight, "price_for", price_for)


async def test_no_stops_and_sends_nothing(tmp_path: Path) -> None:
    app = make_app(tmp_path, max_cost=0.0001)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        sent: list[object] = []
        inner = app.agent.provider.inner
        real = inner.stream
        inner.stream = lambda request: (sent.append(request), real(request))[1]  # type: ignore[method-assign]
        await type_prompt(pilot, "hello")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = app.screen.question  # type: ignore[attr-defined]
        assert "spent $0.0000 of its $0.0001 spending cap" in question
        assert "Raise the cap to $" in question
        # what n does, in words (was "(No stops here; nothing is sent.)")
        assert question.endswith("If not, the turn stops here and the request is not sent.")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.status.activity == "ready")
        notices = [str(n.render()) for n in app.query(NoticeMessage)]
        assert any("Spending cap reached" in t for t in notices)
        assert sent == [] and not app.query(AssistantMessage)
        assert app.agent.messages == []  # the refused prompt is not sent with the next one


async def test_yes_raises_the_cap_for_this_session(tmp_path: Path) -> None:
    app = make_app(tmp_path, max_cost=0.0001)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await type_prompt(pilot, "hello")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(app.query(AssistantMessage)))
        await wait_for(pilot, lambda: app.status.activity == "ready")
        assert app.agent is not None and (app.agent.config.max_cost or 0) > 0.0001
        notices = [str(n.render()) for n in app.query(NoticeMessage)]
        assert any("Spending cap raised to $" in t and "for this session" in t for t in notices)


async def test_a_resumed_session_counts_what_it_had_spent(tmp_path: Path) -> None:
    from agent_tui.sessions.store import SessionStore

    # an earlier run's session, as the store keeps it: a turn that cost $0.0123
    store = SessionStore.open_default()
    work = tmp_path / "work"
    work.mkdir()
    session = store.sessions.create(work, "offline")
    store.messages.add(session, "user", [{"type": "text", "text": "hello"}])
    store.messages.add(session, "assistant", [{"type": "text", "text": "hi"}])
    store.turns.record(session, Usage(input_tokens=2000, output_tokens=420), 0.0123)
    store.close()
    again = make_app(tmp_path, record=True, continue_=True, max_cost=0.0124)
    async with again.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: again.agent is not None and again.agent.messages != [])
        assert again.agent is not None
        assert again.agent.session_cost == pytest.approx(0.0123)
        assert again.agent.budget.spent == pytest.approx(0.0123)
        await wait_for(pilot, lambda: again.status.cost == pytest.approx(0.0123))
        await type_prompt(pilot, "hello again")
        # the cap counts the earlier run: what is left pays for nothing, so it asks
        await wait_for(pilot, lambda: isinstance(again.screen, ConfirmScreen))
        assert "spent $0.0123 of its $0.0124 spending cap" in again.screen.question  # type: ignore[attr-defined]
        await pilot.press("n")
        await wait_for(pilot, lambda: again.status.activity == "ready")
