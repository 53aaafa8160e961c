"""Collections after a piece of rendering, not inside it.

A young collection starts on whatever allocation finds it due; while an answer streams, that is
most often the pump's rendering (a step renders the blocks that completed and the block in
progress): a gen-1 collection (10-20 ms of CPU under load, benchmarks/bench_callbacks.py) on top
of a 5-12 ms step made one callback of 20-25 ms. Inside `collections_after()` none starts; one
that fell due runs in a callback of its own right after (the loop's next turn), as the
allocation that found it due would have run it: the young generation, or the middle one too
when its turn has come, never a full one (`startup.gc_tuning` leaves those to idle moments).
Nothing is collected later than that one turn of the loop.

A screen's paint holds it the same way (`patches/screen_paint_collect_after.py`), and a resize
from its layout until its paint has run (`patches/screen_resize_once.py`), through the same
`hold` and `release`: the collector runs again once every hold is released, and a collector
someone else switched off is left off.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: holds not yet released (`hold`): the collector is off while there are any
_holds: list[object] = []


def hold(owner: object) -> bool:
    """Keep collections from starting until `release`: False (nothing held) when the collector
    was switched off by someone else, who will switch it on again. Only in the event loop's
    thread."""
    if not _holds and not gc.isenabled():
        return False
    gc.disable()
    _holds.append(owner)
    return True


def release(owner: object) -> None:
    """End `owner`'s hold; once none is left, give the collector back and run the collection
    that fell due meanwhile, if one did, as the allocation that found it due would have run it:
    the young generation, or the middle one too when its turn has come."""
    if owner not in _holds:
        return
    _holds.remove(owner)
    if _holds:
        return  # another hold is still on
    gc.enable()
    (young, middle, _), (young_count, middle_count, _) = gc.get_threshold(), gc.get_count()
    if young and young_count > young:
        gc.collect(1 if middle and middle_count > middle else 0)


@contextmanager
def collections_after() -> Iterator[None]:
    """Run the block with no collection starting inside it; one that falls due runs right
    after, in a callback of its own. Only in the event loop's thread."""
    loop = asyncio.get_running_loop()
    owner = object()
    if not hold(owner):
        yield
        return
    try:
        yield
    finally:
        loop.call_soon(release, owner)


def until_next_turn() -> None:
    """No collection starts from now until the event loop's next turn: for work that runs after
    the caller returns, in the same step (a handler of Textual's after one of ours); one that
    falls due runs then, in a callback of its own. Only in the event loop's thread."""
    owner = object()
    if hold(owner):
        asyncio.get_running_loop().call_soon(release, owner)
