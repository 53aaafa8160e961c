"""Issue 27.4: after `kill -9` of the app, a Bash command it was running (its own session, with a
child of its own) does not keep running — with the sandbox (bwrap --die-with-parent and its pid
namespace) and without it (the guard shell `setpriv --pdeathsig` ties to the app). And the next
start reaps a process group a record names whose app is gone."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from bwrap_support import needs_bwrap
from e2e.test_security_e2e import hostile_model
from sse_server import SSEServer

from agent_tui.sandbox.reaper import Records, reap
from agent_tui.sandbox.transaction import remove_folder

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("setpriv") is None,
    reason="PR_SET_PDEATHSIG (setpriv) is Linux-only",
)


def running(tag: str) -> list[int]:
    """Pids whose argv[0] starts with `tag` (the command's two `sleep`s)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                argv0 = (proc / "cmdline").read_bytes().split(b"\0")[0]
                state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if argv0.startswith(tag.encode()) and state != "Z":
                found.append(int(proc.name))
    return found


async def wait_until(condition, timeout: float = 30.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        await asyncio.sleep(0.05)
    return condition()


async def kill_app_mid_command(sandbox: str, *, background: bool = False) -> None:
    """`background`: the command runs in a background shell (`run_in_background`) while the app
    waits on a foreground command. The project and the app's home are off /tmp (the sandbox's
    own /tmp is private), and go as the app would take a transaction's folder away."""
    root = Path(tempfile.mkdtemp(prefix="agent-tui-orphans-", dir="/var/tmp"))
    try:
        await _kill_app_mid_command(root, sandbox, background=background)
    finally:
        remove_folder(root)


async def _kill_app_mid_command(root: Path, sandbox: str, *, background: bool) -> None:
    project, home = root / "p", root / "h"
    project.mkdir()
    home.mkdir()
    tag = f"orphan-{sandbox}-{os.getpid()}-{time.monotonic_ns()}"
    # two children of the command's shell, one in the background (each named by the tag)
    command = f"(exec -a {tag}-a sleep 300) & (exec -a {tag}-b sleep 301); wait"
    calls: list[tuple[str, dict[str, object]]] = [("Bash", {"command": command})]
    if background:
        calls = [("Bash", {"command": command, "run_in_background": True})]
        calls.append(("Bash", {"command": "sleep 120"}))
    async with SSEServer(hostile_model(calls)) as api:
        env = {
            k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "AGENT_TUI_"))
        }
        env.update(ANTHROPIC_BASE_URL=api.url, ANTHROPIC_API_KEY="sk-e2e", AGENT_TUI_HOME=str(home))
        app = subprocess.Popen(
            [sys.executable, "-m", "agent_tui", "-p", "go", "--mode", "yolo", "--sandbox", sandbox],
            cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            assert await wait_until(lambda: len(running(tag)) == 2), "the command never started"
            app.send_signal(signal.SIGKILL)
            app.wait()
            assert await wait_until(lambda: running(tag) == []), f"left running: {running(tag)}"
        finally:
            if app.poll() is None:
                app.kill()
            for pid in running(tag):
                os.kill(pid, signal.SIGKILL)


async def test_no_orphans_without_the_sandbox() -> None:
    await kill_app_mid_command("off")


@needs_bwrap
async def test_no_orphans_with_the_sandbox() -> None:
    await kill_app_mid_command("on")


async def test_no_orphaned_background_shell_without_the_sandbox() -> None:
    await kill_app_mid_command("off", background=True)


@needs_bwrap
async def test_no_orphaned_background_shell_with_the_sandbox() -> None:
    await kill_app_mid_command("on", background=True)


def test_the_next_start_reaps_a_recorded_group_whose_app_died(tmp_path: Path) -> None:
    records = tmp_path / "running"
    child = subprocess.Popen(["sleep", "300"], start_new_session=True)
    placeholder = tmp_path / ".envrc"
    placeholder.touch()
    try:
        path = Records(records).add(child.pid, [(placeholder, "file")])
        assert path is not None
        data = path.read_text().replace(f'"app_pid": {os.getpid()}', '"app_pid": 999999999')
        path.write_text(data)  # as if written by an app that is gone
        done = reap(records)
        assert child.wait(timeout=10) == -signal.SIGKILL
        assert done and not placeholder.exists() and not list(records.iterdir())
    finally:
        if child.poll() is None:
            child.kill()
