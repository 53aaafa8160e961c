"""A workaround for a Textual leak that long sessions feel (see BENCHMARKS.md, long sessions).

Textual's `Strip.divide` caches `[self]` in the strip's own cache when there is nothing to
divide, and `Strip.crop_extend` caches `self` when there is nothing to crop: the compositor does
both for nearly every line it paints, so nearly every painted line is a reference cycle. A line
dropped from a cache is then not freed when its last reference goes, but waits for a full
garbage collection; over hours that is hundreds of megabytes and collections of a second or
more. Here those two calls return `self` without caching it (the cache would only ever have
returned `self` again), so dropped lines are freed at once. Applied once, on import of the app.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.strip import Strip

_divide = Strip.divide
_crop_extend = Strip.crop_extend


def _divide_uncycled(self: Strip, cuts: Iterable[int]) -> list[Strip]:
    cuts = [cut for cut in cuts if cut <= self.cell_length]
    if cuts == [self.cell_length]:
        return [self]
    return _divide(self, cuts)


def _crop_extend_uncycled(self: Strip, start: int, end: int, style: Any) -> Strip:
    if start <= 0 and end == self.cell_length:
        return self
    return _crop_extend(self, start, end, style)


def apply() -> None:
    if getattr(Strip.divide, "__name__", "") != _divide_uncycled.__name__:
        Strip.divide = _divide_uncycled  # type: ignore[method-assign]
        Strip.crop_extend = _crop_extend_uncycled  # type: ignore[method-assign]
