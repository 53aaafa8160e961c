"""No collection starts inside a screen's paint (speedups/screen_paint_collect_after.py): one that
falls due runs right after it, in a callback of its own; the first frame's screen, made before the
patches are checked, is covered as well; until the check the wrapper is Textual's own method."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest
from app_helpers import wait_for
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from agent_tui.speedups import guard
from agent_tui.speedups import screen_paint_collect_after as patch


class Counter(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("0", id="n")


class Watch:
    """Screen paints (each allocating enough to make a collection due) and the collections that
    started inside one."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.inside = False
        self.paints = 0
        self.collected: list[int] = []
        self.collected_inside: list[int] = []
        self.kept: list[list[object]] = []
        original = patch._original

        def painted(screen: Screen[Any]) -> None:
            self.inside = True
            try:
                original(screen)
                self.kept = [[] for _ in range(50)]  # a collection is due
                self.paints += 1
            finally:
                self.inside = False

        monkeypatch.setattr(patch, "_original", painted)

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.collected.append(info["generation"])
            if self.inside:
                self.collected_inside.append(info["generation"])


@pytest.fixture
def collecting_often() -> Iterator[None]:
    thresholds = gc.get_threshold()
    gc.set_threshold(10, 10, 1_000_000)  # due every few allocations
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.enable()


async def paint_a_few(app: App[None], watch: Watch) -> None:
    """(`wait_for`'s pauses paint too, from the test's task: the collector is checked after.)"""
    gc.callbacks.append(watch.on_gc)
    try:
        async with app.run_test(size=(40, 10)) as pilot:
            for n in range(1, 4):
                painted = watch.paints
                app.query_one("#n", Static).update(str(n))
                await wait_for(pilot, lambda p=painted: watch.paints > p)
            watch.collected.clear()
            await wait_for(pilot, lambda: bool(watch.collected))  # collections go on after
    finally:
        gc.callbacks.remove(watch.on_gc)


@pytest.mark.usefixtures("collecting_often")
async def test_no_collection_starts_inside_a_screen_s_paint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert patch.apply() and patch.applied()
    watch = Watch(monkeypatch)
    await paint_a_few(Counter(), watch)
    assert watch.paints >= 3
    assert watch.collected_inside == []
    assert gc.isenabled()


@pytest.mark.usefixtures("collecting_often")
async def test_the_first_frame_s_screen_is_covered_once_the_patch_is_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The app installs the wrapper before its first screen exists (that screen's update timer
    keeps the method it found); the check comes after the first frame and turns it on."""
    from agent_tui.ui.app import AgentApp

    monkeypatch.setattr(patch, "_fits", [])  # not checked yet in this "process"
    monkeypatch.setattr(guard, "verdicts", {})
    monkeypatch.setattr(Screen, "_on_timer_update", patch._original)
    AgentApp()
    assert Screen._on_timer_update is patch._on_timer_update  # installed, inert
    watch = Watch(monkeypatch)
    app = Counter()
    gc.callbacks.append(watch.on_gc)
    try:
        async with app.run_test(size=(40, 10)) as pilot:
            await wait_for(pilot, lambda: watch.paints > 0)  # the first frame: timer made
            timer_calls = app.screen._update_timer._callback
            assert getattr(timer_calls, "__func__", None) is patch._on_timer_update
            assert patch.apply()
            watch.collected_inside.clear()  # before the check, collections could start inside
            for n in range(1, 4):
                painted = watch.paints
                app.query_one("#n", Static).update(str(n))
                await wait_for(pilot, lambda p=painted: watch.paints > p)
    finally:
        gc.callbacks.remove(watch.on_gc)
    assert watch.collected_inside == []


@pytest.mark.usefixtures("collecting_often")
async def test_until_checked_the_wrapper_is_textual_s_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(patch, "_fits", [])
    monkeypatch.setattr(Screen, "_on_timer_update", patch._original)
    patch.install()
    watch = Watch(monkeypatch)
    await paint_a_few(Counter(), watch)
    assert watch.collected_inside != []  # collections start inside, as with Textual's method
