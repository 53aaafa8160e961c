"""CPU time per event-loop callback, and per garbage collection (benchmarks only).

Wall-clock gaps on a shared machine measure the machine as much as the app: a callback that takes
40 ms of CPU becomes 120 ms of wall time when two other processes want the core. So this wraps
`asyncio.Handle._run` (every callback, timer and task step of the loop runs through it) and times
each with `time.thread_time()`, the CPU this thread used, and notes which Textual messages were
dispatched inside it — so the longest callbacks can be named ("Task step of Screen's message
loop, handling Resize, Layout"), not just counted. Collections are timed through `gc.callbacks`.
"""

from __future__ import annotations

import asyncio
import cProfile
import gc
import heapq
import pstats
import time
from dataclasses import dataclass, field
from typing import Any

_MAX_NOTED = 6  # messages named per callback


@dataclass(order=True)
class Slow:
    cpu: float
    wall: float = field(compare=False)
    phase: str = field(compare=False)
    what: str = field(compare=False)


@dataclass
class Collection:
    cpu: float
    generation: int
    phase: str
    collected: int


class LoopCPU:
    """Installs itself on `asyncio.Handle` and Textual's message dispatch; `phase` labels what
    the benchmark is doing, so each callback and collection is counted under it."""

    def __init__(self, keep: int = 10, profile_over_ms: float | None = None) -> None:
        self.keep = keep
        #: profile every callback (cProfile, which slows them) and keep, per phase, the
        #: statistics of those over this many ms of CPU: what the long ones spend their time in
        self.profile_over_ms = profile_over_ms
        self.profiles: dict[str, Any] = {}
        self.phase = "start-up"
        self.cpu: dict[str, list[float]] = {}
        #: per phase, a min-heap of its `keep` longest
        self.longest_by_phase: dict[str, list[Slow]] = {}
        self.collections: list[Collection] = []
        self._noted: list[str] = []
        self._dropped = 0
        self._depth = 0
        self._gc_started = 0.0
        self._installed: list[tuple[Any, str, Any]] = []
        #: the benchmark's own task (it drives the app: presses keys, polls, resizes): its steps
        #: are timed apart from the app's (`driver_cpu`), since a person's session has none
        self.driver: asyncio.Task[Any] | None = None
        self.driver_cpu: dict[str, list[float]] = {}
        #: what a benchmark marked out within a phase (one approval dialog, say): a label and
        #: the longest callback of its stretch, in seconds of CPU
        self.marked: list[tuple[str, float]] = []
        self._in_callback: list[Collection] = []  # collections inside the running callback

    # -- installing ------------------------------------------------------------------------
    def install(self) -> None:
        from textual.message_pump import MessagePump

        handle_run = asyncio.Handle._run
        dispatch = MessagePump._dispatch_message
        probe = self

        def _run(handle: asyncio.Handle) -> None:
            if probe._depth:  # a nested loop run (should not happen): time the outer only
                handle_run(handle)
                return
            probe._depth = 1
            probe._noted = []
            probe._dropped = 0
            probe._in_callback = []
            profiler = cProfile.Profile() if probe.profile_over_ms is not None else None
            wall = time.perf_counter()
            cpu = time.thread_time()
            try:
                if profiler is None:
                    handle_run(handle)
                else:
                    profiler.runcall(handle_run, handle)
            finally:
                probe._depth = 0
                spent = time.thread_time() - cpu
                probe._record(handle, spent, time.perf_counter() - wall)
                if profiler is not None:
                    probe._keep_profile(profiler, spent)

        async def _dispatch_message(pump: Any, message: Any) -> Any:
            if len(probe._noted) < _MAX_NOTED:
                probe._noted.append(f"{type(pump).__name__}<-{type(message).__name__}")
            else:
                probe._dropped += 1
            return await dispatch(pump, message)

        self._installed = [
            (asyncio.Handle, "_run", handle_run),
            (MessagePump, "_dispatch_message", dispatch),
        ]
        asyncio.Handle._run = _run  # type: ignore[method-assign]
        MessagePump._dispatch_message = _dispatch_message  # type: ignore[method-assign]
        gc.callbacks.append(self._on_gc)

    def uninstall(self) -> None:
        for owner, name, original in self._installed:
            setattr(owner, name, original)
        self._installed = []
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)

    # -- recording -------------------------------------------------------------------------
    def _record(self, handle: asyncio.Handle, cpu: float, wall: float) -> None:
        if self.driver is not None and _task_of(handle) is self.driver:
            self.driver_cpu.setdefault(self.phase, []).append(cpu)
            return
        self.cpu.setdefault(self.phase, []).append(cpu)
        longest = self.longest_by_phase.setdefault(self.phase, [])
        if len(longest) >= self.keep and cpu <= longest[0].cpu:
            return
        what = _describe(handle)
        if self._noted:
            more = f" +{self._dropped} more" if self._dropped else ""
            what += " handling " + ", ".join(self._noted) + more
        if self._in_callback:  # said first: a collection is the app's, wherever it falls
            gcs = ", ".join(f"{c.cpu * 1000:.1f} ms gen {c.generation}" for c in self._in_callback)
            what = f"[collection inside: {gcs}] {what}"
        item = Slow(cpu, wall, self.phase, what)
        if len(longest) < self.keep:
            heapq.heappush(longest, item)
        else:
            heapq.heapreplace(longest, item)

    def _keep_profile(self, profiler: cProfile.Profile, cpu: float) -> None:
        assert self.profile_over_ms is not None
        if cpu * 1000 <= self.profile_over_ms:
            return
        stats = self.profiles.get(self.phase)
        if stats is None:
            self.profiles[self.phase] = pstats.Stats(profiler)
        else:
            stats.add(profiler)

    def _on_gc(self, stage: str, info: dict[str, int]) -> None:
        if stage == "start":
            self._gc_started = time.thread_time()
        else:
            collection = Collection(
                time.thread_time() - self._gc_started,
                info["generation"],
                self.phase,
                info.get("collected", 0),
            )
            self.collections.append(collection)
            if self._depth:
                self._in_callback.append(collection)

    # -- reporting -------------------------------------------------------------------------
    def report(self, goal_ms: float = 30.0, gc_goal_ms: float = 50.0) -> list[str]:
        lines = [f"CPU per event-loop callback (thread time; goal: none over {goal_ms:.0f} ms):"]
        for phase, values in self.cpu.items():
            ordered = sorted(values)
            over = sum(v * 1000 > goal_ms for v in values)
            p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
            lines.append(
                f"  {phase:<12} {len(values):>7} callbacks, {sum(values):6.2f} s CPU, "
                f"p99 {p99 * 1000:5.1f} ms, longest {ordered[-1] * 1000:6.1f} ms, "
                f"{over} over {goal_ms:.0f} ms"
            )
        driver = [(v, phase) for phase, values in self.driver_cpu.items() for v in values]
        if driver:
            top, where = max(driver)
            lines.append(
                f"  (the benchmark's own task, not counted above: {len(driver)} steps, "
                f"{sum(v for v, _ in driver):.2f} s CPU, longest {top * 1000:.1f} ms in {where})"
            )
        lines.append(f"the longest {self.keep} callbacks (CPU / wall, phase, what):")
        listed = sorted(self.longest, reverse=True)[: self.keep]
        lines += [_line(slow) for slow in listed]
        shown = {id(slow) for slow in listed}
        for phase, longest in self.longest_by_phase.items():
            more = [s for s in sorted(longest, reverse=True)[:3] if id(s) not in shown]
            if more:
                lines.append(f"  … and {phase}'s longest below those:")
                lines += [_line(slow) for slow in more]
        lines.append(f"garbage collections (thread time; goal: none over {gc_goal_ms:.0f} ms):")
        phases: dict[str, list[Collection]] = {}
        for c in self.collections:
            phases.setdefault(c.phase, []).append(c)
        for phase, cs in phases.items():
            worst = max(cs, key=lambda c: c.cpu)
            by_gen = [sum(c.generation == g for c in cs) for g in range(3)]
            lines.append(
                f"  {phase:<12} {len(cs):>5} (gen 0/1/2: {by_gen[0]}/{by_gen[1]}/{by_gen[2]}), "
                f"longest {worst.cpu * 1000:5.1f} ms (gen {worst.generation}, "
                f"{worst.collected} freed)"
            )
        return lines

    @property
    def longest(self) -> list[Slow]:
        """The longest callbacks of every phase (each phase's `keep` longest)."""
        return [slow for longest in self.longest_by_phase.values() for slow in longest]

    @property
    def worst_ms(self) -> float:
        return max((s.cpu for s in self.longest), default=0.0) * 1000

    @property
    def worst_gc_ms(self) -> float:
        return max((c.cpu for c in self.collections), default=0.0) * 1000


def _line(slow: Slow) -> str:
    return (
        f"  {slow.cpu * 1000:6.1f} / {slow.wall * 1000:6.1f} ms  {slow.phase:<12} {slow.what[:220]}"
    )


def _task_of(handle: asyncio.Handle) -> asyncio.Task[Any] | None:
    owner = getattr(getattr(handle, "_callback", None), "__self__", None)
    return owner if isinstance(owner, asyncio.Task) else None


def _describe(handle: asyncio.Handle) -> str:
    callback = getattr(handle, "_callback", None)
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coro = owner.get_coro()
        qualname = getattr(coro, "__qualname__", type(coro).__name__)
        frame = getattr(coro, "cr_frame", None)
        where = ""
        if frame is not None:
            pump = frame.f_locals.get("self")
            if pump is not None:
                where = f" of {type(pump).__name__}"
        return f"task {owner.get_name()} {qualname}{where}"
    name = getattr(callback, "__qualname__", None) or repr(callback)
    if owner is not None:
        name = f"{type(owner).__name__}.{getattr(callback, '__name__', name)}"
    return f"{type(handle).__name__} {name}"[:200]
