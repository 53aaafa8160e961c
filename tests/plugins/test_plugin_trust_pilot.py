"""The trust dialog at start-up lists what the sample plugin brings; until `t` nothing of it acts
(no `/sample:greet`, no MCP server started, no hook runs), after it all of it does — its command
in the `/` list, its server started, its sub-agent type and its skill offered; `i` leaves it out
and the next start doesn't ask again."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from app_helpers import wait_for
from textual.widgets import Static

from agent_tui.runtime import Options
from agent_tui.ui.app import AgentApp
from agent_tui.ui.screens.trust import TrustScreen

SAMPLE = Path(__file__).parents[1] / "fixtures" / "sample_plugin"


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENT_TUI_OFFLINE_DELAY", "0")
    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.setenv("SAMPLE_PLUGIN_MARKS", str(marks))
    monkeypatch.setenv("SAMPLE_PLUGIN_PYTHON", sys.executable)
    folder = tmp_path / "sample_plugin"
    shutil.copytree(SAMPLE, folder)
    return folder


def names(app: AgentApp) -> set[str]:
    return {c.name for c in app.slash.commands}


async def test_the_dialog_lists_the_plugin_and_trust_turns_it_on(
    plugin: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    marks = tmp_path / "marks"
    app = AgentApp(Options(cwd=work, plugin_dirs=[plugin]), record=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        text = "\n".join(str(w.render()) for w in app.screen.query(Static))
        assert app.screen.query_one("#dialog").border_title == "Trust these plugins?"
        for shown in (
            "plugin sample 1.0.0",
            "slash command /sample:greet",
            "skill sample:haiku",
            "sub-agent type from agents/reviewer.md",
            "hook UserPromptSubmit: sh",
            "MCP server plugin_sample_stamp runs:",
        ):
            assert shown in text
        assert "sample:greet" not in names(app)
        assert app.agent is not None and "Skill" not in app.agent.tools
        assert "sample:reviewer" not in app.agent.subagents.types
        assert list(marks.iterdir()) == []
        app.screen.guard_s = 0
        await pilot.press("t")
        await wait_for(pilot, lambda: (marks / "marks").exists())
        assert (marks / "marks").read_text() == "mcp started\n"
        assert "sample:greet" in names(app) and "sample:haiku" in names(app)
        assert "Skill" in app.agent.tools and "sample:reviewer" in app.agent.subagents.types
        runner = app.agent.config.hooks
        assert [h.event for h in runner.matching("UserPromptSubmit")] == ["UserPromptSubmit"]
        await app.agent.mcp.manager.stop()


async def test_ignored_the_plugin_stays_off_and_is_not_asked_again(
    plugin: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    app = AgentApp(Options(cwd=work, plugin_dirs=[plugin]), record=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        app.screen.guard_s = 0
        await pilot.press("i")
        await pilot.pause()
        assert "sample:greet" not in names(app)
    again = AgentApp(Options(cwd=work, plugin_dirs=[plugin]), record=False)
    async with again.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: again.agent is not None)
        await pilot.pause(0.2)
        assert not isinstance(again.screen, TrustScreen)
        assert list((tmp_path / "marks").iterdir()) == []
