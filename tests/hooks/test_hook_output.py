"""A hook's output is read as it comes and bounded (issue 50): a hook that writes without end
keeps the app small at any rate, and one stopped at its timeout leaves no pipe for the garbage
collector to close after the loop ("Exception ignored … Event loop is closed"). Each runs the
hook runner in a fresh interpreter, whose peak RSS and stderr are the app's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fresh_interpreter import child_env

from agent_tui.hooks.config import HookCommand, HookSettings
from agent_tui.hooks.runner import OUTPUT_KEPT, HookRunner

RUN_ONE_HOOK = """
import asyncio, gc, json, sys
from pathlib import Path
from agent_tui.hooks.config import HookCommand, HookSettings
from agent_tui.hooks.runner import HookRunner

async def main():
    hook = HookCommand("Stop", "", sys.argv[1], float(sys.argv[2]), "user", Path("s"))
    [run] = await HookRunner(HookSettings([hook]), Path.cwd()).run("Stop", {})
    return run

run = asyncio.run(main())
gc.collect()  # what the loop left behind is collected now, after it closed
print(json.dumps({
    "timed_out": run.timed_out, "exit_code": run.exit_code, "stdout": len(run.stdout),
    # this process's own peak (VmHWM starts anew at exec; ru_maxrss keeps the forking
    # parent's, a big test worker's)
    "rss_mb": next(
        int(line.split()[1]) // 1024
        for line in Path("/proc/self/status").read_text().splitlines()
        if line.startswith("VmHWM:")
    ),
}))
"""

#: the fresh interpreter with the runner imported peaks near 25 MB; reading everything is GBs
RSS_BOUND_MB = 120


def run_hook(tmp_path: Path, command: str, timeout: float) -> tuple[dict[str, object], str]:
    argv = [sys.executable, "-W", "always::ResourceWarning", "-c", RUN_ONE_HOOK, command]
    done = subprocess.run(
        [*argv, str(timeout)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=child_env(),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1]), done.stderr


def test_a_hook_writing_a_gigabyte_keeps_the_app_small(tmp_path: Path) -> None:
    result, stderr = run_hook(tmp_path, "head -c 1000000000 /dev/zero | tr '\\0' x", 240)
    assert result["exit_code"] == 0 and not result["timed_out"]
    assert result["stdout"] == OUTPUT_KEPT  # the start is kept, as before
    assert result["rss_mb"] < RSS_BOUND_MB, result  # 1 GB read was > 2 GB of RSS before
    assert stderr == ""


def test_a_hook_writing_until_its_timeout_is_stopped_and_leaves_nothing_behind(
    tmp_path: Path,
) -> None:
    result, stderr = run_hook(tmp_path, "yes", 2)
    assert result["timed_out"] and result["exit_code"] is None
    assert result["rss_mb"] < RSS_BOUND_MB, result
    # before: "Exception ignored in: BaseSubprocessTransport.__del__ … Event loop is closed"
    assert "Exception ignored" not in stderr and "Event loop is closed" not in stderr
    assert "ResourceWarning" not in stderr, stderr


async def test_output_stderr_and_stdin_still_reach_and_leave_the_hook(tmp_path: Path) -> None:
    hook = HookCommand(
        "Stop", "", "cat; echo; echo warn >&2; exit 3", 10, "user", tmp_path / "settings.toml"
    )
    [run] = await HookRunner(HookSettings([hook]), tmp_path).run("Stop", {"x": 1})
    assert run.exit_code == 3
    assert json.loads(run.stdout)["x"] == 1 and run.stderr == "warn\n"
    # a hook that never reads its input and exits at once is not an error
    quick = HookCommand("Stop", "", "exit 0", 10, "user", tmp_path / "settings.toml")
    [run] = await HookRunner(HookSettings([quick]), tmp_path).run("Stop", {"x": "y" * 1_000_000})
    assert run.exit_code == 0 and not run.error
