"""Grep over a 100k-file tree: the Grep tool (rg underneath, plus parsing, deny-rule filtering,
newest-first sorting and the output cap) vs the same `rg` command run directly. Goal ≤ 1.2×.

The tree (created once in a temp dir, ~400 MB of small files is avoided: each file is ~120
bytes) has 1,000 folders of 100 files; one file in 100 contains the rare word. Three searches:
the rare word (files_with_matches), the rare word with content lines, and a word in every file
(files_with_matches: 100k matches, capped by the tool). Runs alternate, medians reported.

    python benchmarks/bench_grep.py [--files 100000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from _common import machine, median


def make_tree(root: Path, files: int) -> None:
    per_dir = 100
    for d in range(files // per_dir):
        folder = root / f"pkg{d:04}"
        folder.mkdir()
        for f in range(per_dir):
            n = d * per_dir + f
            rare = "needle_marker" if n % 100 == 7 else "plain"
            (folder / f"mod{f:03}.py").write_text(
                f"# module {n}\ndef f_{n}(x):\n    return x + {n}  # {rare} common_word\n"
            )


async def tool_run(root: Path, raw: dict) -> tuple[float, int]:
    from agent_tui.tools.base import ToolContext
    from agent_tui.tools.search_files import GrepTool

    tool = GrepTool()
    ctx = ToolContext(cwd=root, data_dir=root / ".data")
    start = time.perf_counter()
    out = await tool.run(tool.validate(raw), ctx)
    return time.perf_counter() - start, int(out.meta.get("entries", 0))


def rg_run(root: Path, raw: dict) -> float:
    from agent_tui.tools.ripgrep import BASE_ARGS, rg_path

    args = [rg_path(), *BASE_ARGS, "--null"]
    if raw.get("output_mode") == "content":
        args += ["--no-heading", "-n"]
    else:
        args.append("--files-with-matches")
    args += ["--regexp", raw["pattern"], "--", "."]
    start = time.perf_counter()
    subprocess.run(args, cwd=root, stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-grep-"))
    try:
        start = time.perf_counter()
        make_tree(root, args.files)
        print(machine())
        print(f"tree: {args.files:,} files in {time.perf_counter() - start:.1f}s")
        cases = {
            "rare word, files": {"pattern": "needle_marker"},
            "rare word, content": {"pattern": "needle_marker", "output_mode": "content"},
            "word in every file, files": {"pattern": "common_word"},
        }
        for name, raw in cases.items():
            rg_run(root, raw)  # warm the page cache for both
            ours, direct = [], []
            entries = 0
            for _ in range(args.rounds):
                direct.append(rg_run(root, raw))
                took, entries = asyncio.run(tool_run(root, raw))
                ours.append(took)
            ratio = median(ours) / median(direct)
            print(
                f"{name:28} Grep {1e3 * median(ours):7.1f} ms   rg {1e3 * median(direct):7.1f} ms"
                f"   ratio {ratio:.2f}   ({entries:,} entries; spread Grep "
                f"{1e3 * min(ours):.0f}-{1e3 * max(ours):.0f} ms, rg "
                f"{1e3 * min(direct):.0f}-{1e3 * max(direct):.0f} ms)"
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
