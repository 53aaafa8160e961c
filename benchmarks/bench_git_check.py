"""What reading a repository's git configuration costs before `git status` runs unasked (issue
46): its config and hooks, every `.git/modules/**` git directory's, and the submodules the index
holds that git would descend into.

    python benchmarks/bench_git_check.py                 # 10,000 files, 7 timed runs per case
    python benchmarks/bench_git_check.py --files 50000

Cases: a plain repository of N files; the same with 20 checked-out submodules (gitlinks with an
embedded `.git`); with 100 submodules whose git directories are under `.git/modules/`. For each,
the first check in a new process (nothing cached: a `git config` process per config file, the
index read) and a check with the caches warm (the next command), as the median and the spread
of the runs. The engine's whole Bash decision for `git status` is timed.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

_GIT = [
    "git",
    "-c",
    "user.email=a@b",
    "-c",
    "user.name=a",
    "-c",
    "gc.auto=0",
    "-c",
    "maintenance.auto=false",
]
_PROBE = """
import sys, time
from pathlib import Path
from agent_tui.permissions.engine import PermissionEngine
from agent_tui.permissions import bash_check  # the tables, loaded before the clock starts
e = PermissionEngine(Path(sys.argv[1]))
t = time.perf_counter(); d = e.check("Bash", {"command": "git status"}, read_only=False)
cold = time.perf_counter() - t
t = time.perf_counter(); e.check("Bash", {"command": "git status"}, read_only=False)
warm = time.perf_counter() - t
print(cold, warm, d.behavior)
"""


def run(*args: str, cwd: Path) -> None:
    subprocess.run([*_GIT, *args], cwd=cwd, check=True, capture_output=True)


def repository(root: Path, files: int, linked: int, absorbed: int) -> Path:
    repo = root / f"r{files}-{linked}-{absorbed}"
    repo.mkdir()
    run("init", "-q", ".", cwd=repo)
    for i in range(files):
        folder = repo / f"d{i // 100:03}"
        folder.mkdir(exist_ok=True)
        (folder / f"f{i:05}.txt").write_text(str(i))
    for i in range(linked + absorbed):
        sub = repo / f"sub{i:03}"
        sub.mkdir()
        run("init", "-q", ".", cwd=sub)
        (sub / "x").write_text("x")
        run("add", "x", cwd=sub)
        run("commit", "-qm", "x", cwd=sub)
    run("add", "-A", cwd=repo)
    run("commit", "-qm", "x", cwd=repo)
    modules = repo / ".git" / "modules"
    for i in range(linked, linked + absorbed):
        name = f"sub{i:03}"
        modules.mkdir(exist_ok=True)
        shutil.move(repo / name / ".git", modules / name)
        (repo / name / ".git").write_text(f"gitdir: ../.git/modules/{name}\n")
        run("config", "core.worktree", f"../../../{name}", cwd=modules / name)
    return repo


def measure(repo: Path, runs: int) -> tuple[list[float], list[float], str]:
    cold, warm, behavior = [], [], ""
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", _PROBE, str(repo)], capture_output=True, text=True, check=True
        ).stdout.split()
        cold.append(float(out[0]) * 1000)
        warm.append(float(out[1]) * 1000)
        behavior = out[2]
    return cold, warm, behavior


def show(label: str, values: list[float]) -> str:
    return f"{label} {statistics.median(values):7.1f} ms ({min(values):.1f}-{max(values):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir="/var/tmp", ignore_cleanup_errors=True) as tmp:
        root = Path(tmp)
        for linked, absorbed in ((0, 0), (20, 0), (0, 100)):
            repo = repository(root, args.files, linked, absorbed)
            cold, warm, behavior = measure(repo, args.runs)
            name = f"{args.files} files, {linked} submodules, {absorbed} under .git/modules"
            print(f"{name:52} {show('first', cold)}  {show('next', warm)}  -> {behavior}")


if __name__ == "__main__":
    main()
