"""The approval dialog's stylesheet is read with the app's: showing the first dialog styles the
dialog, and doesn't parse every sheet again and restyle every widget of the app (which made the
first approval's callback the longest of a session, bench_callbacks.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from app_helpers import wait_for

from agent_tui.permissions.types import ApprovalRequest, Decision
from agent_tui.runtime import Options
from agent_tui.ui.app import AgentApp
from agent_tui.ui.screens.approval import ApprovalScreen


async def test_the_first_approval_dialog_does_not_restyle_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = AgentApp(Options(offline=True, cwd=tmp_path), record=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        reparsed: list[Any] = []
        monkeypatch.setattr(app.stylesheet, "reparse", lambda: reparsed.append(True))
        request = ApprovalRequest(
            tool_use_id="toolu_1",
            tool="Bash",
            input={"command": "rm -r build"},
            subject="rm -r build",
            decision=Decision("ask", reason="no rule allows `rm`"),
            cwd=str(tmp_path),
            save_to=".agent-tui/settings.local.toml",
        )
        dialog = ApprovalScreen(request)
        app.push_screen(dialog)
        await wait_for(pilot, lambda: app.screen is dialog and dialog.is_mounted)
        await pilot.pause()
        assert reparsed == []
        box = dialog.query_one("#dialog")  # styled by approval.tcss all the same
        assert box.styles.border_top[0] == "round" and box.styles.max_width is not None
