"""The garbage collector's settings for the app (see BENCHMARKS.md)."""

from __future__ import annotations

import gc


def tune_gc() -> None:
    """A UI makes many short-lived objects per frame; with the default thresholds they get
    promoted and trigger full collections of the whole heap (~150 ms pauses while an answer
    streams, see BENCHMARKS.md). Collect young objects less often (not much less: a big young
    generation makes slow collections of its own), full collections rarely, and take what startup
    made (modules, classes: never garbage) out of them — once a process, so a test run of many
    apps doesn't pin every app's objects."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
    gc.set_threshold(5_000, 10, 1_000)
