"""Collections after a piece of rendering, not inside it.

A young collection starts on whatever allocation finds it due; while an answer streams, that is
most often the pump's rendering (a step renders the blocks that completed and the block in
progress): a gen-1 collection (10-20 ms of CPU under load, benchmarks/bench_callbacks.py) on top
of a 5-12 ms step made one callback of 20-25 ms. Inside `collections_after()` none starts; one
that fell due runs in a callback of its own right after (the loop's next turn), as the
allocation that found it due would have run it: the young generation, or the middle one too
when its turn has come, never a full one (`startup.gc_tuning` leaves those to idle moments).
Nothing is collected later than that one turn of the loop.

The resize's own hold is `patches/screen_resize_once.py`; each leaves the collector alone while
the other holds it (the collector is disabled then).
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from contextlib import contextmanager

_held: list[bool] = []  # one entry while this module holds the collector


@contextmanager
def collections_after() -> Iterator[None]:
    """Run the block with no collection starting inside it; one that falls due runs right
    after, in a callback of its own. Only in the event loop's thread."""
    if _held or not gc.isenabled():  # held already (here, or by someone who will release it)
        yield
        return
    loop = asyncio.get_running_loop()
    gc.disable()
    _held.append(True)
    try:
        yield
    finally:
        loop.call_soon(collect_due)


def collect_due() -> None:
    """Give the collector back, and run the collection that fell due meanwhile, if one did."""
    if not _held:
        return
    _held.clear()
    gc.enable()
    (young, middle, _), (young_count, middle_count, _) = gc.get_threshold(), gc.get_count()
    if young and young_count > young:
        gc.collect(1 if middle and middle_count > middle else 0)
