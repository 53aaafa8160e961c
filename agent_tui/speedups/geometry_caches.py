"""Geometry memos emptied before a full collection: `Region`, `Offset`, `Size` and `Spacing`'s
`lru_cache`s (Textual 8.2.8).

Textual memoizes its geometry (`Region.intersection`, `shrink`, `union`…: up to 4,096 results
each). In a chat that keeps growing every scroll offset is new, so those caches fill with the
regions of long-gone frames: ~10,000 objects that each full collection would walk. The app
empties them before its own full collections (`clear`); what the next frames need is computed
again in microseconds.

Upstream: bound the geometry `lru_cache`s to what a frame reuses (`maxsize=256`, not 4,096).
"""

from __future__ import annotations

from agent_tui.speedups.guard import Patch, fits

PATCH = Patch(
    name="geometry_caches",
    library="Textual",
    version="8.2.8",
    symptom="long-gone frames' regions for every full collection to walk",
    targets={"textual.geometry:Region.intersection": 1618903289},
)


def clear() -> int:
    """Empty every geometry memo; how many were emptied."""
    if not fits(PATCH):
        return 0
    from textual import geometry

    cleared = 0
    for cls in (geometry.Region, geometry.Offset, geometry.Size, geometry.Spacing):
        for attr in vars(cls).values():
            cache_clear = getattr(attr, "cache_clear", None)
            if callable(cache_clear):
                cache_clear()
                cleared += 1
    return cleared


def apply() -> bool:
    return fits(PATCH)
