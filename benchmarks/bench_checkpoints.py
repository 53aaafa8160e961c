"""What checkpoints cost a turn in a git work tree. Each shell command gets a snapshot before and
after it (a private index under the data dir, `git add -A`, `git write-tree`; the tree diff after),
and the turn's end anchors the snapshots (`git mktree`, `commit-tree`, `update-ref`). A Write
keeps its one file before and after. Trees of 1,000 and 10,000 committed files; turns of one and
of five commands, each command changing two files; a bare `git status` on the same tree as the
yardstick. Runs alternate; medians and the spread (min–max) are reported.

    python benchmarks/bench_checkpoints.py [--rounds 9]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import tempfile
import time
from pathlib import Path

from _common import machine, median

from agent_tui.checkpoints.checkpointer import Checkpointer


def make_repo(root: Path, files: int) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for d in range(files // 100):
        folder = root / f"pkg{d:03}"
        folder.mkdir()
        for f in range(100):
            (folder / f"mod{f:03}.py").write_text(f"VALUE = {d * 100 + f}\n" * 20)
    env = ["-c", "user.email=b@example.com", "-c", "user.name=bench"]
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), *env, "commit", "-q", "-m", "start"], check=True)


class Turn:
    """Times of one turn's checkpoint work, in seconds."""

    def __init__(self) -> None:
        self.calls: list[float] = []  # before + after, per command
        self.end = 0.0
        self.write = 0.0


async def one_turn(root: Path, n: int, commands: int) -> Turn:
    cp = Checkpointer(root, lambda _e: None)
    cp.begin_turn(0, "bench")
    times = Turn()
    for c in range(commands):
        started = time.perf_counter()
        call = await cp.before("sed -i … (two files)", "Bash", None, f"t{c}")
        spent = time.perf_counter() - started
        for f in range(2):
            (root / "pkg000" / f"mod{2 * c + f:03}.py").write_text(f"VALUE = {n}\n")
        started = time.perf_counter()
        await cp.after(call)
        times.calls.append(spent + time.perf_counter() - started)
    target = root / "pkg001" / "mod000.py"
    started = time.perf_counter()
    call = await cp.before(str(target), "Write", target, "tw")
    target.write_text(f"VALUE = {n}\n")
    await cp.after(call)
    times.write = time.perf_counter() - started
    started = time.perf_counter()
    event = await cp.end_turn()
    times.end = time.perf_counter() - started
    assert event is not None and len(event.files) == 2 * commands + 1
    return times


def ms(xs: list[float]) -> str:
    return f"{1000 * median(xs):6.1f} ms ({1000 * min(xs):.1f}–{1000 * max(xs):.1f})"


def git_status(root: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        ["git", "-C", str(root), "status", "--porcelain"], check=True, capture_output=True
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    print(machine())
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as home:
        os.environ["AGENT_TUI_HOME"] = home  # the private index goes under the data dir
        for files in (1_000, 10_000):
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp)
                make_repo(root, files)
                for commands in (1, 5):
                    calls, ends, writes, totals, statuses = [], [], [], [], []
                    for n in range(args.rounds):
                        statuses.append(git_status(root))
                        turn = asyncio.run(one_turn(root, n, commands))
                        calls.extend(turn.calls)
                        ends.append(turn.end)
                        writes.append(turn.write)
                        totals.append(sum(turn.calls) + turn.write + turn.end)
                    print(f"{files:>6} files, {commands} command(s) a turn")
                    print(f"{'':>8}a command: before + after   {ms(calls)}")
                    print(f"{'':>8}a Write: before + after     {ms(writes)}")
                    print(f"{'':>8}end of the turn             {ms(ends)}")
                    print(f"{'':>8}the whole turn's checkpoints {ms(totals)}")
                    print(f"{'':>8}git status (yardstick)      {ms(statuses)}")
                    ratio = median(calls) / median(statuses)
                    print(f"{'':>8}a command / git status      {ratio:.2f}×")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
