"""An arrangement's total region without its spatial grid (Textual 8.2.8).

`DockArrangeResult.total_region` (and the compositor's bottom of an anchored view) builds the
arrangement's `SpatialMap`: every placement is put in each 20-line square of a grid it covers.
A reflow asks every container's arrangement for its total region, so each one filled a grid as
tall as its content: the chat's (a streaming answer covers all of its height) and the answer's
(its groups of segments cover it too), once a frame. A layout's cost then grew with the
answer's height, not with what it placed: a long answer streamed slower and slower
(benchmarks/bench_streaming.py; BENCHMARKS.md, "Speed-ups"). Here the map's total region is
the union of its placements' regions, computed as `SpatialMap.insert` computes it, and its grid
is filled only when a query needs it (`get_values_in_region`: a scroll that shows part of it).

Upstream: in `DockArrangeResult.total_region`, take the union of the placements' regions
instead of building the spatial map; build the map only in `get_visible_placements`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual._spatial_map import SpatialMap
from textual.geometry import Offset, Region
from textual.layout import DockArrangeResult

from agent_tui.speedups.guard import Patch, fits

PATCH = Patch(
    name="arrangement_total_region",
    library="Textual",
    version="8.2.8",
    symptom="every reflow fills a grid as tall as each container's content",
    targets={
        "textual.layout:DockArrangeResult.spatial_map": 3900434075,
        "textual._spatial_map:SpatialMap.__init__": 2693972978,
        "textual._spatial_map:SpatialMap.insert": 604045039,
        "textual._spatial_map:SpatialMap.get_values_in_region": 2809567054,
    },
)

_Entry = tuple[Region, Offset, bool, bool, Any]
_spatial_map = DockArrangeResult.spatial_map


class DeferredSpatialMap(SpatialMap[Any]):
    """A `SpatialMap` whose total region is known at once and whose grid is filled when it is
    first queried (with what it would have held from the start)."""

    def __init__(self, entries: Iterable[_Entry]) -> None:
        super().__init__()
        self._deferred: list[_Entry] | None = list(entries)
        total = self.total_region
        for region, _offset, fixed, overlay, _value in self._deferred:
            if not fixed and not overlay:  # as `SpatialMap.insert` sums it
                total = total.union(region)
        self.total_region = total
        #: how many times a grid was filled (a test counts them)
        self.filled = 0

    def _fill(self) -> None:
        if self._deferred is not None:
            entries, self._deferred = self._deferred, None
            total = self.total_region
            super().insert(entries)
            self.total_region = total  # (the same union)
            self.filled += 1

    def insert(self, regions_and_values: Iterable[_Entry]) -> None:
        self._fill()
        super().insert(regions_and_values)

    def get_values_in_region(self, region: Region) -> list[Any]:
        self._fill()
        return super().get_values_in_region(region)


def _deferred_spatial_map(self: DockArrangeResult) -> SpatialMap[Any]:
    """Textual's lazily made spatial map, its grid filled when first queried."""
    if self._spatial_map is None:
        self._spatial_map = DeferredSpatialMap(
            (
                placement.region.grow(placement.margin),
                placement.offset,
                placement.fixed,
                placement.overlay,
                placement,
            )
            for placement in self.placements
        )
    return self._spatial_map


_patched = property(_deferred_spatial_map, doc=_spatial_map.__doc__)


def _installed() -> object:
    """What `DockArrangeResult.spatial_map` is now (a property once patched)."""
    found: object = DockArrangeResult.spatial_map
    return found


def apply() -> bool:
    if _installed() is _patched:
        return True
    if not fits(PATCH):
        return False
    DockArrangeResult.spatial_map = _patched  # type: ignore[method-assign,assignment]
    return True


def applied() -> bool:
    return _installed() is _patched
