"""A terminal resize lays the screen out once (patches/screen_resize_once.py): the screen's own
Resize, coming back from that layout, doesn't lay everything out again at the same size."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from app_helpers import wait_for
from textual.app import App, ComposeResult
from textual.events import Resize
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Static

from agent_tui.speedups import screen_resize_once


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
        await wait_for(pilot, lambda: layouts)  # the resize's layout...
        await pilot.pause()  # ...and whatever it sets going, until the app is idle
        assert layouts == [(100, 30)]  # Textual's own: [(100, 30), (100, 30)]
        assert all(pane.size.width == 100 for pane in app.query(Static))
        await pilot.resize_terminal(60, 20)
        await wait_for(pilot, lambda: len(layouts) > 1)
        await pilot.pause()
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


async def test_a_resize_paints_in_a_callback_after_its_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The layout of a resize and the paint of it are two event-loop callbacks (each 15-30 ms
    with a long chat on screen), and the new frame is painted, at the new size."""
    assert screen_resize_once.apply()
    events: list[str] = []
    layout_tasks: list[object] = []
    paint_tasks: list[object] = []
    original = screen_resize_once._original

    def laid_out(screen: Screen[Any], size: Any) -> None:
        events.append("layout start")
        layout_tasks.append(asyncio.current_task())
        original(screen, size)
        events.append("layout end")

    paint = Screen._compositor_refresh

    def painted(screen: Screen[Any]) -> None:
        events.append("paint")
        paint_tasks.append(asyncio.current_task())
        paint(screen)

    monkeypatch.setattr(screen_resize_once, "_original", laid_out)
    monkeypatch.setattr(Screen, "_compositor_refresh", painted)
    app = Panes()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        events.clear()
        layout_tasks.clear()
        paint_tasks.clear()
        size = Size(100, 30)
        app.screen.post_message(Resize(size, size, size))  # as the app forwards a resize
        await wait_for(pilot, lambda: "paint" in events)
        assert events[:2] == ["layout start", "layout end"]  # no paint inside the layout
        assert "paint" in events[2:]
        # ...nor in the same task step: the screen's message loop ran the layout, the loop the
        # paint (a `call_later` of the screen would run in that same step)
        assert paint_tasks[0] is not layout_tasks[0]
        assert all(pane.size.width == 100 for pane in app.query(Static))


async def test_no_collection_starts_inside_a_resize_s_layout_or_paint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A collection that falls due while a resize is laid out and painted runs after the paint,
    in a callback of its own, and collections are on again after it."""
    import gc

    assert screen_resize_once.apply()
    inside: list[str] = []
    collected_inside: list[str] = []
    collected: list[int] = []
    kept: list[list[object]] = []
    original = screen_resize_once._original
    paint = screen_resize_once._Paint.paint

    def laid_out(screen: Screen[Any], size: Any) -> None:
        inside.append("layout")
        try:
            original(screen, size)
            kept.extend([] for _ in range(50))  # a collection is due
        finally:
            inside.remove("layout")

    def painted(self: Any) -> None:  # the resize's own paint
        inside.append("paint")
        try:
            paint(self)
        finally:
            inside.remove("paint")

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collected.append(info["generation"])
            if inside:
                collected_inside.append(inside[-1])

    monkeypatch.setattr(screen_resize_once, "_original", laid_out)
    monkeypatch.setattr(screen_resize_once._Paint, "paint", painted)
    thresholds = gc.get_threshold()
    app = Panes()
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            gc.set_threshold(10, 10, 1_000_000)  # due every few allocations
            gc.callbacks.append(on_gc)
            for size in [(100, 30), (60, 20)]:
                collected.clear()
                await pilot.resize_terminal(*size)
                await wait_for(pilot, lambda: collected and gc.isenabled())
                assert collected_inside == []
                assert all(pane.size.width == size[0] for pane in app.query(Static))
    finally:
        if on_gc in gc.callbacks:
            gc.callbacks.remove(on_gc)
        gc.set_threshold(*thresholds)
    assert gc.isenabled()


async def chat_on_screen(pilot: Any) -> Any:
    from agent_tui.ui.chat.messages import ChatView
    from tests.ui.test_chat_parking import chat_of_answers

    await chat_of_answers(pilot.app, pilot, 4)
    await pilot.pause()
    return pilot.app.query_one(ChatView)


async def test_a_resize_s_paint_renders_nothing_its_callbacks_before_did_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lines of what the new layout shows are rendered in callbacks between the layout and
    the paint (each of bounded CPU), none of which shows a frame; the paint renders no line
    itself, it composes the frame from them."""
    from textual._styles_cache import StylesCache

    from tests.ui.test_chat_parking import ChatApp

    assert screen_resize_once.apply()
    monkeypatch.setattr(screen_resize_once, "PREPARE_BUDGET_S", 0.0)  # a widget a callback
    events: list[str] = []
    original = screen_resize_once._original
    render_line = StylesCache.render_line
    prepare = screen_resize_once._Paint.prepare
    paint = screen_resize_once._Paint.paint

    def laid_out(screen: Screen[Any], size: Any) -> None:
        events.append("layout")
        original(screen, size)

    def rendered(cache: StylesCache, *args: Any) -> Any:
        events.append("render")
        return render_line(cache, *args)

    def prepared(self: Any) -> None:
        events.append("prepare")
        prepare(self)

    def painted(self: Any) -> None:
        events.append("paint")
        paint(self)
        events.append("painted")

    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = await chat_on_screen(pilot)
        display = app._display

        def displayed(screen: Any, renderable: Any) -> None:
            events.append("display")
            display(screen, renderable)

        monkeypatch.setattr(screen_resize_once, "_original", laid_out)
        monkeypatch.setattr(StylesCache, "render_line", rendered)
        monkeypatch.setattr(screen_resize_once._Paint, "prepare", prepared)
        monkeypatch.setattr(screen_resize_once._Paint, "paint", painted)
        monkeypatch.setattr(app, "_display", displayed)
        for size in [(70, 24), (140, 40)]:
            events.clear()
            await pilot.resize_terminal(*size)
            await wait_for(pilot, lambda: "painted" in events)
            await pilot.pause()
            start = events.index("layout")
            inside = events[events.index("paint") : events.index("painted")]
            assert "render" in events[start : events.index("paint")]
            assert "render" not in inside and "display" in inside
            assert "display" not in events[start : events.index("paint")]
            steps = screen_resize_once.PREPARE_STEPS * (1 + screen_resize_once.RELAYOUTS)
            assert 1 < events.count("prepare") <= steps
            assert view.outer_size == size


async def test_a_resize_s_layout_renders_no_markdown_and_its_paint_shows_exact_heights(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The resize's layout gives the answers' segments an estimated height at the new width
    (no markdown rendered in it: that was most of a layout at a new width); what it shows is
    rendered in the callbacks before the paint, and where a height differs from its estimate
    the screen is laid out again before the paint: every segment the paint shows is exactly
    as tall as its lines, and the view still ends at the chat's end."""
    from agent_tui.ui.chat import markdown_segment
    from agent_tui.ui.chat.messages import MarkdownSegment
    from tests.ui.test_chat_parking import ChatApp

    assert screen_resize_once.apply()
    in_layout: list[bool] = []
    rendered_in_layout: list[object] = []
    wrong_in_paint: list[tuple[int, int]] = []
    relayouts: list[int] = []
    original = screen_resize_once._original
    render = markdown_segment.render_lines
    paint = screen_resize_once._Paint.paint

    def laid_out(screen: Screen[Any], size: Any) -> None:
        in_layout.append(True)
        try:
            original(screen, size)
        finally:
            in_layout.clear()

    def rendering(widget: Any, *args: Any, **kwargs: Any) -> Any:
        if in_layout:
            rendered_in_layout.append(widget)
        return render(widget, *args, **kwargs)

    def painted(self: Any) -> None:
        relayouts.append(getattr(self, "layouts", 1) - 1)
        for widget in self.screen._compositor.visible_widgets:
            if isinstance(widget, MarkdownSegment) and widget.markdown:
                lines = len(widget._render_at(widget.size.width))
                if lines != widget.size.height:
                    wrong_in_paint.append((widget.size.height, lines))
        paint(self)

    monkeypatch.setattr(screen_resize_once, "_original", laid_out)
    monkeypatch.setattr(markdown_segment, "render_lines", rendering)
    monkeypatch.setattr(screen_resize_once._Paint, "paint", painted)
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = await chat_on_screen(pilot)
        for size in [(70, 24), (140, 40), (100, 30), (70, 24)]:
            relayouts.clear()
            await pilot.resize_terminal(*size)
            await wait_for(pilot, lambda: relayouts)
            await pilot.pause()
            assert rendered_in_layout == []
            assert wrong_in_paint == []
            assert view.scroll_y == view.max_scroll_y


async def test_nothing_is_laid_out_after_a_resize_s_paint_and_laying_out_again_moves_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The widgets whose virtual size the resize's layout changed don't ask for another layout
    of everything after its paint (Textual's: a reflow in the next frame, 9-19 ms of CPU); an
    anchored view the layout placed by its old height is laid out again before the paint, so
    the frame shows the chat's end; a layout after it would move nothing."""
    from textual._compositor import Compositor

    from tests.ui.test_chat_parking import ChatApp

    assert screen_resize_once.apply()
    events: list[str] = []
    reflow = Compositor.reflow
    paint = screen_resize_once._Paint.paint

    def counted(compositor: Compositor, parent: Any, size: Size) -> Any:
        events.append("reflow")
        return reflow(compositor, parent, size)

    def painted(self: Any) -> None:
        view = self.screen.query_one("ChatView")
        events.append("paint at end" if view.scroll_y == view.max_scroll_y else "paint")
        paint(self)

    monkeypatch.setattr(Compositor, "reflow", counted)
    monkeypatch.setattr(screen_resize_once._Paint, "paint", painted)
    app = ChatApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = await chat_on_screen(pilot)
        for size in [(70, 24), (140, 40), (100, 40)]:
            events.clear()
            await pilot.resize_terminal(*size)
            await wait_for(pilot, lambda: "paint at end" in events or "paint" in events)
            await pilot.pause()
            await pilot.pause()
            assert events[-1] == "paint at end"  # no reflow after it
            assert view.outer_size == size and view.scroll_y == view.max_scroll_y
            placed = {w: r for w, (r, *_) in app.screen._compositor._full_map.items()}
            app.screen._refresh_layout(Size(*size))
            again = {w: r for w, (r, *_) in app.screen._compositor._full_map.items()}
            assert again == placed
