"""Lines painted by widgets that are gone, freed now: a widget's `_styles_cache` and
`StylesCache.get_inner_outer`'s `lru_cache` (Textual 8.2.8).

Textual caches the lines each widget painted in the widget's private `StylesCache`, and memoizes
`StylesCache.get_inner_outer` with an `lru_cache` on the method, whose keys hold the `StylesCache`
of up to 1,024 widgets — and with each one every line that widget rendered (Strips, Segments and
their caches: memory that grows turn by turn in a long session). The chat empties the caches of
widgets it removed or scrolled far away (`forget_lines`), and that lru_cache when it removes some
(`forget_removed`; it holds two Styles per colour pair: cheap to fill again), so those lines go at
once instead of at a full collection.

Upstream: clear `self._styles_cache` in `Widget._on_unmount`, and key `get_inner_outer`'s
`lru_cache` on its two `Styles` (a module-level function), not on the `StylesCache` itself.
"""

from __future__ import annotations

from textual._styles_cache import StylesCache
from textual.widget import Widget

from agent_tui.speedups.guard import Patch, fits

PATCH = Patch(
    name="render_caches",
    library="Textual",
    version="8.2.8",
    symptom="removed widgets' painted lines wait for a full collection",
    targets={
        "textual._styles_cache:StylesCache.clear": 325496867,
        "textual._styles_cache:StylesCache.get_inner_outer": 3090859972,
    },
)


def forget_lines(widget: Widget) -> None:
    """Empty the lines `widget` painted (painted again if it is shown)."""
    if fits(PATCH):
        widget._styles_cache.clear()


def forget_removed() -> None:
    """After widgets were removed: let go of what `get_inner_outer` keeps of them."""
    if fits(PATCH):
        StylesCache.get_inner_outer.cache_clear()


def apply() -> bool:
    return fits(PATCH)
