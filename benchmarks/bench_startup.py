"""Startup: time from process launch to the first frame, agent-tui vs a bare Textual app.

Each run is a fresh `python` process running headless; the app exits as soon as its first frame
has been painted. Both kinds are run alternately, and each run of ours is divided by the bare run
just before it; the median of those ratios is the figure, measured in one run on one machine.

    python benchmarks/bench_startup.py [--runs 21] [--resume-turns 500]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The child reports the moment its first frame is painted and leaves at once (os._exit), so
# background work started after the first frame (agent-tui builds its agent in a thread) doesn't
# count, just as a person doesn't wait for it.
FIRST_FRAME = """
import os, sys, time
def first_frame():
    sys.stdout.write(f"{time.time()!r} {time.process_time()!r}")
    sys.stdout.flush()
    os._exit(0)
"""

# Each probe of ours starts as a person's `agent-tui --offline [ARGS]` does: through `cli.main`
# itself (its argument parsing, the home and settings checks, the collector's start-up settings,
# in its order), with the app class it makes given the
# probe's moment (`make_probe(AgentApp)`, put in place as `agent_tui.ui.app` is imported) and run
# headless. Until 2026-12-05 (fifth session) the probes copied those steps instead, and the copy
# had left out the argument parsing and the two checks: ~4 ms of CPU the figures didn't count.
AS_THE_CLI = """
import importlib.machinery, sys

def through_the_cli(make_probe, *args):
    class Hook:  # a finder by its method (`importlib.abc` would load `importlib.resources`)
        def find_spec(self, name, path, target=None):
            if name != "agent_tui.ui.app":
                return None
            sys.meta_path.remove(self)
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            exec_module = spec.loader.exec_module

            def with_probe(module):
                exec_module(module)
                probe = make_probe(module.AgentApp)
                run = probe.run
                probe.run = lambda self, **kwargs: run(self, headless=True)
                module.AgentApp = probe

            spec.loader.exec_module = with_probe
            return spec

    sys.meta_path.insert(0, Hook())
    sys.stdin.isatty = sys.stdout.isatty = lambda: True  # as in a terminal
    from agent_tui.cli import main

    main(["--offline", *args])
"""

BARE = (
    FIRST_FRAME
    + """
from textual.app import App
from textual.widgets import Static

class Bare(App):
    def compose(self):
        yield Static("hello")
    def on_mount(self):
        self.call_after_refresh(first_frame)

Bare().run(headless=True)
"""
)

AGENT = (
    FIRST_FRAME
    + """
"""
    + AS_THE_CLI
    + """

def make_probe(AgentApp):
    class Probe(AgentApp):
        def main_mounted(self):
            # Queued before the app's own after-first-frame work (building the agent), so it
            # fires right after the first frame is painted.
            self.call_after_refresh(first_frame)
            super().main_mounted()

    return Probe

through_the_cli(make_probe)
"""
)


# Time to interactive: the agent is built (tools, permissions, store) and a prompt typed now is
# sent at once, not queued. Measured as the moment the boot's `ready` has run on the UI thread.
INTERACTIVE = (
    FIRST_FRAME
    + """
"""
    + AS_THE_CLI
    + """

def make_probe(AgentApp):
    class Probe(AgentApp):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            ready = self.boot.ready

            def probed(*args):
                ready(*args)
                first_frame()

            self.boot.ready = probed

    return Probe

through_the_cli(make_probe)
"""
)


# A resumed session (`--resume ID`, the id in argv): the moment its history is on screen, the
# frame that paints the resumed tail once it is laid out (only the tail is mounted: older turns
# page in on scrolling up). Until 2026-12-05 (third session) this probe left at the first refresh
# after the tail's mount, before the tail was laid out: those figures were early.
# The boot reads the session's end ahead and draws it before it builds the agent
# (`booting.read_ahead`): the history drawn is the one the agent then holds (`Sessions.agent_ready`
# checks it is). Until 2026-12-05 (fourth session) the probe's `show_history` returned nothing,
# which the app uses (`show_early` waits for the tail's frame before the agent is built): so the
# agent's build took turns with the frame measured, and those figures were late.
RESUMED = (
    FIRST_FRAME
    + """
import sys
"""
    + AS_THE_CLI
    + """

def make_probe(AgentApp):
    from agent_tui.ui.controllers.sessions import Sessions

    class Shown(Sessions):
        def show_history(self, *args, **kwargs):
            tail = super().show_history(*args, **kwargs)
            self.app.chat.after_shown(tail[-1], first_frame)
            return tail  # the app's own use of it: the boot waits for this frame (`show_early`)

    class Probe(AgentApp):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.sessions = Shown(self, self)

    return Probe

through_the_cli(make_probe, "--resume", sys.argv[1])
"""
)


def resumable(home: str, turns: int) -> str:
    """A recorded session of `turns` turns (prompts, 1.5 KB markdown answers, every fifth turn a
    tool call and its output), made with the store's bulk import as bench_memory.py does."""
    from bench_memory import conversation

    messages = conversation(turns * 3)
    prompts = [i for i, m in enumerate(messages) if isinstance(m["content"], str)]
    messages = messages[: prompts[turns]] if len(prompts) > turns else messages
    os.environ["AGENT_TUI_HOME"] = home
    from agent_tui.sessions.store import SessionStore

    with SessionStore.open_default() as store:
        session_id = store.sessions.create(Path(home), "offline", title="resume benchmark")
        store.messages.extend(session_id, messages)
    return session_id


#: the CPU time (all threads) each kind of run had used at its moment, by kind (`run_once`)
cpu: dict[str, list[float]] = {}


def run_once(code: str, env: dict[str, str], *args: str, kind: str = "") -> float:
    """Seconds from launch to the child's moment; with `kind`, its CPU time until then is kept
    in `cpu` (under load the wall clock also counts the time the host gave others)."""
    started = time.time()
    done = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, check=True, capture_output=True, text=True
    )
    at, used = (float(x) for x in done.stdout.strip().splitlines()[-1].split())
    if kind:
        cpu.setdefault(kind, []).append(used)
    return at - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument(
        "--resume-turns",
        type=int,
        default=500,
        help="also time `--resume` of a recorded session of this many turns (0: don't)",
    )
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="agent-tui-bench-")
    session = resumable(home, args.resume_turns) if args.resume_turns else ""
    env = {**os.environ, "AGENT_TUI_HOME": home}
    env.pop("ANTHROPIC_API_KEY", None)
    # Bytecode is cached as for any installed package (pip compiles on install): with
    # PYTHONDONTWRITEBYTECODE set, as on some CI machines, our modules (an editable install) would
    # be compiled from source at every start while Textual's come compiled.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # Warm the OS file cache and bytecode once for each, so neither pays for the first import.
    run_once(BARE, env)
    run_once(INTERACTIVE, env)
    if session:
        run_once(RESUMED, env, session)
    bare: list[float] = []
    agent: list[float] = []
    ready: list[float] = []
    resumed: list[float] = []
    for _ in range(args.runs):
        bare.append(run_once(BARE, env, kind="bare"))
        agent.append(run_once(AGENT, env, kind="first frame"))
        ready.append(run_once(INTERACTIVE, env, kind="interactive"))
        if session:
            resumed.append(run_once(RESUMED, env, session, kind="--resume"))
    b, a, r = (statistics.median(x) for x in (bare, agent, ready))
    # Each run of ours is paired with the bare run just before it: on a shared machine whose speed
    # drifts, the median of those ratios is steadier than a ratio of medians.
    paired = sorted(x / y for x, y in zip(agent, bare, strict=True))

    def spread(xs: list[float]) -> str:
        return f"{min(xs) * 1000:.0f}-{max(xs) * 1000:.0f} ms"

    print(f"bare Textual app (one Static): median {b * 1000:.0f} ms ({spread(bare)})")
    print(f"agent-tui first frame:         median {a * 1000:.0f} ms ({spread(agent)})")
    print(f"agent-tui interactive:         median {r * 1000:.0f} ms ({spread(ready)})")
    # The goal is read on the paired ratio: on this shared machine the bare app's own median moves
    # by 1.3x from one run of this script to the next, and a ratio of two medians with it.
    print(
        f"first frame / bare, each run paired with the bare run before it: median "
        f"{statistics.median(paired):.2f}x ({paired[0]:.2f}-{paired[-1]:.2f}) (goal <= 1.3x)"
    )
    print(f"ratio of the medians: {a / b:.2f}x, over {args.runs} runs each")
    print(f"time to interactive: {r * 1000:.0f} ms (goal <= 600 ms)")
    to_ready = sorted(x / y for x, y in zip(ready, bare, strict=True))
    print(
        f"time to interactive / bare first frame, paired: median "
        f"{statistics.median(to_ready):.2f}x ({to_ready[0]:.2f}-{to_ready[-1]:.2f}) "
        "(reported: no longer a goal, issue 48)"
    )
    if resumed:
        back = sorted(x / y for x, y in zip(resumed, bare, strict=True))
        print(
            f"--resume of a {args.resume_turns}-turn session, history painted: median "
            f"{statistics.median(resumed) * 1000:.0f} ms ({spread(resumed)}); / bare first "
            f"frame, paired: median {statistics.median(back):.2f}x ({back[0]:.2f}-{back[-1]:.2f}) "
            "(goal <= 1.5x, issue 34)"
        )
    # The process's own CPU time until each moment: what the app does, apart from what a busy
    # host takes from the wall clock (a ratio of medians; the wall-clock goals are read above).
    base = statistics.median(cpu["bare"])
    used = ", ".join(
        f"{kind} {statistics.median(xs) * 1000:.0f} ms ({statistics.median(xs) / base:.2f}x)"
        for kind, xs in cpu.items()
        if kind != "bare"
    )
    print(f"CPU time until then (median): bare {base * 1000:.0f} ms; {used}")


if __name__ == "__main__":
    main()
