"""The per-hunk approval dialog in a small terminal: the selected hunk is always in view."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from app_helpers import wait_for
from textual.errors import NoWidget
from textual.widget import Widget
from textual.widgets import Static

from agent_tui.diffs import hunks
from agent_tui.permissions.types import ApprovalAnswer
from agent_tui.ui.screens.approval import ApprovalScreen

from .test_approval import DialogApp, dialog, edit_request

SMALL = (80, 24)


def hunk_texts(count: int, *, tall: int | None = None) -> tuple[str, ...]:
    """`count` hunks of a real diff, 12 lines apart; hunk `tall` changes 30 lines instead of 1."""
    old = [f"line {i}" for i in range(count * 12 + 40)]
    new = list(old)
    for n in reversed(range(count)):  # from the end: an insertion moves what follows
        at = n * 12 + 5
        if n == tall:
            new[at : at + 1] = [f"inserted {k}" for k in range(30)]
        else:
            new[at] = f"changed {at}"
    return tuple(h.text for h in hunks("\n".join(old) + "\n", "\n".join(new) + "\n"))


def hunk_dialog(texts: tuple[str, ...]) -> tuple[DialogApp, ApprovalScreen]:
    screen = dialog(replace(edit_request(), hunks=texts))
    return DialogApp(screen), screen


def on_screen(screen: ApprovalScreen, widget: Widget, y: int) -> bool:
    """Whether line y of the screen really shows the widget there: inside the scrolling body,
    not under the docked footer or the head."""
    inside = screen.query_one("#body").scrollable_content_region
    if not inside.y <= y < inside.bottom:
        return False
    try:
        return screen.get_widget_at(widget.region.x, y)[0] is widget
    except NoWidget:
        return False


def shown(screen: ApprovalScreen, widget: Widget) -> bool:
    """Whether the widget's first line is on screen."""
    return bool(widget.region) and on_screen(screen, widget, widget.region.y)


def parts(screen: ApprovalScreen, n: int) -> tuple[Static, Static]:
    titles = list(screen.query(".hunk-title").results(Static))
    bodies = list(screen.query(".hunk").results(Static))
    return titles[n], bodies[n]


def last_line_shown(screen: ApprovalScreen, widget: Widget) -> bool:
    return bool(widget.region) and on_screen(screen, widget, widget.region.bottom - 1)


def whole_hunk_shown(screen: ApprovalScreen, n: int) -> bool:
    title, body = parts(screen, n)
    return shown(screen, title) and last_line_shown(screen, body)


async def test_the_selected_hunk_is_scrolled_into_view_at_80x24() -> None:
    texts = hunk_texts(8)
    app, screen = hunk_dialog(texts)
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: shown(screen, parts(screen, 0)[0]))
        # opened: the path stays in view above the first hunk (no scrolling it away)
        assert shown(screen, screen.query_one("#subject"))
        for n in range(1, len(texts)):
            await pilot.press("down")
            # the whole hunk fits in the view: its title and its last line are both on screen
            await wait_for(pilot, lambda n=n: whole_hunk_shown(screen, n))
        await pilot.press("space")
        await wait_for(pilot, lambda: "leave out" in str(parts(screen, 7)[0].render()))
        assert shown(screen, parts(screen, 7)[0])
        await pilot.press("up")
        await wait_for(pilot, lambda: shown(screen, parts(screen, 6)[0]))
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(app.answers))
        assert app.answers == [ApprovalAnswer("once", hunks=tuple(range(7)))]


async def test_a_hunk_taller_than_the_view_shows_its_start() -> None:
    texts = hunk_texts(4, tall=2)
    app, screen = hunk_dialog(texts)
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: shown(screen, parts(screen, 0)[0]))
        await pilot.press("down", "down")
        title, body = parts(screen, 2)
        assert body.region.height > screen.query_one("#body").scrollable_content_region.height
        await wait_for(pilot, lambda: shown(screen, title))
        # and its diff starts right under the title
        assert screen.get_widget_at(body.region.x, body.region.y)[0] is body
        await pilot.press("down")
        await wait_for(pilot, lambda: shown(screen, parts(screen, 3)[0]))
        await pilot.press("up")
        await wait_for(pilot, lambda: shown(screen, title))


async def test_the_selected_hunk_stays_in_view_when_the_terminal_shrinks() -> None:
    texts = hunk_texts(8)
    app, screen = hunk_dialog(texts)
    async with app.run_test(size=(120, 60)) as pilot:
        await pilot.press(*["down"] * 5)
        await wait_for(pilot, lambda: shown(screen, parts(screen, 5)[0]))
        await pilot.resize_terminal(*SMALL)
        await wait_for(pilot, lambda: shown(screen, parts(screen, 5)[0]))


def test_snapshot_a_lower_hunk_selected_at_80x24(snap_compare: Any) -> None:
    app, _ = hunk_dialog(hunk_texts(8))

    async def select(pilot: Any) -> None:
        await pilot.press(*["down"] * 5, "space")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SMALL, run_before=select)
