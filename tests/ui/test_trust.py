"""Pilot tests of the project trust dialog, alone and at start-up in the app."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import wait_for
from textual.app import App, ComposeResult
from textual.widgets import Static

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.runtime import Options
from agent_tui.ui.app import AgentApp
from agent_tui.ui.screens.trust import TrustScreen

GRANTS = ("Bash(rm:*)  (.agent-tui/settings.toml)", "Bash(git:*)  (.agent-tui/settings.toml)")


class Host(App[None]):
    def __init__(self, screen: TrustScreen) -> None:
        super().__init__()
        self.dialog = screen
        self.answers: list[bool | None] = []

    def compose(self) -> ComposeResult:
        yield Static("main")

    def on_mount(self) -> None:
        self.push_screen(self.dialog, self.answers.append)


@pytest.mark.parametrize(("key", "answer"), [("t", True), ("i", False), ("escape", False)])
async def test_keys_answer(key: str, answer: bool) -> None:
    app = Host(TrustScreen("/home/ada/repo", GRANTS, guard_s=0))
    async with app.run_test() as pilot:
        await pilot.pause()
        text = "\n".join(str(w.render()) for w in app.screen.query(Static))
        assert "Bash(rm:*)" in text and "Bash(git:*)" in text and "/home/ada/repo" in text
        await pilot.press(key)
        await pilot.pause()
        assert app.answers == [answer]


async def test_keys_typed_as_it_appears_do_not_answer() -> None:
    now = [100.0]
    app = Host(TrustScreen("/r", GRANTS, guard_s=0.5, clock=lambda: now[0]))
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("t")  # meant for the prompt
        await pilot.pause()
        assert app.answers == []
        now[0] += 1.0
        await pilot.press("i")
        await pilot.pause()
        assert app.answers == [False]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENT_TUI_OFFLINE_DELAY", "0")
    work = tmp_path / "work"
    (work / ".agent-tui").mkdir(parents=True)
    (work / ".agent-tui" / "settings.toml").write_text(
        '[permissions]\nallow = ["Bash(touch:*)"]\ndeny = ["Bash(curl:*)"]\n'
    )
    return work


async def _start(work: Path, key: str) -> AgentApp:
    app = AgentApp(Options(cwd=work), record=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        app.screen.guard_s = 0
        await pilot.press(key)
        await pilot.pause()
        assert not isinstance(app.screen, TrustScreen)
        engine = app.agent.permissions
        assert engine.check("Bash", {"command": "curl x"}, read_only=False).behavior == "deny"
        touch = engine.check("Bash", {"command": "touch x"}, read_only=False).behavior
        assert touch == ("allow" if key == "t" else "ask")
    return app


async def test_the_app_asks_once_and_remembers(project: Path) -> None:
    await _start(project, "t")
    # the answer is stored outside the project: a new start does not ask again
    again = PermissionEngine.load(project, config_dir=Path(str(project.parent / "home")))
    assert again.trust_question == ()
    assert again.check("Bash", {"command": "touch x"}, read_only=False).behavior == "allow"


async def test_ignoring_keeps_the_grants_off(project: Path) -> None:
    await _start(project, "i")


async def test_claude_code_project_files_are_listed_and_load_once_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    work = tmp_path / "work"
    (work / ".claude" / "agents").mkdir(parents=True)
    (work / ".claude" / "agents" / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: reviews\n---\nReview the change."
    )
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "g"}]}]}
    (work / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(touch *)"]}, "hooks": hooks})
    )
    app = AgentApp(Options(cwd=work), record=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        shown = "\n".join(str(w.render()) for w in app.screen.query(Static))
        for line in (
            "Bash(touch:*)  (.claude/settings.json)",
            "hook PreToolUse(Bash): g  (.claude/settings.json)",
            "sub-agent type reviewer (.claude/agents/reviewer.md)",
        ):
            assert line in shown
        agent = app.agent
        assert agent is not None and "reviewer" not in agent.subagents.types  # not yet
        app.screen.guard_s = 0  # type: ignore[attr-defined]
        await pilot.press("t")
        await pilot.pause()
        assert "reviewer" in agent.subagents.types
        assert agent.config.hooks.matching("PreToolUse", "Bash")
        touch = agent.permissions.check("Bash", {"command": "touch x"}, read_only=False)
        assert touch.behavior == "allow"


async def test_a_prompt_from_the_command_line_waits_for_the_trust_answer(project: Path) -> None:
    """`agent-tui "PROMPT"` in an untrusted project: the trust dialog comes first and the prompt
    is sent after the answer, under the settings it chose (before: the whole first turn ran
    behind the dialog, under the untrusted settings)."""
    app = AgentApp(Options(cwd=project, initial_prompt="hello"), record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        for _ in range(10):
            await pilot.pause(0.05)
        assert app.agent is not None and app.agent.messages == [] and not app.turns.running
        app.screen.guard_s = 0
        await pilot.press("t")
        await wait_for(pilot, lambda: len(app.agent.messages) >= 2 and not app.turns.running)
        assert app.agent.messages[0]["content"][0]["text"] == "hello"
