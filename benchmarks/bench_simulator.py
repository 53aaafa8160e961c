"""Rule simulator benchmark: `agent-tui rules try RULE` over 10,000 stored calls.

    python benchmarks/bench_simulator.py              # 10,000 calls, 7 timed runs per rule
    python benchmarks/bench_simulator.py --calls 50000

Seeds a store in a temporary directory with one project's history: 10,000 tool calls over 200
sessions (Bash commands drawn from a pool of ~3,000 distinct ones — git, npm, pytest, rm, sed,
pipelines, redirections, some destructive — plus Read, Edit, Write, Grep and WebFetch calls), and
one other project's calls that must not be read. Then times what the command does after argument
parsing: open the store, query the project's distinct calls, load the rules in force and decide
every covered call twice (rules in force / with the proposed rule). Goal: ≤ 1 s.

Each run starts from nothing cached but the modules (a new store connection and a new parse
cache), so the median is what a person waits for; the first run (imports, tree-sitter's grammar)
is shown on its own.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_tui.sessions.store import SessionStore

GOAL_S = 1.0
RULES = ["Bash(git:*)", "Bash(npm run:*)", "Bash", "Edit(src/**)", "WebFetch(domain:example.com)"]


def _commands(rng: random.Random, n: int) -> list[str]:
    files = [f"src/mod{i}.py" for i in range(60)] + [f"tests/test_{i}.py" for i in range(40)]
    verbs = [
        lambda: f"git log --oneline -{rng.randint(1, 50)}",
        lambda: f"git diff {rng.choice(files)}",
        lambda: f"git add {rng.choice(files)}",
        lambda: f"git commit -m 'change {rng.randint(1, 10_000)}'",
        lambda: f"git push {'--force ' if rng.random() < 0.1 else ''}origin b{rng.randint(1, 40)}",
        lambda: f"git -c core.pager=less log -{rng.randint(1, 9)}",
        lambda: f"npm run test -- {rng.choice(files)}",
        lambda: f"npm install pkg{rng.randint(1, 300)}",
        lambda: f"pytest -q {rng.choice(files)} -k t{rng.randint(1, 99)}",
        lambda: f"rm -rf build/out{rng.randint(1, 50)}",
        lambda: f"sed -i 's/a{rng.randint(1, 99)}/b/' {rng.choice(files)}",
        lambda: f"grep -rn name{rng.randint(1, 500)} src | head -{rng.randint(1, 30)}",
        lambda: f"python -m build > /tmp/log{rng.randint(1, 99)}.txt 2>&1",
        lambda: f"cd src && ls -la && cat {rng.choice(files)} | wc -l",
        lambda: f"echo $(date) >> notes{rng.randint(1, 20)}.txt",
    ]
    return [rng.choice(verbs)() for _ in range(n)]


def seed(path: Path, project: Path, calls: int, rng: random.Random) -> int:
    pool = _commands(rng, 3_000)
    distinct: set[tuple[str, str]] = set()
    with SessionStore(path) as store, store.batch():
        sessions = [store.sessions.create(project, "claude-test") for _ in range(200)]
        other = store.sessions.create(project.parent, "claude-test")
        for i in range(calls):
            r = rng.random()
            if r < 0.7:
                tool, inp = "Bash", {"command": rng.choice(pool)}
            elif r < 0.8:
                tool, inp = "Read", {"file_path": f"src/mod{rng.randint(0, 59)}.py"}
            elif r < 0.9:
                tool = rng.choice(["Edit", "Write"])
                inp = {"file_path": f"src/mod{rng.randint(0, 59)}.py", "old_string": "a"}
            elif r < 0.95:
                tool, inp = "Grep", {"pattern": f"name{rng.randint(1, 200)}"}
            else:
                tool, inp = "WebFetch", {"url": f"https://example.com/p{rng.randint(1, 300)}"}
            distinct.add((tool, str(sorted(inp.items()))))
            store.runs.record(
                rng.choice(sessions), f"t{i}", tool, inp, decision="allow", decided_by="user"
            )
            store.runs.record(other, f"o{i}", "Bash", {"command": "git status"})
    return len(distinct)


def run(db: Path, project: Path, rule: str) -> tuple[float, int, int]:
    from agent_tui.permissions.simulate import load_engine, simulate

    started = time.perf_counter()
    with SessionStore(db) as store:
        rows = store.runs.past_calls(project)
    sim = simulate(load_engine(project), [rule], rows)
    return time.perf_counter() - started, sim.calls, sim.changed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(33)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENT_TUI_HOME"] = str(Path(tmp) / "home")
        project = Path(tmp) / "project"
        (project / "src").mkdir(parents=True)
        db = Path(tmp) / "sessions.db"
        distinct = seed(db, project, args.calls, rng)
        print("load", *(f"{x:.2f}" for x in os.getloadavg()))
        print(f"{args.calls} stored calls in the project ({distinct} distinct), goal ≤ {GOAL_S} s")
        first, _, _ = run(db, project, RULES[0])
        print(f"first run (imports, grammar): {first * 1000:.0f} ms")
        for rule in RULES:
            times = []
            for _ in range(args.runs):
                took, calls, changed = run(db, project, rule)
                times.append(took)
            med = statistics.median(times)
            verdict = "ok" if med <= GOAL_S else "OVER"
            print(
                f"{rule:<32} median {med * 1000:6.0f} ms  min {min(times) * 1000:6.0f}  "
                f"max {max(times) * 1000:6.0f}  ({calls} calls, {changed} would change)  {verdict}"
            )


if __name__ == "__main__":
    main()
