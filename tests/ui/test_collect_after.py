"""The one hold on the collector (`speedups/collect_after.py`) that a streaming step and a
resize share: collections wait until every hold is released, and a collector switched off elsewhere
stays off."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from agent_tui.speedups import collect_after


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    assert gc.isenabled()
    yield
    gc.enable()


def test_the_collector_runs_again_once_every_hold_is_released() -> None:
    resize, step = object(), object()
    assert collect_after.hold(resize) and collect_after.hold(step)
    collect_after.release(resize)
    assert not gc.isenabled()  # the step's hold is still on
    collect_after.release(resize)  # released twice: nothing more
    assert not gc.isenabled()
    collect_after.release(step)
    assert gc.isenabled()


def test_a_collector_switched_off_elsewhere_is_left_off() -> None:
    gc.disable()
    owner = object()
    assert not collect_after.hold(owner)
    collect_after.release(owner)
    assert not gc.isenabled()


async def test_a_collection_due_inside_the_block_runs_right_after_it() -> None:
    import asyncio

    ran: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            ran.append(info["generation"])

    gc.callbacks.append(seen)
    try:
        with collect_after.collections_after():
            kept = [[] for _ in range(gc.get_threshold()[0] * 2)]  # made it due
            assert ran == [] and not gc.isenabled()
        await asyncio.sleep(0)  # the loop's next turn
        assert gc.isenabled() and ran and len(kept) > 0
    finally:
        gc.callbacks.remove(seen)


async def test_until_next_turn_holds_the_collector_for_the_rest_of_this_step() -> None:
    import asyncio

    collect_after.until_next_turn()
    assert not gc.isenabled()  # the rest of this step: a handler that runs after the caller's
    await asyncio.sleep(0)  # the loop's next turn
    assert gc.isenabled()
