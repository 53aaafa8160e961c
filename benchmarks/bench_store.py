"""Session store benchmark: 10,000 sessions with 1,000,000 messages, then list / search / open.

    python benchmarks/bench_store.py            # full size (a few minutes to build)
    python benchmarks/bench_store.py --scale 0.1

Builds the database in a temporary directory with the store's own bulk path (`messages.extend`
inside `batch()`, so redaction, indexing and titles run as in real use), then times, against the
goals from the issue:

- list: the newest 50 sessions (and the newest 50 of one directory) — goal ≤ 50 ms
- search: FTS queries (rare word, common word, two words, a prefix, punctuation) — goal ≤ 100 ms
- open: open the store and load the last 50 messages of a 5,000-message session, i.e. what the
  screen needs for its first frame — goal ≤ 0.3 s; a full load of those 5,000 messages (resume,
  with repair) is reported too.

Each timing is the median of several runs (the first, cold-cache run is shown as well).
"""

from __future__ import annotations

import argparse
import io
import itertools
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_tui.protocol.events import Usage
from agent_tui.sessions.store import SessionStore

SESSIONS = 10_000
MESSAGES = 1_000_000
BIG = 5_000
GOALS = {"list": 0.050, "search": 0.100, "open": 0.300, "all": 1.0}


def _vocabulary(rng: random.Random, n: int = 5_000) -> list[str]:
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "po", "da", "qu", "xe", "fi"]
    words = {"".join(rng.choices(syllables, k=rng.randint(1, 4))) for _ in range(n * 2)}
    return sorted(words)[:n]


class Corpus:
    """Zipf-ish text, plus a few marker words whose frequency is known."""

    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.words = _vocabulary(self.rng)
        self.cum_weights = list(itertools.accumulate(1 / (i + 1) for i in range(len(self.words))))
        self.commands = ["git status", "pytest -q", "ls -la", "make build", "npm run test:unit"]

    def text(self, k: int) -> str:
        return " ".join(self.rng.choices(self.words, cum_weights=self.cum_weights, k=k))

    def conversation(self, n: int, tag: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        i = 0
        while len(out) < n:
            prompt = self.text(12)
            if i == 0 and tag % 1000 == 0:
                prompt += " needle"  # a rare word: ten sessions at full scale
            out.append({"role": "user", "content": prompt})
            tool_id = f"toolu_{tag}_{i}"
            out.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": self.text(30)},
                        {
                            "type": "tool_use",
                            "id": tool_id,
                            "name": "Bash",
                            "input": {"command": self.rng.choice(self.commands)},
                        },
                    ],
                }
            )
            out.append(
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": tool_id, "content": self.text(20)}
                    ],
                }
            )
            out.append({"role": "assistant", "content": [{"type": "text", "text": self.text(25)}]})
            i += 1
        return out[:n]


def build(path: Path, sessions: int, messages: int) -> str:
    corpus = Corpus()
    store = SessionStore(path)
    per = (messages - BIG) // max(sessions - 1, 1)
    big_id = ""
    start = time.time() - 365 * 86400
    t0 = time.perf_counter()
    for chunk in range(0, sessions, 100):
        with store.batch():
            for n in range(chunk, min(chunk + 100, sessions)):
                at = start + n * (365 * 86400 / sessions)
                cwd = f"/home/me/project{n % 50}"
                sid = store.sessions.create(cwd, "claude-sonnet-4-5", created_at=at)
                count = BIG if n == sessions // 2 else per
                store.messages.extend(sid, corpus.conversation(count, n), at=at)
                store.turns.record(sid, Usage(1000, 200), 0.01, finished_at=at)
                if n == sessions // 2:
                    big_id = sid
        done = min(chunk + 100, sessions)
        if done % 1000 == 0:
            rate = done / (time.perf_counter() - t0)
            print(f"  built {done}/{sessions} sessions ({rate:.0f}/s)", file=sys.stderr)
    store.close()
    return big_id


def timed(fn: Callable[[], Any], runs: int = 7) -> tuple[float, float, Any]:
    """(first run, median of the rest, last result)."""
    times = []
    result = None
    for _ in range(runs):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return times[0], statistics.median(times[1:] or times), result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the full size")
    parser.add_argument("--dir", type=Path, help="build here instead of a temp dir (kept)")
    args = parser.parse_args(argv)

    sessions = max(2, int(SESSIONS * args.scale))
    messages = max(BIG + sessions, int(MESSAGES * args.scale))
    with tempfile.TemporaryDirectory(prefix="bench-store-") as tmp:
        root = args.dir or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        path = root / "sessions.db"
        path.unlink(missing_ok=True)
        print(f"building {sessions:,} sessions / {messages:,} messages in {path}", file=sys.stderr)
        t = time.perf_counter()
        big_id = build(path, sessions, messages)
        build_s = time.perf_counter() - t
        size_mb = sum(p.stat().st_size for p in root.glob("sessions.db*")) / 1e6

        rows: list[tuple[str, str, float, float, str]] = []

        def check(goal: str, name: str, fn: Callable[[], Any], note: Callable[[Any], str]) -> None:
            first, median, result = timed(fn)
            rows.append((goal, name, first, median, note(result)))

        def open_tail() -> int:
            with SessionStore(path) as fresh:
                assert fresh.sessions.get(big_id) is not None
                return len(fresh.messages.tail(big_id, 50))

        store = SessionStore(path)
        check("open", "open store", lambda: SessionStore(path).close(), lambda r: "")
        check("list", "list newest 50", lambda: store.sessions.recent(50), lambda r: f"{len(r)}")
        check(
            "list",
            "list newest 50, one cwd",
            lambda: store.sessions.recent(50, cwd="/home/me/project7"),
            lambda r: f"{len(r)}",
        )
        check("list", "list page 100 (offset 5000)", lambda: store.sessions.recent(50, 5000),
              lambda r: f"{len(r)}")  # fmt: skip

        def cli_list_all() -> tuple[float, int]:
            """`sessions list --limit 0`: time to its first screen (first page written), rows."""
            from agent_tui.sessions.cli import _list

            class Clock(io.StringIO):
                first: float | None = None

                def flush(self) -> None:
                    if self.first is None:
                        self.first = time.perf_counter() - started

            args = argparse.Namespace(limit=0, offset=0, cwd=None, hide_empty=False,
                                      hide_failed=False, review=None, rule=None, json=False,
                                      no_header=False)  # fmt: skip
            out = Clock()
            started = time.perf_counter()
            _list(store, args, out)
            return out.first or 0.0, out.getvalue().count("\n") - 1

        screens = [cli_list_all() for _ in range(7)]
        firsts = [first for first, _ in screens]
        streamed = f"{screens[-1][1]:,} rows streamed"
        median_first = statistics.median(firsts[1:])
        rows.append(
            ("list", "CLI list all: to its first screen", firsts[0], median_first, streamed)
        )
        check("all", "CLI list all: every row", cli_list_all, lambda r: f"{r[1]:,} rows")
        for label, query in [
            ("rare word", "needle"),
            ("common word", Corpus().words[0]),
            ("two words", f"{Corpus().words[3]} {Corpus().words[40]}"),
            ("command", "git status"),
            ("prefix", Corpus().words[100][:3]),
            ("punctuation", 'npm run "test:unit*'),
            ("no match", "zzzzqqq"),
        ]:
            check("search", f"search {label}: {query!r}",
                  lambda q=query: store.sessions.search(q, 20),
                  lambda r: f"{len(r)} hits")  # fmt: skip
        common = Corpus().words[0]
        check(
            "search",
            "search common word, one cwd",
            lambda: store.sessions.search(common, 20, cwd="/home/me/project7"),
            lambda r: f"{len(r)} hits",
        )
        check("open", "open + tail 50 of 5,000-msg session", open_tail, lambda r: f"{r} msgs")
        check("open", "load all 5,000 (resume, repaired)", lambda: store.messages.load(big_id),
              lambda r: f"{len(r)} msgs")  # fmt: skip
        store.close()

    print(
        f"\n{sessions:,} sessions, {messages:,} messages; built in {build_s:.1f} s "
        f"({messages / build_s:,.0f} msg/s), database {size_mb:,.0f} MB\n"
    )
    print(f"{'what':<46} {'first':>9} {'median':>9} {'goal':>8}  result")
    failed = False
    for goal, name, first, median, note in rows:
        ok = median <= GOALS[goal]
        failed |= not ok
        print(
            f"{name:<46} {first * 1000:>7.1f}ms {median * 1000:>7.1f}ms "
            f"{GOALS[goal] * 1000:>6.0f}ms  {'ok' if ok else 'SLOW'} {note}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
