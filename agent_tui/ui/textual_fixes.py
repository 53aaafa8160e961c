"""Workarounds for what long sessions feel of Textual's memory use (BENCHMARKS.md, long sessions).

Textual's `Strip.divide` caches `[self]` in the strip's own cache when there is nothing to
divide, and `Strip.crop_extend` caches `self` when there is nothing to crop: the compositor does
both for nearly every line it paints, so nearly every painted line is a reference cycle. A line
dropped from a cache is then not freed when its last reference goes, but waits for a full
garbage collection; over hours that is hundreds of megabytes and collections of a second or
more. Here those two calls return `self` without caching it (the cache would only ever have
returned `self` again), so dropped lines are freed at once.

And each `Strip` makes seven `FIFOCache`s as it is built, though most strips (a crop, a styled
copy) are never cropped or styled again: a quarter of the objects a full collection walks in a
long session were empty caches. Here they are made on first use, as Textual's own `Content` does
with its `_divide_cache`.

And every reflow left a reference cycle holding its whole map (see `_arrange_root_uncycled`).
All are applied once, when the app tunes the collector after its first frame.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from textual._compositor import Compositor
from textual.cache import FIFOCache
from textual.strip import Strip

_divide = Strip.divide
_crop_extend = Strip.crop_extend


def _divide_uncycled(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    cuts = [cut for cut in cuts if cut <= self.cell_length]
    if cuts == [self.cell_length]:
        return [self]
    return _divide(self, cuts)


def _crop_extend_uncycled(self: Strip, start: int, end: int, style: Any) -> Strip:
    if start <= 0 and end == self.cell_length:
        return self
    return _crop_extend(self, start, end, style)


#: Strip's caches and their sizes, as `Strip.__init__` makes them (Textual 8.2)
CACHE_SIZES = {
    "_divide_cache": 4,
    "_crop_cache": 16,
    "_style_cache": 16,
    "_filter_cache": 4,
    "_line_length_cache": 4,
    "_crop_extend_cache": 4,
    "_offsets_cache": 4,
}
_OTHER_SLOTS = {"_segments", "_cell_length", "_render_cache", "_link_ids", "_cell_count"}
_init = Strip.__init__
_arrange = Compositor._arrange_root


class _LazyCache:
    """A cache slot of `Strip` whose `FIFOCache` is made the first time it is read."""

    __slots__ = ("size", "slot")

    def __init__(self, slot: Any, size: int) -> None:
        self.slot = slot  # the slot's own member descriptor
        self.size = size

    def __get__(self, strip: Strip | None, owner: type | None = None) -> Any:
        if strip is None:
            return self
        try:
            return self.slot.__get__(strip, owner)
        except AttributeError:
            cache: FIFOCache[Any, Any] = FIFOCache(self.size)
            self.slot.__set__(strip, cache)
            return cache

    def __set__(self, strip: Strip, value: Any) -> None:
        self.slot.__set__(strip, value)


def _init_lazy(self: Strip, segments: Iterable[Any], cell_length: int | None = None) -> None:
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def lazy_caches_fit() -> bool:
    """Whether this Textual's Strip has the slots the lazy caches were written for (if a new
    version changes them, Strip is left as it is)."""
    return set(Strip.__slots__) == set(CACHE_SIZES) | _OTHER_SLOTS


def _arrange_root_uncycled() -> Callable[..., Any] | None:
    """Textual's `Compositor._arrange_root` places widgets with a nested function that calls
    itself, so every reflow leaves a cycle (the function, its closure) holding that reflow's
    whole map: ~3,000 objects a turn that only a collection frees, in pauses of 25–45 ms while an
    answer streams. The same function, compiled from Textual's own source with one line added
    (`del add_widget` before it returns, which empties the closure's cell) leaves none.
    None when the source is not there or not the one this was written for."""
    from textual import _compositor

    try:
        lines, first = inspect.getsourcelines(_arrange)
    except (OSError, TypeError):
        return None
    source = textwrap.dedent("".join(lines))
    end = "    return map, widgets\n"
    if source.count(end) != 1 or source.count("def add_widget(") != 1:
        return None
    source = source.replace(end, "    del add_widget\n" + end)
    tree = ast.parse(source)
    ast.increment_lineno(tree, first - 1)  # tracebacks point at Textual's own lines
    namespace: dict[str, Any] = {}
    exec(compile(tree, inspect.getfile(_arrange), "exec"), vars(_compositor), namespace)
    arrange: Callable[..., Any] = namespace["_arrange_root"]
    arrange.__qualname__ = _arrange.__qualname__
    return arrange


def apply() -> None:
    if getattr(Strip.divide, "__name__", "") != _divide_uncycled.__name__:
        Strip.divide = _divide_uncycled  # type: ignore[method-assign]
        Strip.crop_extend = _crop_extend_uncycled  # type: ignore[method-assign]
    if Strip.__init__ is _init and lazy_caches_fit():
        for name, size in CACHE_SIZES.items():
            setattr(Strip, name, _LazyCache(Strip.__dict__[name], size))
        Strip.__init__ = _init_lazy  # type: ignore[method-assign]
    if not getattr(Compositor._arrange_root, "_uncycled", False):
        arrange = _arrange_root_uncycled()
        if arrange is not None:
            arrange._uncycled = True  # type: ignore[attr-defined]
            Compositor._arrange_root = arrange  # type: ignore[method-assign]
