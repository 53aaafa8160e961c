"""Issue 44.2: the app killed (SIGKILL) or terminated (SIGTERM) while a sandboxed command runs
leaves the project as the person had it, no process behind, and the next `--continue` says
nothing alarming but offers the command's change set, which waits and is never applied silently.
The real CLI against the loopback API; the work folder off /tmp."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from bwrap_support import needs_bwrap
from e2e.test_security_e2e import hostile_model
from sse_server import SSEServer, run_agent_tui

from agent_tui.sandbox.transaction import remove_folder

pytestmark = needs_bwrap

#: a sleep only this test runs (to find a leftover process by its command line)
SLEEP = "sleep 37.25"
SLOW = f"echo partial > half.txt && echo more >> README.md && {SLEEP}"


@pytest.fixture
def places() -> Iterator[tuple[Path, Path]]:
    root = Path(tempfile.mkdtemp(prefix="agent-tui-kill-", dir="/var/tmp"))
    project, home = root / "project", root / "app"
    project.mkdir()
    home.mkdir()
    (project / "README.md").write_text("# mine\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    try:
        yield project, home
    finally:
        remove_folder(root)


def leftovers() -> list[str]:
    out = subprocess.run(["pgrep", "-af", SLEEP], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if "pgrep" not in line]


async def killed(project: Path, home: Path, api: SSEServer, sig: signal.Signals) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "AGENT_TUI_"))}
    env.update(ANTHROPIC_BASE_URL=api.url, ANTHROPIC_API_KEY="sk-ant-e2e", AGENT_TUI_HOME=str(home))
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agent_tui", "-p", "build", "--mode", "yolo", "--sandbox", "on",
        env=env, cwd=project, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:

        def sleeping() -> bool:  # both writes are in its change set: it sleeps now
            return any(home.glob("changes/*/upper/README.md")) and bool(leftovers())

        for _ in range(3000):
            if sleeping() or proc.returncode is not None:
                break
            await asyncio.sleep(0.02)
        assert sleeping(), "the command never got to its sleep"
        proc.send_signal(sig)
        _, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode is not None
    return proc.returncode, err.decode()


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
async def test_a_killed_run_leaves_the_project_as_it_was_and_offers_the_change_set(
    places: tuple[Path, Path], sig: signal.Signals
) -> None:
    project, home = places
    before = sorted(p.name for p in project.iterdir())
    async with SSEServer(hostile_model([("Bash", {"command": SLOW})])) as api:
        code, err = await killed(project, home, api, sig)
    if sig == signal.SIGTERM:
        assert code == 143, err
        lines = [line for line in err.splitlines() if line.strip()]
        assert lines[-1].startswith("agent-tui: stopped by SIGTERM"), err
        assert "Traceback" not in err
    else:
        assert code == -signal.SIGKILL
    for _ in range(100):  # the kernel takes the sandbox down with its parent
        if not leftovers():
            break
        await asyncio.sleep(0.05)
    assert leftovers() == []
    assert sorted(p.name for p in project.iterdir()) == before
    assert (project / "README.md").read_text() == "# mine\n"
    async with SSEServer(hostile_model([])) as api:
        code, _, err_bytes = await run_agent_tui(
            api, project, home, "-p", "and now?", "--continue", "--sandbox", "on"
        )
    err = err_bytes.decode()
    assert code == 0, err
    assert "warning" not in err, err
    assert "file changes wait for you, not applied" in err, err
    assert sorted(p.name for p in project.iterdir()) == before  # offered, not applied
    listing = subprocess.run(
        [sys.executable, "-m", "agent_tui", "changes", "list"],
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, "AGENT_TUI_HOME": str(home)},
    )
    [held] = listing.stdout.strip().splitlines()
    ident = held.split()[0]
    applied = subprocess.run(
        [sys.executable, "-m", "agent_tui", "changes", "apply", ident],
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, "AGENT_TUI_HOME": str(home)},
    )
    assert applied.returncode == 0, applied.stderr
    assert (project / "half.txt").read_text() == "partial\n"
    assert (project / "README.md").read_text() == "# mine\nmore\n"
