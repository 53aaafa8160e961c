"""The tool pane's background shells: listed with id, age, command and last line; focused, `k`
kills the selected one (its process group gone); quitting kills the rest."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import make_app, wait_for

from agent_tui.tools.base import ToolContext

pytestmark = pytest.mark.usefixtures("offline_env")


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


async def test_the_pane_lists_shells_and_k_kills_the_selected_one(tmp_path: Path) -> None:
    app = make_app(tmp_path, sandbox="off")
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        registry = app.agent.config.shells
        ctx = ToolContext(cwd=app.options.cwd, data_dir=tmp_path, shells=registry)
        first = await registry.start("echo first up; sleep 300", ctx, outside=True)
        second = await registry.start("echo second up; sleep 300", ctx, outside=True)
        shells = app.main.tool_pane.shells
        await wait_for(pilot, lambda: "second up" in str(shells.render()))
        text = str(shells.render())
        assert "Background shells · 2 running" in text
        assert "bash_1" in text and "echo first up; sleep 300" in text and "first up" in text
        await pilot.press("alt+k")
        assert shells.has_focus
        await pilot.press("down")
        await wait_for(pilot, lambda: "▶ bash_2" in str(shells.render()))
        await pilot.press("k")
        await wait_for(pilot, lambda: second.status == "killed" and gone(second.pgid))
        assert first.status == "running"
        await wait_for(pilot, lambda: "1 running" in str(shells.render()))
        await app.action_quit()
    assert first.status == "killed" and gone(first.pgid)


async def test_the_shells_are_reached_by_keys_that_pass_tmux_at_80_columns(tmp_path: Path) -> None:
    """At 80x24 the side pane is hidden: Tab, F2, /bashes and the palette's entry each reach the
    list (before: Alt+K only, which tmux may hand over as `k`; Tab cycled chat and prompt)."""
    from agent_tui.ui.controllers.palette import palette_commands

    app = make_app(tmp_path, sandbox="off")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        registry = app.agent.config.shells
        ctx = ToolContext(cwd=app.options.cwd, data_dir=tmp_path, shells=registry)
        await registry.start("echo up; sleep 300", ctx, outside=True)
        shells = app.main.tool_pane.shells
        await wait_for(pilot, lambda: "up" in str(shells.render()))
        side = app.query_one("#side")
        assert not side.display  # narrow: hidden

        def back_to_prompt() -> None:
            side.display = False
            app.main.prompt.focus()

        for _ in range(3):  # Tab from the prompt: the chat, then the shells
            await pilot.press("tab")
            if shells.has_focus:
                break
        assert shells.has_focus and side.display
        back_to_prompt()
        await pilot.press("f2")
        assert shells.has_focus
        back_to_prompt()
        app.slash.handle("/bashes")
        await wait_for(pilot, lambda: shells.has_focus)
        back_to_prompt()
        (entry,) = [
            c
            for c in palette_commands(app.sessions, app.undo, app.settings, app.action_focus_shells)
            if c.title == "Background shells"
        ]
        entry.callback()
        await wait_for(pilot, lambda: shells.has_focus)
        await pilot.press("k")
        await wait_for(pilot, lambda: not registry.running())
        await app.action_quit()
