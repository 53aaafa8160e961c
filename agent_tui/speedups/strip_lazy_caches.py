"""A strip's seven caches, made on first use: `Strip.__init__` (Textual 8.2.8).

Each `Strip` makes seven `FIFOCache`s as it is built, though most strips (a crop, a styled copy)
are never cropped or styled again: a quarter of the objects a full collection walks in a long
session were empty caches. Here they are made on first use, as Textual's own `Content` does with
its `_divide_cache`: each cache slot becomes a descriptor that makes the cache when first read.

Upstream: make `Strip`'s `FIFOCache`s lazily (a property per cache, as `Content._divide_cache`),
not seven per strip in `Strip.__init__`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.cache import FIFOCache
from textual.strip import Strip

from agent_tui.speedups.guard import Patch, fits

PATCH = Patch(
    name="strip_lazy_caches",
    library="Textual",
    version="8.2.8",
    symptom="seven empty caches per painted line for the collector to walk",
    targets={"textual.strip:Strip.__init__": 301199320},
)

#: Strip's caches and their sizes, as `Strip.__init__` makes them
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


def slots_fit() -> bool:
    """Whether Strip has the slots the lazy caches were written for."""
    return set(Strip.__slots__) == set(CACHE_SIZES) | _OTHER_SLOTS


def apply() -> bool:
    if Strip.__init__ is _init_lazy:
        return True
    if not (fits(PATCH) and slots_fit()):
        return False
    for name, size in CACHE_SIZES.items():
        setattr(Strip, name, _LazyCache(Strip.__dict__[name], size))
    Strip.__init__ = _init_lazy  # type: ignore[method-assign]
    return True
