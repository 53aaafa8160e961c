"""Strips that cache themselves: `Strip.divide` and `Strip.crop_extend` (Textual 8.2.8).

`Strip.divide` caches `[self]` in the strip's own cache when there is nothing to divide, and
`Strip.crop_extend` caches `self` when there is nothing to crop: the compositor does both for
nearly every line it paints, so nearly every painted line is a reference cycle. A line dropped
from a cache is then not freed when its last reference goes, but waits for a full garbage
collection; over hours that is hundreds of megabytes and collections of a second or more (see
BENCHMARKS.md, long sessions). Here those two calls return `self` without caching it (the cache
would only ever have returned `self` again), so dropped lines are freed at once.

Upstream: in `Strip.divide` return `[self]`, and in `Strip.crop_extend` return `self`, before
the cache is consulted when there is nothing to cut (no entry that refers to the strip itself).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from textual.strip import Strip

from agent_tui.speedups.guard import Patch, fits

PATCH = Patch(
    name="strip_self_cache",
    library="Textual",
    version="8.2.8",
    symptom="painted lines are reference cycles, freed only by a full collection",
    targets={
        "textual.strip:Strip.divide": 593149998,
        "textual.strip:Strip.crop_extend": 580870006,
    },
)

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


def apply() -> bool:
    if Strip.divide is _divide_uncycled:
        return True
    if not fits(PATCH):
        return False
    Strip.divide = _divide_uncycled  # type: ignore[method-assign]
    Strip.crop_extend = _crop_extend_uncycled  # type: ignore[method-assign]
    return True
