"""Memory: resident set size once a 2,000-message session is open in the app.

Builds a session with the store's own bulk path (`store.messages.extend`) in a temporary
AGENT_TUI_HOME: prompts, markdown answers with code and tables (about 1.5 KB each), and tool calls
with their results. Then a fresh process opens it (`Options(resume=ID)`, headless, offline model),
waits until the resumed history is on screen, and reports its RSS; a second fresh process opens
the app with no session as the baseline. Both run alternately, a few times; medians reported.

    python benchmarks/bench_memory.py [--messages 2000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import machine, make_answer

CHILD = """
import asyncio, gc, json, sys, time
from agent_tui.runtime import Options
from agent_tui.ui.startup.gc_tuning import for_startup
for_startup()  # as the command line does (cli.main)
from agent_tui.ui.app import AgentApp
from agent_tui.ui.startup.gc_tuning import freeze_imports
freeze_imports()  # as the command line does, once the UI is imported

def rss_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

async def main(resume):
    app = AgentApp(Options(offline=True, resume=resume or None), tune_collector=True)
    started = time.perf_counter()
    async with app.run_test(size=(120, 40)) as pilot:
        while app.agent is None or (resume and not app.agent.messages):
            await pilot.pause(0.05)
        await pilot.pause(0.5)  # the history's widgets mounted, laid out and painted
        ready = time.perf_counter() - started
        gc.collect()
        widgets = len(list(app.screen.walk_children()))
        print(json.dumps({"rss_kb": rss_kb(), "messages": len(app.agent.messages),
                          "widgets": widgets, "ready_s": ready}))
        if app.recorder is not None:
            app.recorder.close()

asyncio.run(main(sys.argv[1]))
"""


def conversation(n: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    i = 0
    while len(messages) < n:
        messages.append({"role": "user", "content": f"Question {i}: how does part {i} work?"})
        if i % 5 == 4 and len(messages) + 3 <= n:  # every fifth turn runs a tool
            tool_id = f"toolu_{i:05d}"
            call = {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": "ls"}}
            result = {"type": "tool_result", "tool_use_id": tool_id, "content": "a\nb\nc\n" * 50}
            messages.append({"role": "assistant", "content": [call]})
            messages.append({"role": "user", "content": [result]})
        text = make_answer(1500, seed=i)
        messages.append({"role": "assistant", "content": [{"type": "text", "text": text}]})
        i += 1
    return messages[:n]


def build(home: Path, n: int) -> str:
    os.environ["AGENT_TUI_HOME"] = str(home)
    from agent_tui.sessions.store import SessionStore

    with SessionStore.open_default() as store:
        session_id = store.sessions.create(home, "offline", title="memory benchmark")
        store.messages.extend(session_id, conversation(n))
    return session_id


def measure(resume: str, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, resume], env=env, check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="agent-tui-bench-"))
    session_id = build(home, args.messages)
    env = {**os.environ, "AGENT_TUI_HOME": str(home), "AGENT_TUI_OFFLINE_DELAY": "0"}
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        env.pop(name, None)
    base: list[dict[str, Any]] = []
    big: list[dict[str, Any]] = []
    for _ in range(args.runs):
        base.append(measure("", env))
        big.append(measure(session_id, env))
    b = statistics.median(r["rss_kb"] for r in base) / 1024
    s = statistics.median(r["rss_kb"] for r in big) / 1024
    print(f"machine: {machine()}")
    print(f"empty app:                 RSS {b:6.1f} MB ({base[0]['widgets']} widgets)")
    print(
        f"{big[0]['messages']}-message session open: RSS {s:6.1f} MB "
        f"({big[0]['widgets']} widgets, ready in "
        f"{statistics.median(r['ready_s'] for r in big):.2f} s)"
    )
    print(f"difference: {s - b:+.1f} MB; ratio {s / b:.2f}x (medians of {args.runs} runs each)")


if __name__ == "__main__":
    main()
