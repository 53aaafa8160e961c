"""A long session through the real app: N turns (default 500) of a ~1.5 KB markdown answer on the
offline model (the same provider → assembler → loop → AgentApp pipeline as with a key, recorded
to the session store), headless. At checkpoints it prints the process's RSS, the median turn
time since the last checkpoint, and the longest garbage-collection pause so far (timed with
`gc.callbacks`); at the end, how long two terminal resizes take and what survived of the pruned
widgets' render caches.

    python benchmarks/bench_long_session.py [--turns 500] [--answer 1500]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import time
from typing import Any

from _common import app_ready, bench_env, machine, make_answer, median, offline_answers

CHECKPOINTS = (1, 60, 160, 250, 500, 1000)


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


class GcPauses:
    """The duration of every collection, by generation."""

    def __init__(self) -> None:
        self.pauses: list[tuple[int, float]] = []
        #: the app's own full collections (`IdleCollector`): at a pause, or overdue at a turn's end
        self.idle: list[float] = []
        self._start = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        from agent_tui.ui.startup.gc_tuning import idle_collector

        if phase == "start":
            self._start = time.perf_counter()
        elif idle_collector.collecting:  # the app's own full collection
            self.idle.append(time.perf_counter() - self._start)
        else:
            self.pauses.append((info["generation"], time.perf_counter() - self._start))

    def take(self) -> list[tuple[int, float]]:
        """The collections so far (all of them), forgotten."""
        taken = self.pauses + [(2, t) for t in self.idle]
        self.pauses, self.idle = [], []
        return taken

    def longest(self) -> tuple[int, float]:
        """The longest collection that could land while an answer streams or a key is typed."""
        return max(self.pauses, key=lambda p: p[1], default=(0, 0.0))

    def count(self, generation: int) -> int:
        return sum(1 for g, _ in self.pauses if g == generation)


def survivors() -> dict[str, int]:
    gc.collect()
    names = ("FIFOCache", "Strip", "Segment", "MarkdownSegment", "AssistantMessage")
    counts = dict.fromkeys(names, 0)
    for obj in gc.get_objects():
        name = type(obj).__name__
        if name in counts:
            counts[name] += 1
    return counts


async def run(turns: int, answer_chars: int, max_messages: int = 0) -> None:
    from agent_tui.runtime import Options
    from agent_tui.ui.startup.gc_tuning import for_startup

    for_startup()  # as the command line does (cli.main)
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.startup.gc_tuning import freeze_imports

    freeze_imports()  # as the command line does

    answer = make_answer(answer_chars, seed=11)
    with bench_env(), offline_answers({"turn": answer}):
        app = AgentApp(Options(offline=True), record=True, tune_collector=True)
        pauses = GcPauses()  # from the start: start-up's collections are reported on their own
        async with app.run_test(size=(120, 40)) as pilot:
            await app_ready(app)
            from agent_tui.ui.startup.gc_tuning import STARTUP_THRESHOLD

            while gc.get_threshold()[0] == STARTUP_THRESHOLD:  # until the app tunes the collector
                await asyncio.sleep(0.01)
            await pilot.pause(0.2)
            startup = pauses.take()
            if max_messages:
                app.chat.max_messages = max_messages
            finished = 0

            def on_event(event: Any) -> None:
                nonlocal finished
                if event.kind == "turn_finished":
                    finished += 1

            app.agent.listeners.append(on_event)
            times: list[float] = []
            print(machine())
            print(f"{turns} turns of a {len(answer):,}-character answer")
            longest_startup = max((t for _, t in startup), default=0.0)
            print(
                f"start-up, before the first prompt: {len(startup)} collections, the longest "
                f"{1e3 * longest_startup:.1f} ms (the one that frees what start-up left)"
            )
            print(
                f"{'turn':>5} {'RSS MB':>8} {'turn ms (median)':>17} {'longest GC ms':>14} "
                f"{'gen2 GCs':>8} {'idle full GCs (longest ms)':>27} {'probe full ms':>14}"
            )
            before = {}
            for turn in range(1, turns + 1):
                started = time.perf_counter()
                target = finished + 1
                from agent_tui.ui.widgets.prompt import PromptInput

                app.query_one(PromptInput).post_message(PromptInput.Submitted(f"turn {turn}"))
                while finished < target or app.live_view.streaming:
                    await asyncio.sleep(0.005)
                await pilot.pause()
                times.append(time.perf_counter() - started)
                if turn in CHECKPOINTS or turn == turns:
                    gen, longest = pauses.longest()
                    rss = rss_mb()
                    gc.callbacks.remove(pauses._callback)  # the probe below is not the app's
                    start = time.perf_counter()
                    gc.collect()
                    full = time.perf_counter() - start
                    gc.callbacks.append(pauses._callback)
                    idle = f"{len(pauses.idle)} ({1e3 * max(pauses.idle, default=0):.1f})"
                    print(
                        f"{turn:>5} {rss:>8.1f} {1e3 * median(times):>17.1f} "
                        f"{1e3 * longest:>11.1f} g{gen} {pauses.count(2):>8} {idle:>27} "
                        f"{1e3 * full:>14.1f}"
                    )
                    times = []
                if turn == 60:
                    gc.callbacks.remove(pauses._callback)  # the probe's collection, not the app's
                    before = survivors()
                    gc.callbacks.append(pauses._callback)
            gc.callbacks.remove(pauses._callback)
            await pilot.pause(0.5)
            for columns in (100, 130):  # a terminal resized with the session on screen
                started = time.perf_counter()
                await pilot.resize_terminal(columns, 40)
                await pilot.pause()
                print(
                    f"resize to {columns} columns: {1e3 * (time.perf_counter() - started):.0f} ms"
                )
            after = survivors()
            if before:
                grown = {k: after[k] - before[k] for k in after}
                per_turn = {k: round(v / max(1, turns - 60), 1) for k, v in grown.items()}
                print(
                    f"objects alive after a full collection, growth per turn after 60: {per_turn}"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--answer", type=int, default=1500)
    parser.add_argument(
        "--max-messages", type=int, default=0, help="the chat's cap (default: the app's own)"
    )
    args = parser.parse_args()
    asyncio.run(run(args.turns, args.answer, args.max_messages))


if __name__ == "__main__":
    main()
