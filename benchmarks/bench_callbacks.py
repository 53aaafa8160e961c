"""CPU time of every event-loop callback while a person works, and of every garbage collection.

One app (headless, 120×40, offline model, recording the session as the CLI does), in phases:
- start-up: from before the app is built until the agent is ready;
- streaming: 100 KB of earlier answers (a markdown mix of prose, lists, tables and code fences,
  each section different) streamed at full speed and left on screen, then a 5 KB answer at
  100 tokens/s (the offline provider's own pacing, scaled);
- typing: a 160-character prompt typed key by key (30 ms apart), with backspaces and cursor keys;
- approval: a Bash call that writes a file, its dialog answered with `y`;
- tool output: a Bash call printing 2,000 lines (allowed by a rule, so no dialog);
- resize: the terminal resized between 120×40, 90×30 and 160×50, each frame let settle;
- languages: an answer streamed at 100 tokens/s with a code fence in each of six languages
  the process hasn't highlighted yet (CSS, Kotlin, TypeScript, SQL, Ruby, Swift), whose lexers
  Pygments compiles at their first use (8-35 ms each);
- paused: nobody types for a few seconds, when a full collection that fell due runs (the app
  waits for such a pause, `ui/controllers/quiet_collect.py`): its callback is counted here.

Every callback of the loop (task steps, timers, call_soon) is timed with `time.thread_time()`:
the CPU this thread used, which load on the machine does not inflate the way wall time is. The
longest ten are named with the Textual messages handled inside them, and with any collection
that ran inside them. The benchmark's own task (it posts keys and prompts, polls, resizes, and
never paints: the app's timer does) is timed apart and reported on its own line. The project's
trust dialog (its settings allow the tool-output command) is answered during start-up, as a
person does before working. Goals (issue 34): no
callback over 30 ms of CPU in the phases after start-up; no collection over 50 ms anywhere.

    python benchmarks/bench_callbacks.py [--earlier-kb 100] [--answer-kb 5] [--rate 100]
        [--approvals N] [--backdrop dimmed|opaque|alternate]

`--approvals 12 --backdrop alternate` asks twelve dialogs in the approval phase, every other one
with nothing rendered behind it, and lists each one's longest callback: in one process the
host's speed drifts less between the two kinds than between runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
from typing import Any

from _common import (
    CHARS_PER_TOKEN,
    app_ready,
    ask,
    bench_env,
    machine,
    make_answer,
    mean_chunk_chars,
    pace,
    wait_until,
)
from _loop_cpu import LoopCPU

EARLIER_PIECES = 4
APPROVE_COMMAND = "printf 'one\\ntwo\\n' > approved.txt && cat approved.txt"
OUTPUT_COMMAND = "seq 1 2000"


def script(earlier_kb: int, answer_kb: int) -> dict[str, object]:
    scenarios: list[dict[str, object]] = [
        {
            "name": f"earlier{i}",
            "match": [f"earlier{i}"],
            "steps": [[{"text": make_answer(earlier_kb * 1000 // EARLIER_PIECES, seed=i)}]],
        }
        for i in range(EARLIER_PIECES)
    ]
    scenarios += [
        {"name": "live", "match": ["live"], "steps": [[{"text": live_answer(answer_kb)}]]},
        {"name": "languages", "match": ["languages"], "steps": [[{"text": languages_answer()}]]},
        {
            "name": "approve",
            "match": ["approve"],
            "steps": [
                [
                    {"text": "I'll write the file."},
                    {"tool_use": {"name": "Bash", "input": {"command": APPROVE_COMMAND}}},
                ],
                [{"text": "Done: `approved.txt` has two lines."}],
            ],
        },
        {
            "name": "output",
            "match": ["output"],
            "steps": [
                [
                    {"text": "Counting."},
                    {"tool_use": {"name": "Bash", "input": {"command": OUTPUT_COMMAND}}},
                ],
                [{"text": "That printed **2,000** lines."}],
            ],
        },
    ]
    return {"default": "live", "scenarios": scenarios}


async def answer_trust(app: Any, pilot: Any) -> None:
    """Trust the project, as the person does at start-up: its settings (the rule that allows
    the tool-output command) make the app ask. Left open, the dialog sat over the chat for the
    whole streaming phase, so every frame repainted the dimmed screen behind it in full (not
    what a person streaming an answer sees), and typing's "t" answered it."""
    from agent_tui.ui.screens.trust import TrustScreen

    await wait_until(lambda: isinstance(app.screen, TrustScreen), 10)
    app.screen.guard_s = 0.0
    await pilot.press("t")
    await wait_until(lambda: len(app.screen_stack) == 1, 10)


def resize(app: Any, width: int, height: int) -> None:
    """The terminal resized, as `Pilot.resize_terminal` does it but without its paint from the
    benchmark's task: the app's own timer paints, so that paint is counted as the app's."""
    from textual.drivers.headless_driver import HeadlessDriver
    from textual.events import Resize
    from textual.geometry import Size

    size = Size(width, height)
    if isinstance(app._driver, HeadlessDriver):
        app._driver._size = size
    app.post_message(Resize(size, size))


def backdrop_for(app: Any, opaque: Any) -> None:
    """Each dialog, as it is pushed (the queue's `on_show`, before its first frame), gets the
    main screen's opaque background when `opaque()` says so: Textual then renders nothing
    behind it, where the app's translucent one has the whole chat rendered and dimmed."""
    shown = app.approvals.on_show

    def on_show(request: Any) -> None:
        if opaque():
            app.approvals.current.styles.background = app.screen_stack[0].styles.background
        if shown is not None:
            shown(request)

    app.approvals.on_show = on_show


def live_answer(answer_kb: int) -> str:
    return make_answer(answer_kb * 1000, seed=99)


#: languages no earlier phase highlights, and code in each
LANGUAGES = {
    "css": "body { margin: 0 auto; color: #222; }\na:hover { text-decoration: underline; }",
    "kotlin": "fun main() {\n    val xs = listOf(1, 2, 3)\n    println(xs.map { it * 2 })\n}",
    "typescript": "interface Row { id: number; name?: string }\nconst rows: Row[] = [];",
    "sql": "SELECT name, count(*) FROM rows WHERE id > 3 GROUP BY name ORDER BY 2 DESC;",
    "ruby": 'class Greeter\n  def hello(name) = puts "hello #{name}"\nend',
    "swift": "struct Point { var x = 0.0, y = 0.0 }\nlet p = Point(x: 1, y: 2)",
}


def languages_answer() -> str:
    """Prose and a fence in each of `LANGUAGES`, as an answer comparing them would be."""
    parts = [make_answer(300, seed=7)]
    for language, code in LANGUAGES.items():
        parts.append(f"In {language}, the same idea:\n\n```{language}\n{code}\n```\n")
    return "\n".join(parts)


async def run(
    earlier_kb: int,
    answer_kb: int,
    rate: float,
    profile_over_ms: float | None = None,
    approvals: int = 1,
    backdrop: str = "dimmed",
) -> LoopCPU:
    from agent_tui.providers import offline

    probe = LoopCPU(profile_over_ms=profile_over_ms)
    probe.driver = asyncio.current_task()
    probe.install()  # before the app module is imported: start-up's collections count too
    from agent_tui.runtime import Options
    from agent_tui.ui.startup.gc_tuning import for_startup

    for_startup()  # as the command line does (cli.main)
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.controllers.quiet_collect import QUIET_S
    from agent_tui.ui.startup.gc_tuning import freeze_imports

    freeze_imports()  # as the command line does
    from agent_tui.ui.widgets.prompt import PromptInput

    original = offline._script
    # Made once, as the provider's own loader is cached: made at each request (until
    # 2026-12-05), 100 KB of answers were generated inside the agent's task, a callback of the
    # app's loop, 10-20 ms each time, counted in the phases' figures.
    made = script(earlier_kb, answer_kb)
    offline._script = lambda: made  # type: ignore[assignment]
    try:
        with bench_env() as home:
            work = home / "work"
            (work / ".agent-tui").mkdir(parents=True)
            (work / ".agent-tui" / "settings.toml").write_text(
                f'[permissions]\nallow = ["Bash({OUTPUT_COMMAND})"]\n'
            )
            # The sandbox off, so that the approval phase asks (in auto mode the sandbox would run
            # its command unasked, and the phase waited for a dialog that never came).
            app = AgentApp(Options(offline=True, cwd=work, sandbox="off"), tune_collector=True)
            async with app.run_test(size=(120, 40)) as pilot:
                await app_ready(app)
                await answer_trust(app, pilot)
                await asyncio.sleep(0.3)
                app.approvals.guard_s = 0.0

                probe.phase = "streaming"
                for i in range(EARLIER_PIECES):
                    await ask(app, pilot, f"earlier{i}", paint=False)
                live = live_answer(answer_kb)
                chunk = mean_chunk_chars(live)
                pace(app, chunk / CHARS_PER_TOKEN / rate / 0.02)
                await ask(app, pilot, "live", paint=False)
                pace(app, 0)

                probe.phase = "typing"
                prompt = app.query_one(PromptInput)
                prompt.focus()
                text = "please look at the failing test in tests/ui and explain what the " * 2
                for ch in text[:160]:
                    await pilot.press("space" if ch == " " else ch)
                    await asyncio.sleep(0.03)
                for key in ["left"] * 20 + ["backspace"] * 10 + ["end"] + ["backspace"] * 30:
                    await pilot.press(key)
                    await asyncio.sleep(0.03)
                prompt.clear()

                probe.phase = "approval"
                opaque = [False]
                backdrop_for(app, lambda: opaque[0])
                for i in range(approvals):
                    start = len(probe.cpu.get("approval", []))
                    opaque[0] = backdrop == "opaque" or (backdrop == "alternate" and i % 2 == 1)
                    prompt.post_message(PromptInput.Submitted("approve"))
                    await wait_until(lambda: app.approvals.current is not None, 60)
                    # keys answer once the dialog is armed: a slow host paints it later
                    await wait_until(lambda: getattr(app.screen, "armed", False), 60)
                    # one dialog: answered soon; several: each slower than the rubber-stamp
                    # guard's "fast" (1 s), which would pause the next dialog's keys
                    await asyncio.sleep(0.2 if approvals == 1 else 1.1)
                    await pilot.press("y")
                    await wait_until(lambda: not app.agent.running, 60)
                    await asyncio.sleep(0.3)
                    dialog = probe.cpu["approval"][start:]
                    probe.marked.append(("opaque" if opaque[0] else "dimmed", max(dialog)))

                probe.phase = "tool output"
                before = len(app.agent.messages)
                prompt.post_message(PromptInput.Submitted("output"))
                await wait_until(
                    lambda: len(app.agent.messages) >= before + 4 and not app.agent.running, 60
                )
                await asyncio.sleep(0.3)

                probe.phase = "resize"
                for size in [(90, 30), (160, 50), (120, 40)] * 2:
                    resize(app, *size)
                    await asyncio.sleep(0.3)
                probe.phase = "languages"
                pace(app, mean_chunk_chars(languages_answer()) / CHARS_PER_TOKEN / rate / 0.02)
                await ask(app, pilot, "languages", paint=False)
                pace(app, 0)
                await asyncio.sleep(0.3)
                # Nobody types: a full collection that fell due waits for such a pause
                # (`ui/controllers/quiet_collect.py`) and is counted here, where it runs.
                probe.phase = "paused"
                await asyncio.sleep(QUIET_S + 1.0)
                probe.phase = "end"
                if app.recorder is not None:
                    app.recorder.close()
    finally:
        offline._script = original  # type: ignore[assignment]
        probe.uninstall()
    return probe


def dialogs_report(dialogs: list[tuple[str, float]]) -> str:
    """Each dialog's longest callback (its first frame, as a rule), by backdrop."""
    lines = ["each approval dialog's longest callback (ms of CPU, in the order asked):"]
    for kind in ("dimmed", "opaque"):
        cpu = [ms * 1000 for k, ms in dialogs if k == kind]
        if cpu:
            over = sum(ms > 30 for ms in cpu)
            shown = " ".join(f"{ms:.1f}" for ms in cpu)
            lines.append(
                f"  {kind:7} {shown}; median {statistics.median(cpu):.1f}, "
                f"longest {max(cpu):.1f}, {over} of {len(cpu)} over 30 ms"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--earlier-kb", type=int, default=100)
    parser.add_argument("--answer-kb", type=int, default=5)
    parser.add_argument("--rate", type=float, default=100.0, help="tokens/s of the live answer")
    parser.add_argument(
        "--approvals",
        type=int,
        default=1,
        metavar="N",
        help="dialogs asked in the approval phase, one after the other (each one's longest "
        "callback is listed)",
    )
    parser.add_argument(
        "--backdrop",
        choices=["dimmed", "opaque", "alternate"],
        default="dimmed",
        help="the screen behind each dialog: dimmed (the app's), opaque (nothing rendered "
        "behind it: what the dimmed chat costs), or alternate dialogs each",
    )
    parser.add_argument(
        "--profile-over",
        type=float,
        metavar="MS",
        help="profile every callback (cProfile: slower) and print, per phase, where those over "
        "MS ms of CPU spent it",
    )
    args = parser.parse_args()
    load = os.getloadavg() if hasattr(os, "getloadavg") else ()
    probe = asyncio.run(
        run(
            args.earlier_kb,
            args.answer_kb,
            args.rate,
            args.profile_over,
            approvals=args.approvals,
            backdrop=args.backdrop,
        )
    )
    print(
        f"machine: {machine()}; load average before the run: {' '.join(f'{x:.2f}' for x in load)}"
    )
    print("\n".join(probe.report()))
    if len(probe.marked) > 1:
        print(dialogs_report(probe.marked))
    for phase, stats in probe.profiles.items():
        print(f"--- where the callbacks over {args.profile_over} ms spent it: {phase}")
        stats.sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
