"""Review and undo through the real app and the real SDK at the loopback server: a shell-made
change undone by a rewind inside git, and outside git (a shadow repository under the data dir),
and an Edit written hunk by hunk, with the model told which hunk was left out."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from app_helpers import type_prompt, wait_for
from conversation_rules import reply, text, tool_use
from sse_server import SSEServer, use_loopback_api

from agent_tui.runtime import Options
from agent_tui.ui.app import AgentApp
from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.screens.restore import RestoreScreen, RewindScreen

COMMAND = "rm gone.txt && echo made > made.txt"


def to_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def shell_script(index: int, body: Any) -> str:
    if body["messages"][-1]["role"] == "user" and isinstance(body["messages"][-1]["content"], list):
        last = body["messages"][-1]["content"]
        if any(b.get("type") == "tool_result" for b in last):
            return to_sse(reply(text("Tidied up.")))
    return to_sse(reply(tool_use("toolu_sh", "Bash", {"command": COMMAND}), stop_reason="tool_use"))


def project(tmp_path: Path, *, git: bool) -> Path:
    work = tmp_path / "project"
    work.mkdir()
    (work / "gone.txt").write_text("made by the person\n")
    if git:
        subprocess.run(["git", "init", "-q", str(work)], check=True)
        subprocess.run(["git", "-C", str(work), "add", "-A"], check=True)
    return work


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


async def run_shell_turn(app: AgentApp, pilot: Any) -> None:
    app.approvals.guard_s = 0.0
    await type_prompt(pilot, "tidy up")
    await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), timeout=30)
    await pilot.pause()
    await pilot.press("y")
    await wait_for(pilot, lambda: not app.turns.running and len(app.agent.messages) >= 4, 30)


@pytest.mark.parametrize("git", [True, False], ids=["in-git", "outside-git"])
async def test_rewind_a_shell_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: Path, git: bool
) -> None:
    work = project(tmp_path, git=git)
    async with SSEServer(shell_script) as server:
        use_loopback_api(monkeypatch, server.url)
        app = AgentApp(Options(cwd=work), record=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.agent is not None, timeout=30)
            await run_shell_turn(app, pilot)
            assert not (work / "gone.txt").exists() and (work / "made.txt").exists()
            await type_prompt(pilot, "/rewind")
            await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen))
            await pilot.press("f")
            await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen))
            # outside git, a shadow repository under the data dir captured the command too
            titles = [str(t.render()) for t in app.screen.query(".restore-title")]
            assert any("[x] create   gone.txt" in t for t in titles), titles
            assert any("[x] delete   made.txt" in t for t in titles), titles
            await pilot.press("y")
            await wait_for(pilot, lambda: (work / "gone.txt").exists(), timeout=15)
            assert (work / "gone.txt").read_text() == "made by the person\n"
            assert not (work / "made.txt").exists()
            if not git:  # and nothing of it is in the folder
                assert sorted(p.name for p in work.iterdir()) == ["gone.txt"]
                return
            # the person's index is as it was: gone.txt staged, nothing else
            staged = subprocess.run(
                ["git", "-C", str(work), "diff", "--cached", "--name-only"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            assert staged == "gone.txt\n"


ORIGINAL = "".join(f"value_{n} = {n}\n" for n in range(20))


def edit_script(index: int, body: Any) -> str:
    last = body["messages"][-1]["content"]
    if isinstance(last, list) and any(b.get("type") == "tool_result" for b in last):
        return to_sse(reply(text("Edited.")))
    edit = {"path": "values.py", "old_string": "= 1", "new_string": "= 100", "replace_all": True}
    return to_sse(reply(tool_use("toolu_edit", "Edit", edit), stop_reason="tool_use"))


async def test_an_edit_written_hunk_by_hunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    work = tmp_path / "project"
    work.mkdir()
    (work / "values.py").write_text(ORIGINAL)
    async with SSEServer(edit_script) as server:
        use_loopback_api(monkeypatch, server.url)
        app = AgentApp(Options(cwd=work), record=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.agent is not None, timeout=30)
            app.approvals.guard_s = 0.0
            await type_prompt(pilot, "bump the values")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), timeout=30)
            await pilot.pause()
            # "= 1" occurs on line 2 and in "= 10".."= 19" (lines 11-20): two hunks
            assert len(app.screen.request.hunks) == 2
            await pilot.press("down", "space", "y")
            await wait_for(
                pilot, lambda: not app.turns.running and len(app.agent.messages) >= 4, 30
            )
    result = (work / "values.py").read_text()
    assert "value_1 = 100\n" in result and "value_12 = 12\n" in result
    sent = json.dumps(server.requests[-1].json["messages"][-1])
    assert "hunk(s) 1 of 2 were written" in sent and "+value_12 = 1002" in sent
