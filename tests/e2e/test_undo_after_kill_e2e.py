"""Undo after `kill -9`: the real CLI (`agent-tui -p`, the real SDK at the loopback server) writes
a file, then is killed with SIGKILL while its next command runs; the resumed session's /undo
still offers the write. Without the sandbox's change sets, /undo names the call that ran after
the last record and keeps what that call may have changed unless the person ticks it; with them,
nothing of the killed command reached the project: its change set waits, offered at the start
and applied file by file with /changes. A kill during a snapshot leaves no index copy in the
temp folder."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from app_helpers import type_prompt, wait_for
from bwrap_support import needs_bwrap
from conversation_rules import reply, text, tool_use
from sse_server import SSEServer, use_loopback_api

from agent_tui.checkpoints.scratch import clean_stale
from agent_tui.runtime import Options
from agent_tui.ui.app import AgentApp
from agent_tui.ui.chat.messages import NoticeMessage
from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.screens.restore import RestoreScreen

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGKILL")

NOTE = "# Notes\n\nwritten by the agent\n"
SLOW = "echo partial > half.txt && sleep 30"


def to_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def write_then_slow(index: int, body: Any) -> str:
    results = [
        b["tool_use_id"]
        for m in body["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    if not results:
        call = tool_use("toolu_w", "Write", {"path": "NOTES.md", "content": NOTE})
        return to_sse(reply(call, stop_reason="tool_use"))
    if results == ["toolu_w"]:
        call = tool_use("toolu_b", "Bash", {"command": SLOW})
        return to_sse(reply(call, stop_reason="tool_use"))
    return to_sse(reply(text("Done.")))


def git_project(tmp_path: Path) -> Path:
    work = tmp_path / "project"
    work.mkdir()
    (work / "README.md").write_text("# demo\n")
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run(["git", "-C", str(work), "add", "-A"], check=True)
    return work


async def killed_run(server: SSEServer, work: Path, home: Path, sandbox: str = "off") -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "AGENT_TUI_"))}
    env.update(ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY="sk-ant-e2e")
    env.update(AGENT_TUI_HOME=str(home))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agent_tui", "-p", "write a note, then build", "--approve-asks",
        "--sandbox", sandbox,
        env=env, cwd=work, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip

    def reached() -> bool:  # in the project, or in the command's change set (the sandbox's)
        return (work / "half.txt").exists() or any(home.glob("changes/*/upper/half.txt"))

    try:
        for _ in range(1500):  # the slow command is running once its first file is there
            if reached() or proc.returncode is not None:
                break
            await asyncio.sleep(0.02)
        if proc.returncode is not None and proc.stderr is not None:
            raise AssertionError((await proc.stderr.read()).decode())
        assert reached(), "the run never reached its slow command"
        assert (work / "NOTES.md").read_text() == NOTE
    finally:
        proc.send_signal(signal.SIGKILL)
        await proc.wait()
    assert proc.returncode == -signal.SIGKILL


async def test_undo_after_a_kill_mid_turn_offers_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = git_project(tmp_path)
    home = tmp_path / "home"
    monkeypatch.setenv("AGENT_TUI_HOME", str(home))
    async with SSEServer(write_then_slow) as server:
        await killed_run(server, work, home)
        use_loopback_api(monkeypatch, server.url)
        app = AgentApp(Options(cwd=work, continue_=True, sandbox="off"), record=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.agent is not None and app.recorder, timeout=30)
            await type_prompt(pilot, "/undo")
            await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen), timeout=15)
            screen = app.screen
            titles = {str(t.render()) for t in screen.query(".restore-title")}
            assert any("[x] delete   NOTES.md" in t for t in titles), titles
            half = [t for t in titles if "half.txt" in t]
            assert half and "[ ] keep" in half[0] and "never recorded" in half[0], titles
            summary = str(screen.query_one("#restore-summary").render())
            assert f"interrupted Bash: {SLOW}" in summary
            await pilot.press("y")
            await wait_for(pilot, lambda: not (work / "NOTES.md").exists(), timeout=15)
            notices = [n.text for n in app.query(NoticeMessage)]
            await wait_for(
                pilot,
                lambda: any(n.text.startswith("Restored 1 file") for n in app.query(NoticeMessage)),
            )
            assert notices is not None
    assert (work / "half.txt").read_text() == "partial\n"  # kept: it can't be vouched for


@needs_bwrap
async def test_a_kill_mid_command_leaves_the_project_as_it_was_and_offers_the_change_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = git_project(tmp_path)
    home = tmp_path / "home"
    monkeypatch.setenv("AGENT_TUI_HOME", str(home))
    async with SSEServer(write_then_slow) as server:
        await killed_run(server, work, home, sandbox="on")
        # nothing of the killed command is in the project (its writes were its change set)
        assert sorted(p.name for p in work.iterdir()) == [".git", "NOTES.md", "README.md"]
        use_loopback_api(monkeypatch, server.url)
        app = AgentApp(Options(cwd=work, continue_=True, sandbox="on"), record=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.agent is not None and app.recorder, timeout=30)

            def notices() -> list[NoticeMessage]:
                return list(app.query(NoticeMessage))

            await wait_for(pilot, lambda: any("wait" in n.text for n in notices()), timeout=30)
            assert not [n for n in notices() if n.has_class("warning")], [n.text for n in notices()]
            await type_prompt(pilot, "/undo")
            await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen), timeout=15)
            titles = {str(t.render()) for t in app.screen.query(".restore-title")}
            assert any("[x] delete   NOTES.md" in t for t in titles), titles
            assert not any("half.txt" in t for t in titles), titles  # never in the project
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, RestoreScreen))
            await type_prompt(pilot, "/changes")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), timeout=15)
            assert "half.txt" in str(
                app.screen.query_one("#hunks").query(".hunk-title").first().render()
            )
            await wait_for(pilot, lambda: app.screen.armed, timeout=5)
            await pilot.press("y")
            await wait_for(pilot, lambda: (work / "half.txt").exists(), timeout=15)
    assert (work / "half.txt").read_text() == "partial\n"
    assert not any(home.glob("changes/*/manifest.json"))  # applied: nothing waits any more


_KILLED_SNAPSHOT = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from agent_tui.checkpoints.checkpointer import Checkpointer

    cp = Checkpointer(Path(sys.argv[1]), lambda _e: None)
    asyncio.run(cp.before("make", "Bash", None))
    """
)


def test_a_kill_during_a_snapshot_leaves_no_index_copy_behind(tmp_path: Path) -> None:
    work = git_project(tmp_path)
    home, temp, fake_bin = tmp_path / "home", tmp_path / "tmp", tmp_path / "bin"
    temp.mkdir()
    fake_bin.mkdir()
    real_git = subprocess.run(["which", "git"], capture_output=True, text=True).stdout.strip()
    # git that stops inside `add` (the index copy made, the snapshot under way) until killed
    (fake_bin / "git").write_text(
        "#!/bin/sh\n"
        # (`add` after the runner's neutralising `-c` settings, not as the first word)
        f'for a; do [ "$a" = add ] && {{ echo adding > "{tmp_path}/stalled"; sleep 30; }}; done\n'
        f'exec "{real_git}" "$@"\n'
    )
    (fake_bin / "git").chmod(0o755)
    env = {**os.environ, "AGENT_TUI_HOME": str(home), "TMPDIR": str(temp)}
    env["PATH"] = f"{fake_bin}{os.pathsep}{env['PATH']}"
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_SNAPSHOT, str(work)], env=env, start_new_session=True
    )
    try:
        for _ in range(1500):
            if (tmp_path / "stalled").exists() or proc.poll() is not None:
                break
            subprocess.run(["sleep", "0.02"])
        assert (tmp_path / "stalled").exists(), "the snapshot never started"
    finally:
        # the app and its git, as a terminal's kill would (already gone: the check above says why)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert list(temp.iterdir()) == []  # nothing in the temp folder, before or after a start
    scratch = home / "scratch" / str(proc.pid)
    assert any(scratch.iterdir())  # the index copy is in the process's own scratch folder
    clean_stale(home)  # what the next start runs
    assert not scratch.exists()
    assert sorted(p.name for p in work.iterdir()) == [".git", "README.md"]
