"""Responsiveness: how long the event loop is held while an answer streams at a reading pace.

First 100 KB of earlier answers are streamed (at full speed, through the real pipeline) and left on
screen; then a 5 KB answer streams at 100 tokens/s (1 token = 4 characters; the offline provider's
own pacing, scaled) while a 5 ms ticker measures event-loop gaps: a key pressed during a gap waits
that long. Reported: the 95th percentile and worst gap (goal: p95 ≤ 50 ms), and frame intervals.

    python benchmarks/bench_responsiveness.py [--earlier-kb 100] [--answer-kb 5] [--rate 100]
"""

from __future__ import annotations

import argparse
import asyncio

from _common import (
    CHARS_PER_TOKEN,
    Frames,
    LoopGaps,
    app_ready,
    ask,
    bench_env,
    machine,
    make_answer,
    mean_chunk_chars,
    median,
    ms,
    offline_answers,
    pace,
    percentile,
)

EARLIER_PIECES = 4  # earlier answers of (earlier-kb / 4) each, like a session's last few turns


def code_fence(chars: int) -> str:
    """One fenced Python block of about `chars` characters (a file shown whole)."""
    lines = ["Here is the whole file:", "", "```python"]
    n = 0
    size = 0
    while size < chars:
        block = [
            f"def handler_{n}(request, retries=3):",
            f'    """Handle request {n}."""',
            f"    return dispatch(request, route={n}, retries=retries)  # {n}",
            "",
        ]
        lines += block
        size += sum(len(line) + 1 for line in block)
        n += 1
    return "\n".join([*lines, "```", "", "That is all of it."]) + "\n"


async def run(earlier_kb: int, answer_kb: int, rate: float, fence: bool = False) -> None:
    from agent_tui.runtime import Options
    from agent_tui.ui.startup.gc_tuning import for_startup

    for_startup()  # as the command line does (cli.main)
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.startup.gc_tuning import freeze_imports

    freeze_imports()  # as the command line does

    answers = {
        f"earlier{i}": make_answer(earlier_kb * 1000 // EARLIER_PIECES, seed=i)
        for i in range(EARLIER_PIECES)
    }
    live = code_fence(answer_kb * 1000) if fence else make_answer(answer_kb * 1000, seed=99)
    answers["live"] = live
    with bench_env() as home, offline_answers(answers):
        app = AgentApp(Options(offline=True, cwd=home), tune_collector=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await app_ready(app)
            for i in range(EARLIER_PIECES):
                await ask(app, pilot, f"earlier{i}")
            await pilot.pause(0.5)
            # The provider sleeps `0.02 * delay_scale` s per delta of about `chunk` characters.
            chunk = mean_chunk_chars(live)
            pace(app, chunk / CHARS_PER_TOKEN / rate / 0.02)
            gaps, frames = LoopGaps(), Frames(app.screen)
            gaps.start()
            await asyncio.sleep(0.1)
            gaps.recording = frames.recording = True
            seconds = await ask(app, pilot, "live")
            gaps.recording = frames.recording = False
            await gaps.stop()
            if app.recorder is not None:
                app.recorder.close()
    intervals = frames.intervals()
    print(f"machine: {machine()}")
    print(
        f"{earlier_kb} KB of earlier answers on screen; a {answer_kb} KB "
        f"{'code fence' if fence else 'answer'} streamed in "
        f"{seconds:.1f} s = {len(live) / CHARS_PER_TOKEN / seconds:.0f} tokens/s "
        f"(asked for {rate:.0f}; 1 token = {CHARS_PER_TOKEN} chars)"
    )
    print(
        f"event-loop gaps ({len(gaps.gaps)} ticks of 5 ms): median {ms(median(gaps.gaps))}, "
        f"p95 {ms(percentile(gaps.gaps, 95))} (goal <= 50 ms), "
        f"p99 {ms(percentile(gaps.gaps, 99))}, worst {ms(max(gaps.gaps, default=0.0))}"
    )
    print(
        f"frames: {len(frames.times)}, interval median {ms(median(intervals))}, "
        f"p95 {ms(percentile(intervals, 95))}, worst {ms(max(intervals, default=0.0))}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--earlier-kb", type=int, default=100)
    parser.add_argument("--answer-kb", type=int, default=5)
    parser.add_argument("--rate", type=float, default=100.0, help="tokens/s of the live answer")
    parser.add_argument(
        "--fence", action="store_true", help="the live answer is one long code fence"
    )
    args = parser.parse_args()
    asyncio.run(run(args.earlier_kb, args.answer_kb, args.rate, args.fence))


if __name__ == "__main__":
    main()
