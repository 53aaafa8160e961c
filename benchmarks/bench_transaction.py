"""A sandboxed command's whole cost as a transaction (issue 44): the sandbox (bubblewrap, the
boundary, the proxy, the bridge, the project's overlay), reading its change set, the gate,
applying it and recording it for undo (the checkpointer, its blobs kept) — against the same
command run by plain `bash -c`. In projects of 1k, 10k and 100k files (a git work tree), to show
the cost doesn't grow with the tree; beside it, what the snapshots of before (a git snapshot
before and after each command, still used where no change set can be had) cost in the same
trees. Runs alternate in pairs; each figure is the median of the per-pair differences, with
p10 and p90, and the machine's load is printed with each series.

Then a 200 MB file appended to by one command: its copy-up (the overlay copies the file into
the upper directory whole before the append), and its apply (a rename on one file system).

    python benchmarks/bench_transaction.py [--pairs 20] [--sizes 1000,10000,100000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from _common import machine

from agent_tui.checkpoints.blobs import MemoryBlobs
from agent_tui.checkpoints.checkpointer import Checkpointer
from agent_tui.permissions.engine import PermissionEngine
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.runner import Sandbox
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.bash import BashInput, BashTool

COMMAND = "echo line >> notes.txt"
GIT = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b"}
GIT |= {"GIT_COMMITTER_EMAIL": "b@x", "PATH": os.environ["PATH"]}


def load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def tree(root: Path, files: int) -> Path:
    project = root / f"p{files}"
    for n in range(files):
        folder = project / f"d{n // 100:04d}"
        if n % 100 == 0:
            folder.mkdir(parents=True)
        (folder / f"f{n:06d}.txt").write_text(f"file {n}\n")
    (project / "notes.txt").write_text("notes\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "-A"], cwd=project, check=True, env=GIT)
    subprocess.run(["git", "commit", "-qm", "tree"], cwd=project, check=True, env=GIT)
    return project


async def plain(project: Path) -> float:
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec("bash", "-c", COMMAND, cwd=project)
    assert await proc.wait() == 0
    return (time.perf_counter() - started) * 1000


async def transaction(project: Path, sandbox: Sandbox, cp: Checkpointer, *, exact: bool) -> float:
    ctx = ToolContext(cwd=project, data_dir=project.parent, sandbox=sandbox, blobs=cp.blobs)
    started = time.perf_counter()
    cp.begin_turn(0, "bench")
    call = await cp.before(COMMAND, "Bash", None, exact=exact)
    out = await BashTool().run(BashInput(command=COMMAND), ctx)
    await cp.after(call, out.meta.get("changes"), out.meta.get("not_kept"))
    await cp.end_turn()
    assert out.exit_code == 0, out.content
    return (time.perf_counter() - started) * 1000


def summary(deltas: list[float]) -> str:
    q = statistics.quantiles(deltas, n=10)
    return f"median {statistics.median(deltas):6.1f} ms  (p10 {q[0]:6.1f}, p90 {q[-1]:6.1f})"


async def series(project: Path, pairs: int) -> None:
    data = project.parent / f"data-{project.name}"
    sandbox = Sandbox(SandboxConfig(mode="on"), project, PermissionEngine(project), data_dir=data)
    assert sandbox.transactional, sandbox.overlay_problem
    cp = Checkpointer(project, lambda _e: None)
    cp.blobs = MemoryBlobs()
    try:
        for _warm in range(2):  # the probe, the holder, the first snapshot: not per command
            await transaction(project, sandbox, cp, exact=True)
            await plain(project)
        for exact, label in ((True, "transaction (change set)"), (False, "before: snapshots")):
            before = load()
            deltas, own = [], []
            for n in range(pairs):
                if n % 2:
                    t = await transaction(project, sandbox, cp, exact=exact)
                    p = await plain(project)
                else:
                    p = await plain(project)
                    t = await transaction(project, sandbox, cp, exact=exact)
                deltas.append(t - p)
                own.append(t)
            files = sum(1 for _ in project.glob("d*/f*.txt"))  # not .git: its gc may be running
            print(
                f"  {files:>7,} files  {label:<26} over plain bash: {summary(deltas)}; "
                f"its own median {statistics.median(own):6.1f} ms  [{before} → {load()}]"
            )
    finally:
        sandbox.close()


async def big_file(root: Path) -> None:
    project = root / "big"
    project.mkdir()
    big = project / "big.bin"
    with big.open("wb") as f:
        for _ in range(200):
            f.write(os.urandom(1 << 20))
    data = root / "data-big"
    sandbox = Sandbox(SandboxConfig(mode="on"), project, PermissionEngine(project), data_dir=data)
    cp = Checkpointer(project, lambda _e: None)
    cp.blobs = MemoryBlobs()
    ctx = ToolContext(cwd=project, data_dir=root, sandbox=sandbox, blobs=cp.blobs)
    try:
        await BashTool().run(BashInput(command="true"), ctx)
        for label, command in (
            ("append a line", "echo x >> big.bin"),
            ("read it", "wc -c big.bin"),
        ):
            started = time.perf_counter()
            out = await BashTool().run(BashInput(command=command), ctx)
            took = (time.perf_counter() - started) * 1000
            plain_start = time.perf_counter()
            subprocess.run(["bash", "-c", command], cwd=project, check=True, capture_output=True)
            plain_ms = (time.perf_counter() - plain_start) * 1000
            kept = "not kept for undo (over 64 MB)" if out.meta.get("not_kept") else ""
            held = "held for you (too large to keep for undo)" if "held back" in out.content else ""
            print(
                f"  200 MB file, {label:<14}: {took:7.1f} ms in the sandbox, {plain_ms:6.1f} ms "
                f"plain {kept}{held} [{load()}]"
            )
        # the plain append landed; the sandbox's is held (a change undo can't take back waits
        # for the person) or, where it was applied, landed too
        assert big.stat().st_size in (200 * (1 << 20) + 2, 200 * (1 << 20) + 4)
    finally:
        sandbox.close()


async def main(pairs: int, sizes: list[int]) -> None:
    root = Path(tempfile.mkdtemp(prefix="bench-txn-", dir="/var/tmp"))
    try:
        print(f"machine: {machine()}")
        print(f"command: {COMMAND!r}; {pairs} pairs per series, alternating")
        for size in sizes:
            started = time.perf_counter()
            project = tree(root, size)
            print(f"project of {size:,} files (made in {time.perf_counter() - started:.1f} s):")
            await series(project, pairs)
        await big_file(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    asyncio.run(main(args.pairs, [int(s) for s in args.sizes.split(",")]))
