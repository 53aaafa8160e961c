"""The garbage collector's settings for the app (see BENCHMARKS.md, long sessions)."""

from __future__ import annotations

import gc

#: a full collection runs in the idle moment after this many turns (see `after_turn`)
FULL_EVERY_TURNS = 20


def tune_gc() -> None:
    """A UI makes many short-lived objects per frame; with the default thresholds they get
    promoted and trigger full collections of the whole heap (~150 ms pauses while an answer
    streams, see BENCHMARKS.md). Collect young objects less often (not much less: a big young
    generation makes slow collections of its own), never start a full collection on allocation
    counts (`after_turn` runs them when nobody waits), and take what startup made (modules,
    classes: never garbage) out of them — once a process, so a test run of many apps doesn't pin
    every app's objects."""
    from agent_tui.ui import textual_fixes

    textual_fixes.apply()  # painted lines are freed when dropped, not at a full collection
    if gc.get_freeze_count() == 0:
        gc.freeze()
    gc.set_threshold(5_000, 10, 1_000_000)


_settled = False


def freeze_settled() -> None:
    """Once the agent is built and the SDK imported (tools' models, the permission engine, the
    SDK's many classes: they live as long as the process), take them out of full collections
    too, so a full collection walks what the session made, not the app itself. Once a process."""
    global _settled
    if not _settled:
        _settled = True
        gc.freeze()


class IdleCollector:
    """Full collections at the end of a turn, when the answer is on screen and nothing streams:
    the cyclic garbage of pruned messages is freed every few turns (memory stays flat) and no
    full collection ever lands in the middle of an answer or a keystroke."""

    def __init__(self, every: int = FULL_EVERY_TURNS) -> None:
        self.every = every
        self.turns = 0
        #: a collection of ours is running (benchmarks tell idle pauses from the others)
        self.collecting = False

    def after_turn(self) -> None:
        self.turns += 1
        if self.turns % self.every == 0:
            self.collecting = True
            try:
                gc.collect()
            finally:
                self.collecting = False


#: the app's collector (one per process, as the collector itself is)
idle_collector = IdleCollector()
