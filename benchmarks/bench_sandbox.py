"""The sandbox's cost per Bash command: the Bash tool with the sandbox on (bubblewrap, the layout
worked out, the command's proxy started and stopped, the in-sandbox bridge) against the same
tool with no sandbox (which runs under the PDEATHSIG guard shell). Runs alternate in pairs; the
figure is the median of the per-pair differences, with p10/p90. Target: ≤ 15 ms.

Two commands: `true`, and a `grep` over 20 files of a small project.

    python benchmarks/bench_sandbox.py [--pairs 40]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from _common import machine

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.runner import Sandbox
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.bash import BashInput, BashTool


def project(root: Path) -> Path:
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    src = root / "src"
    src.mkdir()
    for i in range(20):
        (src / f"mod{i:02}.py").write_text(f"def f{i}(x):\n    return x + {i}  # needle\n" * 50)
    return root


async def once(tool: BashTool, ctx: ToolContext, command: str) -> float:
    started = time.perf_counter()
    out = await tool.run(BashInput(command=command), ctx)
    assert out.exit_code == 0, out.content
    return (time.perf_counter() - started) * 1000


async def main(pairs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cwd = project(Path(tmp) / "proj")
        data = Path(tmp) / "data"
        engine = PermissionEngine(cwd)
        sandbox = Sandbox(SandboxConfig(mode="on"), cwd, engine, data_dir=data, app_dirs=(data,))
        if not sandbox.active:
            print(f"no sandbox here: {sandbox.availability.detail}")
            return
        tool = BashTool()
        inside = ToolContext(cwd=cwd, data_dir=data, sandbox=sandbox)
        plain = ToolContext(cwd=cwd, data_dir=data)
        print(f"machine: {machine()}; backend: {sandbox.availability.detail}")
        for name, command in (("true", "true"), ("grep 20 files", "grep -c needle src/*.py")):
            for _ in range(3):  # warm up both paths
                await once(tool, inside, command)
                await once(tool, plain, command)
            diffs, bare, boxed = [], [], []
            load = os.getloadavg()
            for i in range(pairs):
                order = (plain, inside) if i % 2 else (inside, plain)
                times = {id(ctx): await once(tool, ctx, command) for ctx in order}
                bare.append(times[id(plain)])
                boxed.append(times[id(inside)])
                diffs.append(times[id(inside)] - times[id(plain)])
            q = statistics.quantiles(diffs, n=10)
            print(
                f"{name:14} no sandbox {statistics.median(bare):6.1f} ms · sandbox "
                f"{statistics.median(boxed):6.1f} ms · overhead median "
                f"{statistics.median(diffs):5.1f} ms (p10 {q[0]:.1f}, p90 {q[-1]:.1f}) · "
                f"{pairs} pairs · load {load[0]:.2f} "
                f"{load[1]:.2f} {load[2]:.2f}"
            )
        sandbox.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=40)
    asyncio.run(main(parser.parse_args().pairs))
