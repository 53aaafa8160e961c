"""A due full collection waits for the person's pause: not at the turn's end, not while keys are
typed or pasted or the terminal resized, not while a dialog is open or a turn runs, and the
pause counts from the last of them; then it runs once, in a callback of its own. The app's clock
is the test's (`Clock`), and each step waits for the collector to have looked again (`looked`),
so how slow the machine is decides nothing."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from app_helpers import make_app, wait_for
from textual import events
from textual.screen import ModalScreen

from agent_tui.runtime import Options
from agent_tui.ui.app import AgentApp
from agent_tui.ui.controllers.quiet_collect import QuietCollection
from agent_tui.ui.startup import gc_tuning
from agent_tui.ui.widgets.prompt import PromptInput

pytestmark = pytest.mark.usefixtures("offline_env")

#: the pause, in the test's clock; in real time, how often a pending check looks again
QUIET_S = 0.125  # a binary fraction: the sums below are exact


class Clock:
    """The app's clock, which the test moves; the collector it runs (due at once), the times
    of its full collections and of each look it took."""

    def __init__(self) -> None:
        self.now = 1024.0
        self.collector = gc_tuning.IdleCollector(every=1, overdue=100)
        self.collector.turns = 1  # past the first turn's freeze (once a process)
        self.collected: list[float] = []
        self.looks: list[float] = []

    def __call__(self) -> float:
        return self.now

    def quiet(self, app: Any, host: Any) -> QuietCollection:
        quiet = QuietCollection(app, host, self.collector, quiet_s=QUIET_S, clock=self)
        check = quiet._check

        def looking() -> None:
            self.looks.append(self.now)
            check()

        quiet._check = looking  # type: ignore[method-assign]
        return quiet


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Full collections are noted, not run: the test's process keeps its collector as it is."""
    clock = Clock()

    def collect(*generation: int) -> int:
        if not generation and clock.collector.collecting:  # ours, not a young one
            clock.collected.append(clock.now)
        return 0

    monkeypatch.setattr(gc_tuning.gc, "collect", collect)
    return clock


async def looked(pilot: Any, clock: Clock, times: int = 2) -> None:
    """Wait until the collector has looked again `times` times (real time, real timers)."""
    seen = len(clock.looks)
    await wait_for(pilot, lambda: len(clock.looks) >= seen + times)


async def test_a_due_collection_waits_for_the_person_to_pause(tmp_path: Path, clock: Clock) -> None:
    collected = clock.collected
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        # as with the collector tuned (`cli.main`), which a test's process is not
        app.quiet_collect = quiet = clock.quiet(app, app)
        app.query_one(PromptInput).post_message(PromptInput.Submitted("hello"))
        await wait_for(pilot, lambda: clock.collector.due)  # the turn ended, its answer painted
        assert quiet.active_at == clock.now  # the pause counts from the turn's end
        await looked(pilot, clock)
        assert collected == []
        # the person types, pastes, resizes: each moves the pause on
        for key in "abc":
            clock.now += QUIET_S / 2
            await pilot.press(key)
            assert quiet.active_at == clock.now
        clock.now += QUIET_S / 2
        app.post_message(events.Paste("pasted"))
        await wait_for(pilot, lambda: quiet.active_at == clock.now)
        clock.now += QUIET_S / 2
        await pilot.resize_terminal(90, 30)
        assert quiet.active_at == clock.now
        await looked(pilot, clock)
        assert collected == []
        # a dialog open: however long it stays, nothing; the pause counts from when it closed
        await app.push_screen(ModalScreen[None]())
        clock.now += 10 * QUIET_S
        await looked(pilot, clock)
        assert collected == []
        app.pop_screen()
        await looked(pilot, clock)
        closed = clock.now
        assert quiet.active_at == closed and collected == []
        clock.now += QUIET_S / 2
        await looked(pilot, clock, 1)
        assert collected == []
        clock.now += QUIET_S / 2
        await wait_for(pilot, lambda: bool(collected))
        assert collected == [closed + QUIET_S] and not clock.collector.due
        assert not quiet.waiting  # once: nothing more is pending


async def test_a_collection_due_while_a_turn_runs_waits_a_pause_after_its_end(
    tmp_path: Path, clock: Clock
) -> None:
    collected = clock.collected
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        turns = SimpleNamespace(running=True)  # the next prompt's turn runs
        host = SimpleNamespace(turns=turns, shortcuts=app.shortcuts, sessions=app.sessions)
        quiet = clock.quiet(app, host)
        quiet.after_turn()
        assert clock.collector.due and quiet.quiet_left() == QUIET_S
        clock.now += 10 * QUIET_S
        await looked(pilot, clock)
        assert collected == []
        turns.running = False
        await looked(pilot, clock, 1)  # seen ended: the pause counts from then
        ended = clock.now
        assert quiet.active_at == ended
        clock.now += QUIET_S / 2
        await looked(pilot, clock, 1)
        assert collected == []
        clock.now += QUIET_S / 2
        await wait_for(pilot, lambda: bool(collected))
        assert collected == [ended + QUIET_S]


def test_the_app_waits_for_pauses_only_with_the_collector_its_own(tmp_path: Path) -> None:
    tuned = AgentApp(Options(cwd=tmp_path), tune_collector=True)
    assert tuned.quiet_collect is not None
    assert tuned.quiet_collect.collector is gc_tuning.idle_collector
    assert AgentApp(Options(cwd=tmp_path)).quiet_collect is None
