"""What a checkpoint costs a turn in a git work tree: the snapshot taken before the turn's first
change (a temporary index copied from the real one, `git add -A`, `git write-tree`) and the end
of the turn (a second snapshot, the tree diff, the anchor commits), against a bare `git status`
on the same tree as the yardstick. Trees of 1,000 and 10,000 committed files, with ten files
changed by "the turn". Runs alternate; medians and the spread are reported.

    python benchmarks/bench_checkpoints.py [--rounds 9]
"""

from __future__ import annotations

import argparse
import asyncio
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


async def one_turn(root: Path, n: int) -> tuple[float, float]:
    cp = Checkpointer(root, lambda _e: None)
    cp.begin_turn(0, "bench")
    started = time.perf_counter()
    await cp.before("sed -i … (ten files)", "Bash", None)
    before = time.perf_counter() - started
    for f in range(10):
        (root / "pkg000" / f"mod{f:03}.py").write_text(f"VALUE = {n}\n")
    started = time.perf_counter()
    event = await cp.end_turn()
    after = time.perf_counter() - started
    assert event is not None and len(event.files) == 10
    return before, after


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
    for files in (1_000, 10_000):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            make_repo(root, files)
            befores, afters, statuses = [], [], []
            for n in range(args.rounds):
                statuses.append(git_status(root))
                before, after = asyncio.run(one_turn(root, n))
                befores.append(before)
                afters.append(after)
            print(f"{files:>6} files  before the first change {ms(befores)}")
            print(f"{'':>13}end of the turn         {ms(afters)}")
            print(f"{'':>13}git status (yardstick)  {ms(statuses)}")
            ratio = median(befores) / median(statuses)
            print(f"{'':>13}snapshot / git status   {ratio:.2f}×")


if __name__ == "__main__":
    main()
