"""Undo takes back only what the agent did, through the real app and the real SDK at the loopback
server: in a git project the model runs two commands; between them the person creates a file
and edits another (from another terminal, while the turn runs) and answers the second call with
"always" (the app writes its local settings and a `.gitignore` line). /undo lists only the two
commands' files, and leaves the person's work and the app's own writes as they are."""

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
from agent_tui.ui.chat.messages import NoticeMessage
from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.screens.restore import RestoreScreen


def to_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


class TwoCommands:
    def __init__(self, work: Path) -> None:
        self.work = work

    def __call__(self, index: int, body: Any) -> str:
        results = [
            b["tool_use_id"]
            for m in body["messages"]
            if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"]
            if b.get("type") == "tool_result"
        ]
        if not results:
            call = tool_use("toolu_1", "Bash", {"command": "echo one > one.txt"})
            return to_sse(reply(call, stop_reason="tool_use"))
        if results == ["toolu_1"]:
            # the person, in another terminal, between the agent's two calls
            (self.work / "my_work.txt").write_text("the person's new file\n")
            (self.work / "README.md").write_text("# demo\n\nthe person's edit\n")
            call = tool_use("toolu_2", "Bash", {"command": "touch two.txt"})
            return to_sse(reply(call, stop_reason="tool_use"))
        return to_sse(reply(text("Done.")))


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    work = tmp_path / "project"
    work.mkdir()
    (work / "README.md").write_text("# demo\n")
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run(["git", "-C", str(work), "add", "-A"], check=True)
    return work


async def test_undo_lists_only_the_agents_calls(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with SSEServer(TwoCommands(work)) as server:
        use_loopback_api(monkeypatch, server.url)
        app = AgentApp(Options(cwd=work, sandbox="on"), record=True)  # the asking mode
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.agent is not None, timeout=30)
            app.approvals.guard_s = 0.0
            await type_prompt(pilot, "make two files")
            for key in ("y", "a"):  # the second call: "always"
                await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), timeout=30)
                dialog = app.screen
                await pilot.pause()
                await pilot.press(key)
                if key == "a":  # a lasting change: "a" again to confirm
                    await pilot.pause()
                    await pilot.press("a")
                await wait_for(pilot, lambda d=dialog: app.screen is not d, 15)  # type: ignore[misc]
            await wait_for(pilot, lambda: not app.turns.running, timeout=30)
            assert (work / "two.txt").exists()
            assert ".agent-tui/settings.local.toml" in (work / ".gitignore").read_text()
            await type_prompt(pilot, "/undo")
            await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen), timeout=15)
            titles = [str(t.render()) for t in app.screen.query(".restore-title")]
            assert len(titles) == 2, titles
            assert "one.txt" in titles[0] and "two.txt" in titles[1]
            await pilot.press("y")
            await wait_for(
                pilot,
                lambda: any(n.text.startswith("Restored 2 file") for n in app.query(NoticeMessage)),
                timeout=15,
            )
    assert not (work / "one.txt").exists() and not (work / "two.txt").exists()
    assert (work / "my_work.txt").read_text() == "the person's new file\n"
    assert (work / "README.md").read_text() == "# demo\n\nthe person's edit\n"
    assert ".agent-tui/settings.local.toml" in (work / ".gitignore").read_text()
    assert "touch" in (work / ".agent-tui" / "settings.local.toml").read_text()
