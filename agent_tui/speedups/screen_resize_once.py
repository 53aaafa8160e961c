"""One layout per terminal resize, not three, and its paint split over callbacks of their own:
`Screen._screen_resized` (Textual 8.2.8).

A screen lays itself out when the terminal's size changes (`Screen._on_resize`). That layout sends
a `Resize` to every widget whose size changed — the screen itself among them — and the screen,
receiving it, lays everything out again at the size it has just laid out at: with a long answer
on screen the second, identical reflow is a stall of its own (bench_callbacks.py). The patched
method skips a layout when the screen's compositor is already at that size and no widget waits
for one; every other call (a new size, widgets that asked for a layout) runs as Textual's, in a
batch (`App.batch_update`), where `Screen._refresh_layout` leaves its paint to a `call_later`.

Inside that layout every widget whose virtual size changed asks for a layout of its own (it sets
`Widget.virtual_size`, a reactive with `layout=True`, in `Widget._size_updated`): a third reflow
of everything, in the timer tick after the paint (bench_callbacks.py). During the
resize's layouts `_size_updated` sets it as Textual's scrolling does (no layout asked for: this
layout is it) and repaints the widget as the reactive would. That reflow did one thing: Textual
places an anchored view by its height before the layout (`Widget.container_size`), so after a
height change it sat above its end until laid out again; now a view left so (`_off_its_end`) has
the screen laid out again before the paint, which then shows the chat's end. Any other layout a
widget asks for (a scrollbar shown, a Resize handled) still runs.

The paint is split from the layout, and split itself: first the lines of every widget the new
layout shows are rendered (`Widget.render_lines`, which keeps them in the widget's line cache)
in callbacks of at most `PREPARE_BUDGET_S` of CPU each (and at most `PREPARE_STEPS` of them), in
the order the paint renders them; then the paint composes the frame from those lines, in a
callback of its own. At a width not rendered before that rendering was most of a resize's paint,
most of it the answers in view (markdown rendered at the new width) (bench_callbacks.py). Nothing
is painted in between (the app's batch is held until the paint: Textual's timer paints nothing
meanwhile, so no half-drawn frame), keys and messages are handled as usual; a layout that comes
in between ends the preparation (the paint renders whatever is left, as Textual's does).

No garbage collection starts inside that layout or that paint: the resize holds the collector
(`collect_after.hold`) until its paint has run, and a young collection that fell due meanwhile
runs in a callback of its own right after it (`collect_after.release`), not on top of them (a
gen-1 collection on top of the paint made one callback of both in bench_callbacks.py). Nothing
is collected later than one frame. Figures: BENCHMARKS.md, "Speed-ups".

Upstream: in `Screen._screen_resized`, return early when `size == self._compositor.size` and
`not self._layout_widgets`; lay out there with the paint deferred (as in a batch) and
`_size_updated(..., layout=False)`; place an anchored view by its new container size.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from textual.geometry import Region, Size
from textual.screen import Screen
from textual.widget import Widget

from agent_tui.speedups import collect_after
from agent_tui.speedups.guard import Patch, fits

PATCH = Patch(
    name="screen_resize_once",
    library="Textual",
    version="8.2.8",
    symptom="every resize lays the whole screen out three times, and paints it in one callback",
    targets={
        "textual.screen:Screen._screen_resized": 1687579812,
        "textual.screen:Screen._refresh_layout": 1718746469,
        "textual.screen:Screen._on_timer_update": 2741218610,
        "textual.app:App._begin_batch": 269683380,
        "textual.app:App._end_batch": 2269691761,
        "textual.widget:Widget._check_refresh": 74736622,
        "textual.widget:Widget._get_box_model": 2406370130,
        "textual.widget:Widget._size_updated": 3034201985,
    },
)

#: CPU (seconds) one callback preparing a resize's paint may take before the rest waits
PREPARE_BUDGET_S = 0.006
#: callbacks preparing one paint at most: the paint renders whatever is left after them
PREPARE_STEPS = 6
#: layouts of the screen again at most, before a resize's paint, when its preparation found
#: widgets whose height is other than their layout's estimate
RELAYOUTS = 4

_original = Screen._screen_resized
_size_updated = Widget._size_updated
_applied: list[Callable[..., Any]] = []


def _screen_resized(self: Screen[Any], size: Size) -> None:
    if size == self._compositor.size and not self._layout_widgets and not self._dirty_widgets:
        return  # laid out at this size just now: the screen's own Resize, coming back
    held = object()  # this resize's hold on the collector, until its paint has run
    collect_after.hold(held)
    self.app._begin_batch()  # no paint until the resize's own (ended by `_Paint.paint`)
    paint = _Paint(self, size, held)
    try:
        paint.lay_out(first=True)
    finally:
        paint.next()


def estimating() -> bool:
    """Whether a resize's first layout is running: a widget may lay out with an estimate of its
    height at the new width instead of rendering itself for it; the paint's preparation renders
    what is shown, and `lay_out_again` has the screen laid out again before the paint."""
    return _active is not None and _active.estimating


def lay_out_again(widget: Widget) -> bool:
    """Said by a widget whose height, rendered, is other than the one it was laid out with:
    while a resize's paint is prepared, the screen is laid out again before that paint (True);
    otherwise False (the widget asks for a layout itself)."""
    if _active is None or _active.estimating:
        return False
    _active.again.append(widget)
    return True


def _size_updated_once(
    widget: Widget, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
) -> bool:
    """Textual's `_size_updated` without the layout a new virtual size asks for (this layout is
    it): the widget is repainted as setting the reactive would have."""
    before = widget.virtual_size
    changed: bool = _size_updated(widget, size, virtual_size, container_size, layout=False)
    if layout and before != virtual_size:
        widget.refresh()
    return changed


def _off_its_end(widget: Widget) -> bool:
    """An anchored view the layout left above its end: the compositor places one by the height
    it had before the layout (`Widget.container_size`), so a resize that changes its height
    leaves it off by that much until it is laid out again (at its new height)."""
    return (
        widget._anchored and not widget._anchor_released and widget.scroll_y < widget.max_scroll_y
    )


class _Paint:
    """A resize's layout and paint: its widgets' lines rendered a few at a time, laid out again
    if some turned out other than estimated, then the frame."""

    def __init__(self, screen: Screen[Any], size: Size, held: object) -> None:
        self.screen = screen
        self.size = size
        self.held = held
        self.paints: list[Callable[[], Any]] = []
        self.estimating = False
        self.layouts = 0
        #: widgets whose height the preparation found other than laid out (`lay_out_again`)
        self.again: list[Widget] = []
        self.map: object = None
        self.shown: Iterator[tuple[Widget, Region]] = iter(())
        self.steps = 0
        #: anchored views the layout left above their end (`_off_its_end`)
        self.off_end: list[Widget] = []

    def lay_out(self, first: bool) -> None:
        """Lay the screen out (the first time as Textual's resize does, estimating), its paint
        deferred; then render what it shows (`prepare`)."""
        global _active
        screen = self.screen
        self.paints = []

        def defer(callback: Callable[[], Any], *args: Any, **kwargs: Any) -> bool:
            self.paints.append(partial(callback, *args, **kwargs))
            return True

        _active, self.estimating = self, first
        try:
            with screen.app.batch_update():  # `_refresh_layout` defers its paint to call_later
                screen.call_later = defer  # type: ignore[method-assign]
                Widget._size_updated = _size_updated_once  # type: ignore[method-assign,assignment]
                try:
                    if first:
                        _original(screen, self.size)
                    elif screen.is_attached:
                        screen._refresh_layout(self.size)
                finally:
                    Widget._size_updated = _size_updated  # type: ignore[method-assign]
                    del screen.call_later
        finally:
            self.off_end = [w for w in screen._compositor.widgets if _off_its_end(w)]
            _active, self.estimating = None, False
            self.layouts += 1
            self.again = []
            self.map = screen._compositor._full_map
            self.shown = _shown(screen)
            self.steps = 0

    def next(self) -> None:
        loop = asyncio.get_running_loop()
        if self.off_end and self.layouts <= RELAYOUTS:
            loop.call_soon(self.relayout)  # an anchored view placed by its old height
        else:
            loop.call_soon(self.prepare if self.paints else self.paint)

    def prepare(self) -> None:
        """Render the shown widgets' lines for `PREPARE_BUDGET_S` of CPU, then go on."""
        global _active
        started = time.thread_time()
        self.steps += 1
        screen = self.screen
        _active = self
        try:
            unchanged = screen._compositor._full_map is self.map and screen.is_current
            for widget, crop in self.shown if unchanged else ():
                if widget.is_attached:
                    widget.render_lines(crop)
                if time.thread_time() - started > PREPARE_BUDGET_S and self.steps < PREPARE_STEPS:
                    self.next()
                    return
        except Exception:  # the paint renders it, and meets the error as Textual's does
            pass
        finally:
            _active = None
        loop = asyncio.get_running_loop()
        if self.again and self.layouts <= RELAYOUTS and screen.is_current:
            loop.call_soon(self.relayout)
        else:
            loop.call_soon(self.paint)

    def relayout(self) -> None:
        """Lay out again the widgets `again` names (their measures forgotten, and their
        containers' arrangements, as Textual's `Widget._check_refresh` does for a layout)."""
        for widget in self.again:
            widget.clear_cached_dimensions()
            widget._layout_cache.clear()
            widget._layout_updates += 1  # (a key of `Widget._get_box_model`'s cache)
            for ancestor in widget.ancestors:
                if not isinstance(ancestor, Widget):
                    break
                ancestor._clear_arrangement_cache()
                ancestor._layout_updates += 1
                if not ancestor.styles.auto_dimensions:
                    break
        try:
            self.lay_out(first=False)
        finally:
            self.next()

    def paint(self) -> None:
        """Paint the frame, end the resize's batch, let the collector go (after the paint)."""
        app = self.screen.app
        try:
            for paint in self.paints:
                try:
                    paint()
                except Exception as error:  # as Textual's own message loop would
                    app._handle_exception(error)
        finally:
            for widget in self.again:  # (laid out again as often as allowed)
                widget.refresh(layout=True)
            app._end_batch()
            for screen in {*app._screen_stacks.get(app._current_mode, ()), self.screen}:
                screen.check_idle()  # what waited for the batch's end
            asyncio.get_running_loop().call_soon(collect_after.release, self.held)


_active: _Paint | None = None


def _shown(screen: Screen[Any]) -> Iterator[tuple[Widget, Region]]:
    """What the paint will render: each widget the compositor shows, with the part of it shown
    (in its own space), in the order `Compositor._get_renders` renders them."""
    for widget, (region, clip) in list(screen._compositor.visible_widgets.items()):
        if clip.contains_region(region):
            yield widget, Region(0, 0, region.width, region.height)
        else:
            x, y, width, height = region.intersection(clip)
            if width and height:
                yield widget, Region(x - region.x, y - region.y, width, height)


def apply() -> bool:
    if _applied:
        return True
    if not fits(PATCH):
        return False
    _applied.append(_screen_resized)
    Screen._screen_resized = _screen_resized  # type: ignore[method-assign]
    return True


def applied() -> bool:
    return bool(_applied) and Screen._screen_resized is _applied[0]
