"""The garbage collector's settings for the app (see BENCHMARKS.md, long sessions).

Process-wide, so the entry point asks for them (`cli.main`: `for_startup` before the app is
imported, and `AgentApp(tune_collector=True)` for the rest); importing the UI changes nothing."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: a full collection falls due after this many turns, to run at the person's next pause (see
#: `IdleCollector`)
FULL_EVERY_TURNS = 10


#: the young generation's threshold from import until the app tunes it (see `for_startup`)
STARTUP_THRESHOLD = 200_000

#: the app's thresholds once tuned (`tune_gc`): a young collection every 2,000 net allocations,
#: the middle generation's every third. A frame frees old lines while it makes new ones, so a
#: young generation holds far more live objects than its net count: at (5,000, 10) a young
#: collection walked up to 25,000 objects (12 ms of CPU under load) and a middle one 57,000
#: (45 ms, one callback of its own). At (2,000, 3) they walk at most 11,000 and 16,000 (3 and
#: 5 ms) for the same total (150 ms over benchmarks/bench_callbacks.py), and a long session's
#: memory is the same (83 MB after 250 turns, bench_long_session.py): BENCHMARKS.md, issue 34.
YOUNG_THRESHOLD = 2_000
MIDDLE_THRESHOLD = 3


def for_startup() -> None:
    """Start-up (imports, the first screen's widgets and styles) makes ~70,000 objects that live
    as long as the process: ~100 collections walked them for nothing, ~30 ms of the first frame.
    So young collections wait until `tune_gc`, which runs once the agent is ready, sets the app's
    own thresholds and freezes what start-up made. Once a process: not after an app has run."""
    if gc.get_freeze_count() == 0:
        gc.set_threshold(STARTUP_THRESHOLD, 10, 1_000_000)


def freeze_imports() -> None:
    """The entry point calls this once the UI's modules are imported (`for_startup` kept young
    collections off meanwhile). Modules, classes and functions live as long as the process, so
    they leave the collector's generations now, uncollected: `tune_gc`'s one collection then
    walks only what the first frame and the agent's build made, not the ~60,000 objects of the
    imports as well (BENCHMARKS.md, issue 34). The imports' own cyclic garbage (~450 objects)
    stays, once a process. Not after an app has run."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        _frozen.add("imports")


def tune_gc() -> None:
    """A UI makes many short-lived objects per frame; with the default thresholds they get
    promoted and trigger full collections of the whole heap (~150 ms pauses while an answer
    streams, see BENCHMARKS.md). Collect young objects a little less often (not much less: a
    big young generation makes slow collections of its own, see `YOUNG_THRESHOLD`), never
    start a full collection on allocation counts (`after_turn` runs them when nobody waits),
    and take what startup made (modules, classes: never garbage) out of them — once a process,
    so a test run of many apps doesn't pin every app's objects."""
    if "start-up" not in _frozen and (gc.get_freeze_count() == 0 or "imports" in _frozen):
        _frozen.add("start-up")
        # Start-up ran without collections (`for_startup`): free what it left (~2,000 objects,
        # the first layouts' cycles) in one collection, ~20 ms once, so none of it is frozen.
        gc.collect()
        gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, 1_000_000)


def freeze_settled(after_first_turn: bool = False) -> None:
    """Once the agent is built and the SDK imported (tools' models, the permission engine, the
    SDK's many classes: they live as long as the process), take them out of full collections
    too, so a full collection walks what the session made, not the app itself; and once more
    `after_first_turn` (see `IdleCollector.after_turn`). Each once a process."""
    stage = "first turn" if after_first_turn else "agent"
    if stage not in _frozen:
        _frozen.add(stage)
        if after_first_turn:
            gc.collect()  # the turn's garbage is not frozen with the rest
        gc.freeze()


_frozen: set[str] = set()


class IdleCollector:
    """Full collections when nobody waits: the cyclic garbage of pruned messages is freed every
    few turns (memory stays flat) and no full collection lands in the middle of an answer. The
    collector counts turns and says when one is due; the app runs it once the person has paused
    (`ui/controllers/quiet_collect.py`): a full collection walks the whole session (tens of ms,
    BENCHMARKS.md), so at a turn's end it was the callback a person typing the next prompt, or
    answering a dialog, waited behind. One that has waited `overdue` more turns for a pause runs
    at the turn's end, as before, so memory stays bounded in a session that never pauses."""

    def __init__(self, every: int = FULL_EVERY_TURNS, overdue: int = FULL_EVERY_TURNS) -> None:
        self.every = every
        self.overdue = overdue
        self.turns = 0
        #: turns ended since the last full collection
        self.since = 0
        #: a collection of ours is running (benchmarks tell idle pauses from the others)
        self.collecting = False

    @property
    def due(self) -> bool:
        return self.since >= self.every

    def after_turn(self) -> bool:
        """A turn ended (its answer painted): whether a full collection is due, to run at the
        next pause. One overdue runs now."""
        self.turns += 1
        self.since += 1
        if self.turns == 1:
            # What the first answer loaded (the markdown parser, syntax lexers, the store's
            # statements, the panes' first paint) lives as long as the app: out of full
            # collections with it. Its own two widgets come along; pruned, they are freed
            # by their reference counts, all but a few cycles (bounded: once a process).
            with self._ours():
                freeze_settled(after_first_turn=True)
        elif self.since >= self.every + self.overdue:
            self.collect()
        return self.due

    def collect(self) -> None:
        """The full collection, now."""
        from agent_tui.speedups import geometry_caches

        self.since = 0
        with self._ours():
            geometry_caches.clear()  # long-gone frames' regions (speedups/)
            gc.collect()

    @contextmanager
    def _ours(self) -> Iterator[None]:
        """A collection of ours runs inside (`collecting`)."""
        self.collecting = True
        try:
            yield
        finally:
            self.collecting = False


#: the app's collector (one per process, as the collector itself is)
idle_collector = IdleCollector()
