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
