"""One headless turn with one Bash call, agent-tui vs Claude Code, paired, on the same loopback fake
(issue 49). Goal: agent-tui's wall time and CPU time no more than Claude Code's, run for run.

Both programs get `-p go` with stream-json output and `Bash(echo:*)` allowed; the fake API
(`../shared/peer/fake_peer.py`, standard library only, scenario `script`) answers the first request
with one `Bash {"command": "echo hi"}` call and the second with a short text; the side requests
Claude Code makes (no tools) get a short text. Each run gets a new home (as `speed.py` does): no
config, no session database, no kept start-up caches (`--warm` keeps one home a program instead).
The two alternate, A B B A …, after a warm-up pair that isn't counted. Every run is checked: exit
code 0, the fake saw the tool's result ("hi") come back and the final answer printed; a run that
fails the check is reported and counts against its program.

Per run: wall time to exit, time to the first output byte, CPU time (user + sys of the process
and the children it waited for, from wait4), peak RSS, and the 1-minute load just before it.

    python benchmarks/bench_headless.py --runs 10            # installs Claude Code from npm
    python benchmarks/bench_headless.py --cc PATH/TO/claude  # or use one already installed
    python benchmarks/bench_headless.py --against-tree DIR   # this tree vs another checkout's
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FAKE = REPO.parent / "shared" / "peer" / "fake_peer.py"
KEY = "sk-ant-test-bench"
STEPS = [[{"name": "Bash", "input": {"command": "echo hi", "description": "say hi"}}]]
FINAL = "Script done."  # the fake's answer after the last step


@dataclass
class Run:
    prog: str
    k: int
    wall: float
    ttfb: float
    cpu: float
    rss_mb: float
    rc: int
    load: float
    ok: bool
    why: str = ""

    def line(self) -> str:
        flag = "ok" if self.ok else f"FAILED: {self.why}"
        return (
            f"{self.prog:>4} #{self.k:<2} wall {self.wall:6.3f} s  first byte {self.ttfb:6.3f} s  "
            f"cpu {self.cpu:6.3f} s  rss {self.rss_mb:6.1f} MB  rc {self.rc}  "
            f"load {self.load:.2f}  {flag}"
        )


def load1() -> float:
    return os.getloadavg()[0]


def uptime() -> str:
    out = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout
    return out.strip() or f"load average {os.getloadavg()}"


def install_claude_code(prefix: Path) -> Path:
    print(f"installing @anthropic-ai/claude-code from npm into {prefix} …", flush=True)
    npm = ["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(prefix)]
    subprocess.run([*npm, "@anthropic-ai/claude-code"], check=True)
    return prefix / "node_modules" / ".bin" / "claude"


class Fake:
    """The shared loopback fake, started once; `seen()` is the request log read so far."""

    def __init__(self, work: Path, script: Path) -> None:
        steps = work / "steps.json"
        steps.write_text(json.dumps(STEPS))
        self.log = work / "api.jsonl"
        port_file = work / "port"
        argv = [sys.executable, str(script), "--scenario", "script", "--log", str(self.log)]
        self.proc = subprocess.Popen(
            [*argv, "--port-file", str(port_file)],
            env=dict(os.environ, CASES_FILE=str(steps)),
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not (port_file.exists() and port_file.read_text()):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise SystemExit("the fake API did not start")
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{port_file.read_text()}"
        self._read = 0

    def new_requests(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        lines = self.log.read_text().splitlines()
        fresh, self._read = lines[self._read :], len(lines)
        return [json.loads(line) for line in fresh]

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def tool_result_came_back(requests: list[dict[str, Any]]) -> bool:
    """Some request carried the Bash call's result, with the command's output in it."""
    for request in requests:
        for message in (request.get("body") or {}).get("messages") or []:
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if not isinstance(block, dict) or block.get("type") != "tool_result":
                    continue
                if "hi" in json.dumps(block.get("content")):
                    return True
    return False


class Programs:
    def __init__(self, args: argparse.Namespace, work: Path, url: str) -> None:
        self.args = args
        self.work = work
        self.url = url
        self.project = work / "proj"
        self.project.mkdir()
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
        self.homes: dict[str, Path] = {}

    def home(self, prog: str) -> Path:
        if self.args.warm and prog in self.homes:
            return self.homes[prog]
        home = Path(tempfile.mkdtemp(dir=self.work, prefix=f"home-{prog}-"))
        self.homes[prog] = home
        return home

    def command(self, prog: str) -> tuple[list[str], dict[str, str]]:
        home = self.home(prog)
        env = dict(os.environ, HOME=str(home), ANTHROPIC_BASE_URL=self.url, ANTHROPIC_API_KEY=KEY)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # our bytecode is cached, as a person's is
        for name in ("ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"):
            env.pop(name, None)
        if prog == "cc":
            env.update(
                CLAUDE_CONFIG_DIR=str(home / ".claude"),
                CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                DISABLE_TELEMETRY="1",
                DISABLE_AUTOUPDATER="1",
                DISABLE_ERROR_REPORTING="1",
                IS_SANDBOX="1",  # it refuses to run as root otherwise
            )
            argv = [str(self.args.cc), "-p", "go", "--output-format", "stream-json"]
            return [*argv, "--verbose", "--allowedTools", "Bash(echo:*)"], env
        env["AGENT_TUI_HOME"] = str(home / "agent-tui")
        if prog == "base":
            env["PYTHONPATH"] = str(self.args.against_tree)
        argv = [str(self.args.at), "-p", "go", "--cwd", str(self.project)]
        return [*argv, "--output-format", "stream-json", "--allow", "Bash(echo:*)"], env


def run_once(programs: Programs, fake: Fake, prog: str, k: int) -> Run:
    argv, env = programs.command(prog)
    load = load1()
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=programs.project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = -1.0
    out, err = bytearray(), bytearray()
    streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    while streams:
        ready, _, _ = select.select(list(streams), [], [], 120)
        if not ready:
            proc.kill()
            break
        for fd in ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                del streams[fd]
                continue
            if fd == proc.stdout.fileno() and first < 0:
                first = time.monotonic() - start
            streams[fd].extend(chunk)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.stdout.close()
    proc.stderr.close()
    rc = os.waitstatus_to_exitcode(status)
    why = ""
    if rc != 0:
        why = f"exit {rc}: {err.decode(errors='replace').strip()[-300:]}"
    elif not tool_result_came_back(fake.new_requests()):
        why = "the Bash call's result never reached the API"
    elif FINAL not in out.decode(errors="replace"):
        why = "the final answer was not printed"
    if programs.args.warm is False and prog in programs.homes:
        shutil.rmtree(programs.homes.pop(prog), ignore_errors=True)
    return Run(
        prog=prog,
        k=k,
        wall=wall,
        ttfb=first,
        cpu=usage.ru_utime + usage.ru_stime,
        rss_mb=usage.ru_maxrss / 1024,
        rc=rc,
        load=load,
        ok=not why,
        why=why,
    )


def spread(values: list[float], unit: str = "s", digits: int = 3) -> str:
    return (
        f"median {statistics.median(values):.{digits}f} {unit} "
        f"[{min(values):.{digits}f}–{max(values):.{digits}f}]"
    )


def summary(rows: list[Run], a: str, b: str) -> None:
    for prog in (a, b):
        mine = [r for r in rows if r.prog == prog]
        print(
            f"{prog:>4}: wall {spread([r.wall for r in mine])}, "
            f"cpu {spread([r.cpu for r in mine])}, "
            f"first byte {spread([r.ttfb for r in mine])}, "
            f"rss {spread([r.rss_mb for r in mine], 'MB', 1)}, "
            f"failed {sum(not r.ok for r in mine)} of {len(mine)}"
        )
    pairs = [(x, y) for x in rows if x.prog == a for y in rows if y.prog == b and y.k == x.k]
    for what in ("wall", "cpu"):
        ratios = [getattr(x, what) / getattr(y, what) for x, y in pairs]
        over = sum(r > 1.0 for r in ratios)
        print(
            f"paired {what} {a}/{b}: {spread(ratios, 'x', 2)}; {a} slower in {over} of "
            f"{len(ratios)} pairs"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="counted pairs (default 10)")
    parser.add_argument("--warmup", type=int, default=1, help="pairs run first, not counted")
    parser.add_argument("--cc", type=Path, help="Claude Code's `claude` (default: npm install)")
    parser.add_argument(
        "--at",
        type=Path,
        default=Path(sys.executable).parent / "agent-tui",
        help="agent-tui's entry point (default: the one beside this Python)",
    )
    parser.add_argument(
        "--against-tree",
        type=Path,
        help="instead of Claude Code: agent-tui from this other checkout (PYTHONPATH) as 'base'",
    )
    parser.add_argument("--warm", action="store_true", help="one home a program for all runs")
    parser.add_argument("--fake", type=Path, default=FAKE, help="the loopback fake API script")
    args = parser.parse_args()
    if not args.fake.is_file():
        raise SystemExit(f"no fake API at {args.fake} (give --fake)")
    work = Path(tempfile.mkdtemp(prefix="bench-headless-", dir="/var/tmp"))
    other = "cc"
    try:
        if args.against_tree is not None:
            other = "base"
            args.against_tree = args.against_tree.resolve()
        elif args.cc is None:
            args.cc = install_claude_code(work / "cc")
        if args.cc is not None:
            version = subprocess.run(
                [str(args.cc), "--version"], capture_output=True, text=True, check=False
            )
            print(f"claude: {version.stdout.strip()}")
        fake = Fake(work, args.fake)
        programs = Programs(args, work, fake.url)
        print(f"nproc {os.cpu_count()}, python {sys.version.split()[0]}; {uptime()}")
        print(f"home: {'one a program (--warm)' if args.warm else 'a new one every run'}")
        rows: list[Run] = []
        try:
            for k in range(-args.warmup, args.runs):
                order = ("at", other) if k % 2 == 0 else (other, "at")
                for prog in order:
                    run = run_once(programs, fake, prog, k)
                    print(("(warm-up) " if k < 0 else "") + run.line(), flush=True)
                    if k >= 0:
                        rows.append(run)
        finally:
            fake.stop()
        print(f"end: {uptime()}")
        summary(rows, "at", other)
        return 0 if all(r.ok for r in rows) else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
