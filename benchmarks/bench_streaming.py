"""Streaming: long markdown answers through the real pipeline into the chat pane, at full speed.

The offline provider (delay 0) streams a synthetic answer with headings, prose, code blocks and
tables in its usual 3-word deltas → StreamAssembler → agent loop (and the session recorder) →
AgentApp's chat pane, headless. Each size runs in a fresh app; the clock runs from submitting the
prompt until the answer is finished, collapsed and painted.

Reported, all from one run of this script (each size's time and CPU time of every run too, its
spread):
- tokens/s, with a token counted as 4 characters (deltas/s too) — goal ≥ 2,000 tokens/s;
- time(200 KB) / time(100 KB) — goal ≤ 2.2 (linear);
- the worst frame interval (between compositor updates) and the worst event-loop gap while
  streaming;
- the process's CPU time for each size, their ratio, and the frames painted: under load a frame
  comes per interval of wall time, so a slower run paints more frames, and a ratio over 2 in
  wall time with one near 2 in CPU time is the machine's scheduling, not the app's work.

    python benchmarks/bench_streaming.py [--sizes 100 200] [--repeat 1]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
from dataclasses import dataclass

from _common import (
    CHARS_PER_TOKEN,
    Frames,
    LoopGaps,
    app_ready,
    ask,
    bench_env,
    machine,
    make_answer,
    median,
    ms,
    offline_answers,
    percentile,
)


@dataclass
class Result:
    kb: int
    seconds: float
    chars: int
    deltas: int
    worst_frame: float
    worst_gap: float
    p95_gap: float
    widgets: int
    #: the process's CPU time over the same span (all threads), and the frames painted in it
    cpu: float
    frames: int


async def stream_once(kb: int) -> Result:
    from agent_tui.protocol.events import TextDelta
    from agent_tui.runtime import Options
    from agent_tui.ui.startup.gc_tuning import for_startup

    for_startup()  # as the command line does (cli.main)
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.startup.gc_tuning import freeze_imports

    freeze_imports()  # as the command line does
    from agent_tui.ui.chat.messages import AssistantMessage

    answer = make_answer(kb * 1000, seed=kb)
    with bench_env() as home, offline_answers({"answer": answer}):
        app = AgentApp(Options(offline=True, cwd=home), tune_collector=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await app_ready(app)
            deltas = 0

            def count(event: object) -> None:
                nonlocal deltas
                deltas += isinstance(event, TextDelta)

            app.agent.listeners.append(count)
            gaps, frames = LoopGaps(), Frames(app.screen)
            gaps.start()
            gaps.recording = frames.recording = True
            cpu = time.process_time()
            seconds = await ask(app, pilot, "answer")
            cpu = time.process_time() - cpu
            gaps.recording = frames.recording = False
            await gaps.stop()
            message = app.query(AssistantMessage).last()
            assert message.text == answer, "the streamed answer differs from what was sent"
            widgets = len(list(message.walk_children()))
            if app.recorder is not None:
                app.recorder.close()
    return Result(
        kb,
        seconds,
        len(answer),
        deltas,
        max(frames.intervals(), default=0.0),
        max(gaps.gaps, default=0.0),
        percentile(gaps.gaps, 95),
        widgets,
        cpu,
        len(frames.intervals()) + 1,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs=2, default=[100, 200], metavar="KB")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size (medians reported)")
    args = parser.parse_args()
    small, big = args.sizes
    runs: dict[int, list[Result]] = {small: [], big: []}
    asyncio.run(stream_once(10))  # warm-up: first-use costs (lexers, caches) count for neither
    for i in range(args.repeat):
        # Alternate, so load on the machine hits both sizes alike, in a balanced order (small
        # first, then big first): a drift over the process's life then favours neither size.
        for kb in (small, big) if i % 2 == 0 else (big, small):
            # Each run in a fresh app *and* a heap without the last app's garbage: full
            # collections wait for a turn's end (`gc_tuning`), so each finished app's widgets
            # stayed in the heap of the runs after it, and every run was slower than the one
            # before (100 KB six times in one process: 1.31 -> 1.43 s of CPU; with a collection
            # between, flat), which a fixed order (small, big) counted against the big size.
            gc.collect()
            runs[kb].append(asyncio.run(stream_once(kb)))
    print(f"machine: {machine()}")
    for kb, results in runs.items():
        seconds = median([r.seconds for r in results])
        r = results[0]
        tokens = r.chars / CHARS_PER_TOKEN  # the worst frame / gap below: worst over all runs
        each = ", ".join(f"{x.seconds:.2f}" for x in results)  # the spread: every run, in order
        print(
            f"{kb:>4} KB: {seconds:6.2f} s ({each})  {tokens / seconds:8,.0f} tokens/s "
            f"({r.deltas / seconds:,.0f} deltas/s, {r.deltas} deltas)  "
            f"worst frame interval {ms(max(x.worst_frame for x in results))}, "
            f"loop gap p95 {ms(max(x.p95_gap for x in results))} / "
            f"worst {ms(max(x.worst_gap for x in results))}, "
            f"{r.widgets} widgets in the finished answer"
        )
    t_small = median([r.seconds for r in runs[small]])
    t_big = median([r.seconds for r in runs[big]])
    rate = min(median([r.chars / CHARS_PER_TOKEN / r.seconds for r in runs[kb]]) for kb in runs)
    print(f"tokens/s (slower size, 1 token = {CHARS_PER_TOKEN} chars): {rate:,.0f} (goal >= 2,000)")
    print(f"time({big} KB) / time({small} KB): {t_big / t_small:.2f} (goal <= 2.2)")
    cpu_small, cpu_big = (median([r.cpu for r in runs[kb]]) for kb in (small, big))
    for kb in (small, big):
        print(f"CPU time of each {kb} KB run: " + ", ".join(f"{r.cpu:.2f} s" for r in runs[kb]))
    frames_small, frames_big = (median([r.frames for r in runs[kb]]) for kb in (small, big))
    print(
        f"CPU time (the process, median): {cpu_small:.2f} s / {cpu_big:.2f} s, ratio "
        f"{cpu_big / cpu_small:.2f}; frames painted {frames_small:.0f} / {frames_big:.0f} "
        "(under load a wall-clock ratio also counts the frames a slower run paints)"
    )


if __name__ == "__main__":
    main()
