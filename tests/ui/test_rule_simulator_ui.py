"""The rule simulator in the app: the approval dialog says what its "always" rule would have
allowed in this project's past sessions, and `/permissions` tries a rule typed in (`t`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import make_app, type_prompt, wait_for
from textual.widgets import Input

from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.screens.permissions import PermissionsScreen

pytestmark = pytest.mark.usefixtures("offline_env")


def text_of(screen, selector: str) -> str:  # type: ignore[no-untyped-def]
    return " ".join(str(screen.query_one(selector).render()).split())


async def test_dialog_and_permissions_view(tmp_path: Path) -> None:
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.approvals.guard_s = 0.0
        # the app's queue has the rubber-stamp guard (settings: defaults) and the simulator
        assert app.approvals.stamp is not None and app.approvals.stamp.settings.enabled
        assert app.approvals.simulate is not None
        await type_prompt(pilot, "write a note")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), timeout=30)
        dialog = app.screen
        assert dialog.can_always
        await wait_for(pilot, lambda: "looking" not in text_of(dialog, "#simulation"))
        rule = dialog.request.decision.suggestions[0]
        assert text_of(dialog, "#simulation") == (
            f"in past sessions: no stored calls yet to try `{rule}` on"  # not "the 0 stored calls"
        )
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.turns.running, timeout=30)

        await type_prompt(pilot, "/permissions")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionsScreen))
        screen = app.screen
        await pilot.press("t")
        assert screen.query_one("#permissions-try", Input).has_focus
        await pilot.press(*rule, "enter")
        await wait_for(pilot, lambda: "would" in text_of(screen, "#permissions-tried"), timeout=30)
        tried = str(screen.query_one("#permissions-tried").render())
        assert tried.splitlines()[0] == f"`{rule}` would have allowed 1 past call unasked"
        assert "1 × Write" in tried and "ask → allow" in tried

        screen.query_one("#permissions-try", Input).value = ""
        await pilot.press(*"deny:Write", "enter")
        await wait_for(
            pilot, lambda: "would have denied" in text_of(screen, "#permissions-tried"), timeout=30
        )
        await pilot.press(*" (", "enter")  # a rule that can't be parsed: said, nothing breaks
        await wait_for(pilot, lambda: "can't try it" in text_of(screen, "#permissions-tried"))
