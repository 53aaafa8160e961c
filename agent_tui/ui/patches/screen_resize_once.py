"""One layout per terminal resize, not two, and its paint in a callback of its own:
`Screen._screen_resized` (Textual 8.2.8).

A screen lays itself out when the terminal's size changes (`Screen._on_resize`). That layout sends
a `Resize` to every widget whose size changed — the screen itself among them — and the screen,
receiving it, lays everything out again at the size it has just laid out at: with a long answer
on screen the second, identical reflow is 70–160 ms of CPU (bench_callbacks.py). The patched
method skips a layout when the screen's compositor is already at that size and no widget waits
for one; every other call (a new size, widgets that asked for a layout) runs as Textual's, in a
batch (`App.batch_update`), where `Screen._refresh_layout` leaves its paint to a `call_later`.
That paint is run from the event loop's next turn (the screen's `call_later` would run it in the
same task step, its message queue being non-empty), so a resize's layout and its paint (each
15-30 ms of CPU with a long chat on screen) are two callbacks, not one of 40-60 ms. Nothing is
painted in between: the screen shows the old frame until the new one is painted.

No garbage collection starts inside that layout or that paint: the resize holds the collector
(`collect_after.hold`) until its paint has run, and a young collection that fell due meanwhile
runs in a callback of its own right after it (`collect_after.release`), not on top of them (a
gen-1 collection, 10-25 ms of CPU under load, made a 15-20 ms paint a 36 ms callback in
bench_callbacks.py). Nothing is collected later than one frame.

Upstream: in `Screen._screen_resized`, return early when `size == self._compositor.size` and
`not self._layout_widgets`; and lay out there with the paint deferred (as in a batch).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any

from textual.geometry import Size
from textual.screen import Screen

from agent_tui.ui import collect_after
from agent_tui.ui.patches import Patch, fits

PATCH = Patch(
    name="screen_resize_once",
    version="8.2.8",
    fixes="every resize lays the whole screen out twice, and paints it in the same callback",
    targets={
        "textual.screen:Screen._screen_resized": 1687579812,
        "textual.screen:Screen._refresh_layout": 1718746469,
    },
)

_original = Screen._screen_resized
_applied: list[Callable[..., Any]] = []


def _screen_resized(self: Screen[Any], size: Size) -> None:
    if size == self._compositor.size and not self._layout_widgets and not self._dirty_widgets:
        return  # laid out at this size just now: the screen's own Resize, coming back
    app = self.app
    paints: list[Callable[[], Any]] = []
    held = object()  # this resize's hold on the collector, until its paint has run
    collect_after.hold(held)

    def defer(callback: Callable[[], Any], *args: Any, **kwargs: Any) -> bool:
        paints.append(partial(callback, *args, **kwargs))
        return True

    loop = asyncio.get_running_loop()
    try:
        with app.batch_update():  # `_refresh_layout` leaves its paint to `self.call_later`
            self.call_later = defer  # type: ignore[method-assign]
            try:
                _original(self, size)
            finally:
                del self.call_later
        for paint in paints:
            loop.call_soon(_paint, app, paint)
    finally:
        loop.call_soon(collect_after.release, held)  # after the paints


def _paint(app: Any, paint: Callable[[], Any]) -> None:
    try:
        paint()
    except Exception as error:  # as Textual's own message loop would
        app._handle_exception(error)


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
