"""The bell (and OSC 9/777 where the terminal shows them): exactly one per approval dialog, one
when a long turn ends, none when `[ui] notify = false`."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import make_app, wait_for

from agent_tui.ui.controllers.notifier import Notifier, notification_style
from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.widgets.prompt import PromptInput

pytestmark = pytest.mark.usefixtures("offline_env")


def test_the_terminal_decides_what_is_sent() -> None:
    assert notification_style({"TERM_PROGRAM": "iTerm.app"}) == "osc9"
    assert notification_style({"WT_SESSION": "x"}) == "osc9"
    assert notification_style({"VTE_VERSION": "7600", "TERM": "xterm-256color"}) == "osc777"
    # tmux and screen get the bell only (they turn it into their own alert)
    assert notification_style({"TERM_PROGRAM": "iTerm.app", "TMUX": "/tmp/t,1,0"}) is None
    assert notification_style({"TERM": "xterm-256color"}) is None
    out: list[str] = []
    Notifier(out.append, env={"TERM_PROGRAM": "WezTerm"}).approval("Bash", "rm -rf x;\x1b[2J")
    assert out == ["\a\x1b]9;agent-tui: approval needed: Bash: rm -rf x  [2J\x1b\\"]
    out.clear()
    Notifier(out.append, env={"VTE_VERSION": "1"}).turn_ended(45)
    assert out == ["\a\x1b]777;notify;agent-tui;the turn ended after 45 s\x1b\\"]
    out.clear()
    Notifier(out.append, env={}).turn_ended(5)  # a short turn: the person is still there
    Notifier(out.append, env={}, enabled=False).approval("Bash", "ls")
    assert out == []


async def test_one_bell_per_approval_dialog(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.on_prompt_input_submitted(PromptInput.Submitted("run a command"))
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), timeout=30)
        for _ in range(5):  # the dialog repainting, resizing, waiting: no more alerts
            await pilot.pause()
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert [t for t, _ in app.notifier.sent] == ["agent-tui: approval needed"]
        assert app.notifier.sent[0][1].startswith("Bash: du -sh")


async def test_notify_off_in_the_settings_rings_nothing(tmp_path: Path) -> None:
    from agent_tui.paths import config_dir

    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "settings.toml").write_text("[ui]\nnotify = false\n")
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.on_prompt_input_submitted(PromptInput.Submitted("run a command"))
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), timeout=30)
        assert app.notifier.sent == []


async def test_a_long_turns_end_is_announced(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.notifier.long_turn_s = 0  # every turn counts as long
        app.on_prompt_input_submitted(PromptInput.Submitted("hello"))
        await wait_for(pilot, lambda: app.notifier.sent, timeout=30)
        assert app.notifier.sent[0][1].startswith("the turn ended after")
