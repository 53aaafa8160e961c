"""The collector settings of long sessions: painted lines are not reference cycles, a strip
makes its caches when it needs them, a reflow leaves no cycle, and full collections run every
few turns in the idle moment after one."""

from __future__ import annotations

import gc

import pytest
from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widgets import Static

from agent_tui.speedups import compositor_arrange, strip_lazy_caches, strip_self_cache
from agent_tui.ui.startup import gc_tuning


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
    strip_self_cache._divide(strip, [strip.cell_length])
    assert refers_back(strip)  # why the fix exists: Textual caches [self] in self


def test_a_strip_divided_or_cropped_whole_is_freed_without_the_collector() -> None:
    assert strip_self_cache.apply()
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


def test_a_strip_makes_its_caches_on_first_use() -> None:
    assert strip_lazy_caches.slots_fit()  # a Textual that changes Strip's slots: look again
    assert strip_lazy_caches.apply()
    strip = Strip([Segment("hello "), Segment("world")])
    slots = {name: Strip.__dict__[name].slot for name in strip_lazy_caches.CACHE_SIZES}
    assert all(not _has(slot, strip) for slot in slots.values())  # none made yet
    cropped = strip.crop(0, 5)
    assert cropped.text == "hello" and strip.crop(0, 5) is cropped  # made, used, cached
    assert _has(slots["_crop_cache"], strip) and strip._crop_cache._maxsize == 16
    assert not any(_has(slot, cropped) for slot in slots.values())  # the crop made none
    assert strip.divide([6, 11])[1].text == "world"


def _has(slot: object, strip: Strip) -> bool:
    try:
        slot.__get__(strip, Strip)  # type: ignore[attr-defined]
    except AttributeError:
        return False
    return True


class Panes(App[None]):
    def compose(self) -> ComposeResult:
        for n in range(20):
            yield Static(f"pane {n}")


async def test_a_reflow_leaves_no_cycle_to_collect() -> None:
    assert compositor_arrange.apply() and compositor_arrange.applied()
    app = Panes()
    async with app.run_test(size=(40, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        gc.collect()
        gc.disable()
        try:
            mapped, _ = screen._compositor._arrange_root(screen, screen.size)
            assert len(mapped) > 20  # the screen and its panes were placed
            del mapped
            assert gc.collect() == 0  # nothing left for the collector
            # why the fix exists: Textual's own leaves its map to the collector
            compositor_arrange._arrange(screen._compositor, screen, screen.size)
            assert gc.collect() > 20
        finally:
            gc.enable()


def test_full_collections_fall_due_every_few_turns_and_run_overdue_at_a_turns_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs: list[bool] = []
    frozen: list[bool] = []
    collector = gc_tuning.IdleCollector(every=3, overdue=2)
    monkeypatch.setattr(gc, "collect", lambda *a: runs.append(collector.collecting) or 0)
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    monkeypatch.setattr(gc_tuning, "_frozen", set())
    due = [collector.after_turn() for _ in range(6)]
    # the first turn: what it loaded is frozen (after a collection); due from the third turn,
    # for the app to run at a pause; not run by the fifth (no pause came), it runs at its end
    assert frozen == [True] and runs == [True, True] and not collector.collecting
    assert due == [False, False, True, True, False, False]
    assert collector.after_turn() is False and collector.after_turn() is True
    collector.collect()  # the pause came
    assert runs == [True, True, True] and not collector.due


def test_start_up_collects_nothing_young_until_the_app_tunes_the_collector(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    thresholds: list[tuple[int, ...]] = []
    monkeypatch.setattr(gc, "set_threshold", lambda *t: thresholds.append(t))
    monkeypatch.setattr(gc, "get_freeze_count", lambda: 0)  # a fresh process
    gc_tuning.for_startup()
    assert thresholds == [(gc_tuning.STARTUP_THRESHOLD, 10, 1_000_000)]
    monkeypatch.setattr(gc, "get_freeze_count", lambda: 50_000)  # an app has tuned it already
    gc_tuning.for_startup()
    assert len(thresholds) == 1


def test_the_entry_point_quiets_the_collector_until_tuning_frees_what_start_up_left() -> None:
    import subprocess
    import sys

    code = (
        "import gc, weakref; default = gc.get_threshold()[0]; import agent_tui.ui.app\n"
        "untouched = gc.get_threshold()[0] == default\n"  # importing the UI changes nothing
        "from agent_tui.ui.startup.gc_tuning import for_startup, tune_gc; for_startup()\n"
        "before = gc.get_threshold()[0]\n"
        "class Node: pass\n"
        "cycle = Node(); cycle.me = cycle; left = weakref.ref(cycle); del cycle\n"
        "tune_gc()\n"
        "print(untouched, before, gc.get_threshold()[0], left() is None)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # Start-up's garbage is collected before what start-up made is frozen, not frozen with it.
    assert done.stdout.split() == [
        "True",
        str(gc_tuning.STARTUP_THRESHOLD),
        str(gc_tuning.YOUNG_THRESHOLD),
        "True",
    ]


def test_the_imports_are_frozen_uncollected_and_tuning_still_frees_what_start_up_left() -> None:
    """`freeze_imports` (the entry point, after the UI's imports) takes the modules' objects out
    of the generations, so `tune_gc`'s one collection walks only what came after them; that
    collection still frees the start-up garbage made after the freeze."""
    import subprocess
    import sys

    code = (
        "import gc, weakref\n"
        "from agent_tui.ui.startup.gc_tuning import for_startup, freeze_imports, tune_gc\n"
        "for_startup(); import agent_tui.ui.app\n"
        "freeze_imports(); imports = gc.get_freeze_count()\n"
        "freeze_imports(); again = gc.get_freeze_count() == imports\n"  # once a process
        "class Node: pass\n"
        "cycle = Node(); cycle.me = cycle; left = weakref.ref(cycle); del cycle\n"
        "tune_gc()\n"
        "print(imports > 20_000, again, left() is None, gc.get_freeze_count() > imports)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "True", "True", "True"]


def test_the_command_line_asks_the_app_to_tune_the_collector(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The collector's settings are the entry point's: `agent-tui` asks for them, an app made
    elsewhere (a test, an embedding) leaves the process's collector alone."""
    from agent_tui import cli
    from agent_tui.ui import app as app_module

    made: list[bool] = []

    class Recorded(app_module.AgentApp):
        def run(self, *args: object, **kwargs: object) -> None:
            made.append(self.tune_collector)

    monkeypatch.setattr(app_module, "AgentApp", Recorded)
    monkeypatch.setattr(gc_tuning, "for_startup", lambda: made.append(False))
    import sys

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert cli.main(["--offline"]) == 0
    assert made == [False, True]
