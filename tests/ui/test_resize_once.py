"""A terminal resize lays the screen out once (patches/screen_resize_once.py): the screen's own
Resize, coming back from that layout, doesn't lay everything out again at the same size."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from agent_tui.ui.patches import screen_resize_once


class Panes(App[None]):
    def compose(self) -> ComposeResult:
        for n in range(5):
            yield Static(f"pane {n}")


def count_layouts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    sizes: list[tuple[int, int]] = []
    original = screen_resize_once._original

    def counted(screen: Screen[Any], size: Any) -> None:
        sizes.append(tuple(size))
        original(screen, size)

    monkeypatch.setattr(screen_resize_once, "_original", counted)
    return sizes


async def test_a_resize_lays_the_screen_out_once_at_the_new_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert screen_resize_once.apply() and screen_resize_once.applied()
    layouts = count_layouts(monkeypatch)
    app = Panes()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        layouts.clear()
        await pilot.resize_terminal(100, 30)
        await pilot.pause(0.1)
        assert layouts == [(100, 30)]  # Textual's own: [(100, 30), (100, 30)]
        assert all(pane.size.width == 100 for pane in app.query(Static))
        await pilot.resize_terminal(60, 20)
        await pilot.pause(0.1)
        assert layouts == [(100, 30), (60, 20)]
        assert all(pane.size.width == 60 for pane in app.query(Static))


async def test_a_same_size_resize_still_lays_out_what_waits_for_a_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert screen_resize_once.apply()
    layouts = count_layouts(monkeypatch)
    app = Panes()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        layouts.clear()
        pane = app.query(Static).first()
        app.screen._layout_widgets[pane] = set()  # a widget that asked for a layout
        app.screen._screen_resized(app.screen._compositor.size)
        assert layouts == [(80, 24)]
