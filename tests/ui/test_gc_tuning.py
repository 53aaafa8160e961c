"""The collector settings of long sessions: painted lines are not reference cycles, and full
collections run every few turns in the idle moment after one."""

from __future__ import annotations

import gc

import pytest
from rich.segment import Segment
from textual.strip import Strip

from agent_tui.ui import gc_tuning, textual_fixes


def refers_back(obj: object, depth: int = 4) -> bool:
    """Whether `obj` can reach itself in `depth` steps through what it refers to."""
    seen: set[int] = set()
    frontier = list(gc.get_referents(obj))
    for _ in range(depth):
        if any(x is obj for x in frontier):
            return True
        nxt = []
        for x in frontier:
            if id(x) not in seen and not isinstance(x, str | int | type):
                seen.add(id(x))
                nxt.extend(gc.get_referents(x))
        frontier = nxt
    return False


def test_unpatched_textual_would_cycle() -> None:
    strip = Strip([Segment("abc")])
    textual_fixes._divide(strip, [strip.cell_length])
    assert refers_back(strip)  # why the fix exists: Textual caches [self] in self


def test_a_strip_divided_or_cropped_whole_is_freed_without_the_collector() -> None:
    textual_fixes.apply()
    strip = Strip([Segment("hello "), Segment("world")])
    assert strip.divide([strip.cell_length]) == [strip]
    assert strip.crop_extend(0, strip.cell_length, None) is strip
    # nothing the strip caches refers back to it, so dropping it frees it at once
    assert not refers_back(strip)
    # the real work still happens (and is cached) when there is something to do
    halves = strip.divide([6, strip.cell_length])
    assert [h.text for h in halves] == ["hello ", "world"]
    assert strip.crop_extend(0, 14, None).cell_length == 14
    assert strip.crop_extend(6, 11, None).text == "world"


def test_full_collections_run_every_few_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[bool] = []
    collector = gc_tuning.IdleCollector(every=3)
    monkeypatch.setattr(gc, "collect", lambda *a: runs.append(collector.collecting) or 0)
    for _ in range(7):
        collector.after_turn()
    assert runs == [True, True] and not collector.collecting
