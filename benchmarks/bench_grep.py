"""Grep at rg's pace (issue 49): the Grep tool (rg underneath, plus reading its output, deny-rule
filtering, newest-first sorting and the report) vs the very `rg` command line it runs, started
from Python and its output read through a pipe, as a script would. Goal: within 1.2x at 1k, 10k
and 100k files, with few matching files and with many.

Each tree has folders of 100 small files (~90 bytes each), in a git work tree. Three words: one
in 10 files ("few"), one in 1 file in 100 ("1%"), one in every file ("all"); each searched for file
names (the default mode, newest first) and for content lines. rg's output is read up to the byte
cap where the tool stops reading (a word in every one of 100k files: both stop there, and Grep
says "more"). Each case runs --rounds times, rg and Grep in turn (their order alternating), after
one untimed round that warms the page cache; every round is printed with its load, then each
case's medians, CPU time (the process's and its children's) and spread.

    python benchmarks/bench_grep.py [--sizes 1000,10000,100000] [--rounds 15]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import machine

WORDS = {"few": "needle_few", "1%": "needle_pct", "all": "common_word"}
GOAL = 1.2


def make_tree(root: Path, files: int) -> None:
    per_dir = 100
    for d in range(max(1, files // per_dir)):
        folder = root / f"pkg{d:04}"
        folder.mkdir()
        for f in range(min(per_dir, files)):
            n = d * per_dir + f
            words = ["common_word"]
            if n % 100 == 7:
                words.append("needle_pct")
            if n % (files // 10) == 3:
                words.append("needle_few")
            (folder / f"mod{f:03}.py").write_text(
                f"# module {n}\ndef f_{n}(x):\n    return x + {n}  # {' '.join(words)}\n"
            )
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def cpu_now() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


async def grep_once(root: Path, raw: dict[str, Any]) -> tuple[float, float, str]:
    from agent_tui.tools.base import ToolContext
    from agent_tui.tools.builtin.search_files import GrepTool

    tool = GrepTool()
    params = tool.validate(raw)
    ctx = ToolContext(cwd=root, data_dir=root / ".data")
    cpu, start = cpu_now(), time.perf_counter()
    out = await tool.run(params, ctx)
    took = time.perf_counter() - start
    if out.is_error:
        raise SystemExit(f"Grep failed: {out.content}")
    return took, cpu_now() - cpu, out.summary


def rg_once(root: Path, raw: dict[str, Any]) -> tuple[float, float, int]:
    """The tool's rg command line, run and read as a script would, and stopped where the tool
    stops reading (its byte cap: `rg ... | head -c CAP`), so a search that matches everything
    compares like with like."""
    from agent_tui.tools.builtin.search_files import GrepTool, rg_args
    from agent_tui.tools.ripgrep import BASE_ARGS, MAX_NAMES_BYTES, MAX_OUTPUT_BYTES, rg_path

    params = GrepTool().validate(raw)
    files = raw.get("output_mode", "files_with_matches") == "files_with_matches"
    cap = MAX_NAMES_BYTES if files else MAX_OUTPUT_BYTES
    argv = [rg_path(), *BASE_ARGS, *rg_args(params, ".")]  # type: ignore[arg-type]
    cpu, start = cpu_now(), time.perf_counter()
    proc = subprocess.Popen(argv, cwd=root, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    assert proc.stdout is not None
    size = 0
    while chunk := proc.stdout.read1(262144):
        size += len(chunk)
        if size >= cap:
            proc.kill()
            break
    proc.wait()
    took = time.perf_counter() - start
    proc.stdout.close()
    return took, cpu_now() - cpu, size


def spread(values: list[float], scale: float = 1e3, digits: int = 1) -> str:
    return (
        f"{scale * statistics.median(values):.{digits}f} "
        f"[{scale * min(values):.{digits}f}-{scale * max(values):.{digits}f}]"
    )


async def bench_case(
    root: Path, raw: dict[str, Any], rounds: int, label: str
) -> tuple[float, bool]:
    """One event loop for all of a case's rounds, as in the app (whose loop, and the worker
    threads Grep reads rg in, outlive a call)."""
    rg_once(root, raw)
    await grep_once(root, raw)  # the page cache warm for both, the tool's imports done
    ours: list[float] = []
    direct: list[float] = []
    ours_cpu: list[float] = []
    direct_cpu: list[float] = []
    ratios: list[float] = []
    summary, size = "", 0
    for k in range(rounds):
        load = os.getloadavg()[0]
        for which in ("rg", "grep") if k % 2 == 0 else ("grep", "rg"):
            if which == "rg":
                took, cpu, size = rg_once(root, raw)
                direct.append(took)
                direct_cpu.append(cpu)
            else:
                took, cpu, summary = await grep_once(root, raw)
                ours.append(took)
                ours_cpu.append(cpu)
        ratios.append(ours[-1] / direct[-1])
        print(
            f"    round {k}: rg {1e3 * direct[-1]:7.1f} ms  Grep {1e3 * ours[-1]:7.1f} ms  "
            f"ratio {ratios[-1]:.2f}  load {load:.2f}",
            flush=True,
        )
    ratio = statistics.median(ours) / statistics.median(direct)
    met = ratio <= GOAL
    print(
        f"  {label}: rg {spread(direct)} ms (cpu {spread(direct_cpu)}), Grep {spread(ours)} ms "
        f"(cpu {spread(ours_cpu)}); ratio of medians {ratio:.2f}, per round "
        f"{spread(ratios, 1, 2)}{'' if met else '  OVER THE GOAL'}; rg printed {size:,} bytes, "
        f"Grep said: {summary}",
        flush=True,
    )
    return ratio, met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="tree sizes, in files")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    print(machine())
    print(f"load at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    results: list[tuple[str, float, bool]] = []
    for files in (int(x) for x in args.sizes.split(",")):
        root = Path(tempfile.mkdtemp(prefix="bench-grep-", dir="/var/tmp"))
        try:
            start = time.perf_counter()
            make_tree(root, files)
            print(f"tree: {files:,} files in {time.perf_counter() - start:.1f} s")
            for word_label, word in WORDS.items():
                for mode in ("files_with_matches", "content"):
                    label = f"{files:>7,} files, {word_label:>3} match, {mode}"
                    raw = {"pattern": word, "output_mode": mode}
                    ratio, met = asyncio.run(bench_case(root, raw, args.rounds, label))
                    results.append((label, ratio, met))
        finally:
            shutil.rmtree(root, ignore_errors=True)
    print(f"load at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("summary (ratio of medians, Grep / rg):")
    for label, ratio, met in results:
        print(f"  {label:45} {ratio:5.2f}  {'ok' if met else 'over ' + str(GOAL)}")
    missed = sum(not met for _, _, met in results)
    print(f"{len(results) - missed} of {len(results)} cases within {GOAL}x")
    return 0 if not missed else 1


if __name__ == "__main__":
    raise SystemExit(main())
