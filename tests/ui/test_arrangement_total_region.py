"""`patches/arrangement_total_region`: an arrangement's total region is had without filling its
spatial grid (a reflow asked every container for it, and each grid was as tall as the content);
the grid, filled when a query needs it, answers as Textual's own does."""

from __future__ import annotations

import random
from typing import Any

import pytest
from textual._spatial_map import SpatialMap
from textual.geometry import NULL_SPACING, Offset, Region, Spacing
from textual.layout import DockArrangeResult, WidgetPlacement
from textual.widget import Widget

from agent_tui.speedups import arrangement_total_region
from tests.ui.test_chat_parking import ChatApp, streaming_answer


@pytest.fixture(autouse=True)
def _patched() -> None:
    assert arrangement_total_region.apply() and arrangement_total_region.applied()


def placements(seed: int) -> list[WidgetPlacement]:
    rng = random.Random(seed)
    widget = Widget()
    found = []
    for _ in range(rng.randint(0, 30)):
        region = Region(
            rng.randint(-5, 80), rng.randint(-5, 900), rng.randint(0, 90), rng.randint(0, 300)
        )
        margin = (
            Spacing(*(rng.randint(0, 3) for _ in range(4))) if rng.random() < 0.3 else NULL_SPACING
        )
        offset = Offset(rng.randint(0, 4), rng.randint(0, 4)) if rng.random() < 0.2 else Offset()
        fixed, overlay = rng.random() < 0.1, rng.random() < 0.1
        found.append(WidgetPlacement(region, offset, margin, widget, 0, fixed, overlay))
    return found


def textual_map(arrangement: DockArrangeResult) -> SpatialMap[Any]:
    """The map Textual's own `spatial_map` builds."""
    spatial = SpatialMap[Any]()
    spatial.insert(
        (p.region.grow(p.margin), p.offset, p.fixed, p.overlay, p) for p in arrangement.placements
    )
    return spatial


@pytest.mark.parametrize("seed", range(40))
def test_the_total_region_and_the_visible_placements_are_textual_s(seed: int) -> None:
    spacing = Spacing(0, seed % 3, seed % 2, 0)
    arrangement = DockArrangeResult(placements(seed), set(), spacing)
    textual = textual_map(arrangement)
    total = arrangement.total_region
    spatial = arrangement.spatial_map
    assert isinstance(spatial, arrangement_total_region.DeferredSpatialMap)
    assert spatial.filled == 0  # the total region without the grid
    assert total == textual.total_region.grow((0, spacing.right, spacing.bottom, 0))
    rng = random.Random(seed)
    for _ in range(5):
        window = Region(
            rng.randint(0, 50), rng.randint(0, 800), rng.randint(1, 120), rng.randint(1, 60)
        )
        assert spatial.get_values_in_region(window) == textual.get_values_in_region(window)
    assert spatial.filled == 1  # once, at the first query
    assert spatial.total_region == textual.total_region


async def test_a_layout_of_a_long_streaming_answer_fills_no_grid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each layout asked the chat's and the answer's arrangements for their total region, and
    each filled a grid as tall as the answer (its cost grew with the answer, once a frame)."""
    filled: list[int] = []
    insert = SpatialMap.insert

    def counted(self: SpatialMap[Any], entries: Any) -> None:
        filled.append(1)
        insert(self, entries)

    monkeypatch.setattr(SpatialMap, "insert", counted)
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view, answer, text = await streaming_answer(app, 4)
        while answer.text != text or answer._pending:
            await pilot.pause()
        await pilot.pause()
        assert view.virtual_size.height > 10 * view.size.height  # a tall answer
        screen = app.screen
        for n in range(5):  # a layout as each streamed delta asks for one
            answer.write(f"More words {n}.\n\n")
            await pilot.pause()
            answer._live_view.refresh(layout=True)
            filled.clear()
            screen._refresh_layout(screen.size)
            assert filled == []
        await answer.finish()
        assert answer.text.startswith(text)
