"""The approval dialog's first frame: no garbage collection starts inside it (one that falls
due runs right after, in a callback of its own), and the collector is back right after."""

from __future__ import annotations

import gc
from typing import Any

from app_helpers import wait_for
from textual.screen import Screen

from agent_tui.ui.screens.approval import ApprovalScreen
from tests.ui.test_approval import SIZE, DialogApp, dialog


async def test_no_collection_starts_inside_the_dialogs_first_frame() -> None:
    enabled: list[bool] = []
    resume = Screen.__dict__["_on_screen_resume"]

    def spy(self: Screen[Any], event: Any) -> None:
        if isinstance(self, ApprovalScreen):
            enabled.append(gc.isenabled())  # Textual styles, lays out and paints it here
        resume(self, event)

    assert gc.isenabled()
    Screen._on_screen_resume = spy  # type: ignore[method-assign]
    try:
        app = DialogApp(dialog())
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen) and enabled)
            await wait_for(pilot, gc.isenabled)  # given back on the loop's next turn
            await pilot.press("y")
            await wait_for(pilot, lambda: bool(app.answers))
    finally:
        Screen._on_screen_resume = resume  # type: ignore[method-assign]
    assert enabled == [False]
    assert gc.isenabled()
