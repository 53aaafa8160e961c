"""Approval scopes in the app: `s` allows for this session (the same call runs without asking
until the app quits; nothing is saved, and a restarted app asks again); `a` shows the rule it will
save in an editable line (`e` edits it, Enter saves the edited rule)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from app_helpers import make_app, wait_for

from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.widgets.prompt import PromptInput
from agent_tui.ui.widgets.rule_line import RuleLine, split_rules

pytestmark = pytest.mark.usefixtures("offline_env")


def files(root: Path) -> dict[str, float]:
    return {
        str(p): p.stat().st_mtime for p in root.rglob("*") if p.is_file() and "settings" in p.name
    }


async def ask_count(app, pilot, prompt: str, answer: str | None) -> int:  # type: ignore[no-untyped-def]
    """Run one prompt to its end, answering every question with `answer`; how many were asked."""
    asked: list[str] = []
    app.agent.listeners.append(
        lambda e: asked.append(e.tool) if e.kind == "approval_requested" else None
    )
    app.on_prompt_input_submitted(PromptInput.Submitted(prompt))
    await wait_for(pilot, lambda: app.turns.running, timeout=30)
    while app.turns.running:
        if answer and isinstance(app.screen, ApprovalScreen) and app.screen.armed:
            await pilot.press(answer)
        await pilot.pause(0.05)
    return len(asked)


async def test_this_session_allows_until_quit_and_saves_nothing(tmp_path: Path) -> None:
    home = Path(os.environ["AGENT_TUI_HOME"])
    app = make_app(tmp_path, sandbox="off")
    before = files(tmp_path) | files(home)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.approvals.guard_s = 0.0
        app.approvals.stamp = None
        assert await ask_count(app, pilot, "run a command", "s") >= 1
        rules = [r.rule.text for r in app.agent.permissions.rules if r.source == "session"]
        assert rules, "the session's rule is in force"
        assert await ask_count(app, pilot, "run a command", None) == 0  # not asked again
        await app.action_quit()
    assert files(tmp_path) | files(home) == before  # nothing saved
    again = make_app(tmp_path, sandbox="off")
    async with again.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: again.agent is not None)
        again.approvals.guard_s = 0.0
        again.approvals.stamp = None
        assert await ask_count(again, pilot, "run a command", "n") >= 1  # a new process asks again
        await again.action_quit()


async def test_always_shows_an_editable_rule_and_saves_the_edit(tmp_path: Path) -> None:
    app = make_app(tmp_path, sandbox="off")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.approvals.guard_s = 0.0
        app.approvals.stamp = None
        app.on_prompt_input_submitted(PromptInput.Submitted("run a command"))
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), timeout=30)
        screen = app.screen
        await wait_for(pilot, lambda: screen.armed)
        suggested = screen.request.decision.suggestions
        assert not screen.query(RuleLine)  # mounted the first time `a` is pressed
        await pilot.press("a")
        await wait_for(pilot, lambda: screen.has_class("-confirming"))
        line = screen.query_one(RuleLine)
        assert line.display
        assert line.rules == suggested  # the narrow suggestion, shown before saving
        await pilot.press("e")
        assert line.has_focus
        line.value = "Bash(rm -rf:*"  # malformed: refused, nothing saved
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: "can't save" in str(screen.query_one("#rule-problem").render())
        )
        assert screen.answer is None
        line.value = "Bash(du -sh:*), Bash(sort -h)"
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.answer is not None)
        assert screen.answer.choice == "always"
        assert screen.answer.saved_rules == ("Bash(du -sh:*)", "Bash(sort -h)")
        local = app.agent.permissions.local_settings
        await wait_for(pilot, lambda: local.exists() and "Bash(du -sh:*)" in local.read_text())
        assert "Bash(sort -h)" in local.read_text()
        await app.action_quit()


def test_rules_split_on_top_level_commas_only() -> None:
    assert split_rules("Bash(echo a, b), Read(src/**) ,") == ("Bash(echo a, b)", "Read(src/**)")
