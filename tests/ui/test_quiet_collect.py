"""A due full collection waits for the person's pause: not at the turn's end, not while keys are
typed, the terminal resized, a dialog is open or a turn runs; then once, in a callback of its
own."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from app_helpers import make_app, wait_for
from textual.screen import ModalScreen

from agent_tui.ui.controllers.quiet_collect import QuietCollection
from agent_tui.ui.startup import gc_tuning
from agent_tui.ui.widgets.prompt import PromptInput

pytestmark = pytest.mark.usefixtures("offline_env")

QUIET_S = 0.4


async def test_a_due_collection_waits_for_the_person_to_pause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    collected: list[float] = []

    def collect(*generation: int) -> int:
        if not generation:  # a full collection (the young ones are `speedups.collect_after`'s)
            collected.append(time.monotonic())
        return 0

    monkeypatch.setattr(gc_tuning.gc, "collect", collect)
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        collector = gc_tuning.IdleCollector(every=1, overdue=100)
        collector.turns = 1  # past the first turn's freeze (once a process)
        # as with the collector tuned (`cli.main`), which a test's process is not
        app.quiet_collect = QuietCollection(app, app, collector, quiet_s=QUIET_S)
        prompt = app.query_one(PromptInput)
        prompt.post_message(PromptInput.Submitted("hello"))
        await wait_for(pilot, lambda: collector.due)  # the turn ended, its answer painted
        # the person types the next prompt: nothing is collected while they do
        typed_until = time.monotonic() + 3 * QUIET_S
        while time.monotonic() < typed_until:
            await pilot.press("x")
            await pilot.pause(QUIET_S / 4)
        last_key = app.quiet_collect.input_at
        assert collected == [] and last_key is not None
        await pilot.resize_terminal(90, 30)  # the terminal resized counts as the person's too
        last_input = app.quiet_collect.input_at
        assert last_input is not None and last_input > last_key
        # a dialog open: still nothing, however long it stays
        await app.push_screen(ModalScreen[None]())
        await pilot.pause(2 * QUIET_S)
        assert collected == []
        app.pop_screen()
        await wait_for(pilot, lambda: bool(collected), timeout=10)
        assert len(collected) == 1 and not collector.due
        assert collected[0] >= last_input + QUIET_S
        await pilot.pause(2 * QUIET_S)
        assert len(collected) == 1  # once


async def test_a_collection_due_while_a_turn_runs_waits_for_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    collected: list[bool] = []
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        collector = gc_tuning.IdleCollector(every=1, overdue=100)
        collector.turns = 1
        turns = SimpleNamespace(running=True)  # a turn of the next prompt runs
        host = SimpleNamespace(turns=turns, shortcuts=app.shortcuts, sessions=app.sessions)
        quiet = QuietCollection(app, host, collector, quiet_s=QUIET_S)

        def collect(*generation: int) -> int:
            if not generation:  # a full collection
                collected.append(turns.running)
            return 0

        monkeypatch.setattr(gc_tuning.gc, "collect", collect)
        quiet.after_turn()
        assert collector.due and quiet.quiet_left() == QUIET_S
        await pilot.pause(3 * QUIET_S)
        assert collected == []
        turns.running = False
        await wait_for(pilot, lambda: bool(collected), timeout=10)
        assert collected == [False] and not collector.due
