"""A status line of the person's own (`[ui] status_command`, Claude Code's `statusLine`): the
command gets Claude Code's JSON on stdin and its first line shows above the status line; one
that fails says so once (and shows again once it works); one that is slow runs in a worker
thread, never twice at once, and is killed at its timeout; a project's `statusLine` is not run."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from app_helpers import wait_for
from textual.widgets import Static

from agent_tui import status_line
from agent_tui.runtime import Options
from agent_tui.ui.app import AgentApp
from agent_tui.ui.chat.messages import NoticeMessage


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENT_TUI_OFFLINE_DELAY", "0")


def settings(command: str) -> None:
    home = Path(os.environ["AGENT_TUI_HOME"])
    (home / "settings.toml").write_text(f"[ui]\nstatus_command = {json.dumps(command)}\n")


def notices(app: AgentApp) -> list[str]:
    return [str(n.text) for n in app.query(NoticeMessage)]


async def test_the_first_line_shows_with_the_sessions_json(tmp_path: Path, offline: None) -> None:
    seen = tmp_path / "stdin.json"
    settings(f"cat > {seen}; printf '\\033[32mmain\\033[0m ✓\\nsecond line\\n'")
    app = AgentApp(Options(cwd=tmp_path), record=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: bool(app.query("#status-command")), timeout=20)
        line = app.query_one("#status-command", Static)
        await wait_for(pilot, lambda: "main ✓" in str(line.render()))
        assert "second line" not in str(line.render())
    data = json.loads(seen.read_text())
    assert data["hook_event_name"] == "Status" and data["cwd"] == str(tmp_path)
    assert data["workspace"]["current_dir"] == str(tmp_path)
    assert set(data["model"]) == {"id", "display_name"} and "total_cost_usd" in data["cost"]


async def test_a_failing_command_is_said_once(tmp_path: Path, offline: None) -> None:
    count = tmp_path / "runs"
    settings(f"echo x >> {count}; echo broken >&2; exit 3")
    app = AgentApp(Options(cwd=tmp_path), record=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: any("status command" in n for n in notices(app)))
        await wait_for(pilot, lambda: count.exists() and len(count.read_text().split()) >= 2)
        said = [n for n in notices(app) if "status command" in n]
        assert len(said) == 1 and "exit 3: broken" in said[0]  # tried again, said once
        assert not app.query("#status-command")


def test_a_slow_command_is_killed_at_its_timeout(tmp_path: Path) -> None:
    marker = tmp_path / "late"
    outcome = status_line.run(f"sleep 3; touch {marker}", b"{}", tmp_path, timeout=0.3)
    assert outcome.error == "took longer than 0.3 s"
    time.sleep(3.2)
    assert not marker.exists()  # its whole process group was killed


async def test_a_run_never_overlaps_the_next(tmp_path: Path, offline: None) -> None:
    log = tmp_path / "log"
    settings(f"echo start >> {log}; sleep 2.5; echo end >> {log}; echo ok")
    app = AgentApp(Options(cwd=tmp_path), record=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: log.exists() and "end" in log.read_text(), timeout=20)
        await pilot.pause(0.5)
    lines = log.read_text().split()
    assert lines[:2] == ["start", "end"]  # the second run began after the first ended


def test_claude_codes_statusline_from_the_persons_files_only(tmp_path: Path) -> None:
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(
        json.dumps({"statusLine": {"type": "command", "command": "touch /tmp/pwned"}})
    )
    assert status_line.configured_command(tmp_path) is None
    (claude / "settings.json").write_text(
        json.dumps({"statusLine": {"type": "command", "command": "~/.claude/line.sh"}})
    )
    assert status_line.configured_command(tmp_path) == ("~/.claude/line.sh", "statusLine")
    settings("echo ours")
    assert status_line.configured_command(tmp_path) == ("echo ours", "[ui] status_command")
