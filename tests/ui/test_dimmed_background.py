"""A dialog's dimmed background (`ui/patches/dimmed_background.py`): a change on the screen
behind renders only its lines again, no line is tinted twice (a second dialog over the same
screen tints nothing), and the lines are the ones Textual paints."""

from __future__ import annotations

from typing import Any

from app_helpers import wait_for
from textual._context import visible_screen_stack
from textual.app import App, ComposeResult
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from agent_tui.ui.patches import dimmed_background
from agent_tui.ui.screens.approval import ApprovalScreen
from tests.ui.test_approval import bash_request

SIZE = (100, 30)


class Ticker(Widget):
    """A line that changes without a layout (as a spinner or a tool's clock)."""

    DEFAULT_CSS = "Ticker { height: 1; }"
    ticks = 0

    def render(self) -> str:
        return f"[b]ticks[/b] {self.ticks}"

    def tick(self) -> None:
        self.ticks += 1
        self.refresh()


class Behind(App[None]):
    def compose(self) -> ComposeResult:
        for i in range(20):
            yield Static(f"line {i} of an [b]answer[/b] with `code` and [i]more[/i]")
        yield Ticker()
        yield Static("the last line", id="last")


def screen_lines(screen: Screen[Any]) -> list[list[Any]]:
    return [list(strip) for strip in screen._render_cache.lines]


def textual_lines(screen: Screen[Any]) -> list[list[Any]]:
    """What Textual's own `_render_content` renders for the screen now (all of it), with the
    screens behind it as a paint sees them (`visible_screen_stack`, set by the compositor)."""
    saved = screen._render_cache
    token = visible_screen_stack.set(list(screen.app._background_screens))
    try:
        dimmed_background._render_content(screen)
    finally:
        visible_screen_stack.reset(token)
    lines = screen_lines(screen)
    screen._render_cache = saved
    return lines


async def show_dialog(app: App[None], pilot: Any) -> ApprovalScreen:
    dialog = ApprovalScreen(bash_request("echo 1"), guard_s=0)
    app.push_screen(dialog)
    await wait_for(pilot, lambda: app.screen is dialog and bool(dialog._render_cache.lines))
    return dialog


class Tints:
    """Counts the segments Textual's tint is worked out for."""

    def __init__(self) -> None:
        self.segments = 0
        self.process = BackgroundScreen.__dict__["process_segments"]

    def __enter__(self) -> Tints:
        process = self.process.__func__

        def spy(cls: Any, segments: Any, color: Any) -> Any:
            for segment in process(cls, segments, color):
                self.segments += 1
                yield segment

        BackgroundScreen.process_segments = classmethod(spy)  # type: ignore[assignment,method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        BackgroundScreen.process_segments = self.process  # type: ignore[method-assign]


async def test_a_change_behind_the_dialog_tints_only_its_line() -> None:
    assert dimmed_background.apply()
    app = Behind()
    async with app.run_test(size=SIZE) as pilot:
        main = app.screen
        dialog = await show_dialog(app, pilot)
        painted: list[int] = []
        lines_of = dimmed_background.TintedLines.__init__

        def spy(self: Any, lines: Any, color: Any) -> None:
            painted.append(len(lines))
            lines_of(self, lines, color)

        dimmed_background.TintedLines.__init__ = spy  # type: ignore[method-assign]
        ticker = main.query_one(Ticker)
        line = ticker.region.y
        try:
            with Tints() as tints:
                for _ in range(3):
                    before = screen_lines(dialog)[line]
                    ticker.tick()
                    await wait_for(pilot, lambda b=before: screen_lines(dialog)[line] != b)  # type: ignore[misc]
        finally:
            dimmed_background.TintedLines.__init__ = lines_of  # type: ignore[method-assign]
        assert painted == [1, 1, 1]  # the ticker's line, not the 29 others again
        assert tints.segments == 0  # its styles were tinted for the first frame already
        assert screen_lines(dialog) == textual_lines(dialog)


async def test_a_change_behind_the_dialog_renders_only_its_line_of_that_screen() -> None:
    """The screen behind passes a changed region on once: it used to keep every region it ever
    passed on and send them all again with the next change, so the dialog rendered the whole
    screen behind it on every tick of a clock there."""
    assert dimmed_background.apply()
    app = Behind()
    async with app.run_test(size=SIZE) as pilot:
        main = app.screen
        dialog = await show_dialog(app, pilot)
        ticker = main.query_one(Ticker)
        ticker.tick()  # the first change after the dialog opened
        await wait_for(pilot, lambda: not dialog._dirty_regions and not main._repaint_regions)
        whole_renders: list[int] = []
        rows: list[int] = []
        compositor = main._compositor
        render_strips, render_chops = compositor.render_strips, compositor._render_chops

        def spy_strips(*args: Any) -> Any:
            whole_renders.append(1)
            return render_strips(*args)

        def spy_chops(crop: Any, is_rendered_line: Any) -> Any:
            rows.extend(y for y in range(main.size.height) if is_rendered_line(y))
            return render_chops(crop, is_rendered_line)

        compositor.render_strips = spy_strips  # type: ignore[method-assign]
        compositor._render_chops = spy_chops  # type: ignore[method-assign]
        line = ticker.region.y
        for _ in range(3):
            before = screen_lines(dialog)[line]
            ticker.tick()
            await wait_for(pilot, lambda b=before: screen_lines(dialog)[line] != b)  # type: ignore[misc]
        assert whole_renders == []  # the screen behind was not rendered in full again
        assert set(rows) == {line}  # only the ticker's line of it
        assert screen_lines(dialog) == textual_lines(dialog)
        dialog.dismiss()
        await wait_for(pilot, lambda: app.screen is main)
        assert main.query_one(Ticker).ticks == 4


async def test_the_dimmed_screen_is_textuals_after_changes_and_a_resize() -> None:
    assert dimmed_background.apply()
    app = Behind()
    async with app.run_test(size=SIZE) as pilot:
        dialog = await show_dialog(app, pilot)
        assert screen_lines(dialog) == textual_lines(dialog)
        last = app.screen_stack[0].query_one("#last", Static)
        last.update("the last line, [u]longer[/u] and [reverse]styled[/reverse] otherwise")
        await wait_for(pilot, lambda: screen_lines(dialog) == textual_lines(dialog))
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: len(dialog._render_cache.lines) == 24)
        assert screen_lines(dialog) == textual_lines(dialog)


async def test_a_second_dialog_over_the_same_screen_tints_nothing() -> None:
    assert dimmed_background.apply()
    app = Behind()
    async with app.run_test(size=SIZE) as pilot:
        first = await show_dialog(app, pilot)
        first.dismiss()
        await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalScreen))
        with Tints() as tints:
            second = await show_dialog(app, pilot)
        assert tints.segments == 0
        assert screen_lines(second) == textual_lines(second)
