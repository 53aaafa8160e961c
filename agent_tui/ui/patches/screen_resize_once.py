"""One layout per terminal resize, not two: `Screen._screen_resized` (Textual 8.2.8).

A screen lays itself out when the terminal's size changes (`Screen._on_resize`). That layout sends
a `Resize` to every widget whose size changed — the screen itself among them — and the screen,
receiving it, lays everything out again at the size it has just laid out at: with a long answer
on screen the second, identical reflow is 70–160 ms of CPU (bench_callbacks.py). The patched
method skips a layout when the screen's compositor is already at that size and no widget waits
for one; every other call (a new size, widgets that asked for a layout) runs as Textual's.

Upstream: in `Screen._screen_resized`, return early when `size == self._compositor.size` and
`not self._layout_widgets`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.geometry import Size
from textual.screen import Screen

from agent_tui.ui.patches import Patch, fits

PATCH = Patch(
    name="screen_resize_once",
    textual="8.2.8",
    fixes="every resize lays the whole screen out twice",
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
    _original(self, size)


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
