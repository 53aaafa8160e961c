"""`/doctor`: the versions, each speed-up to Textual (applied, or standing down and why) and the
debug log."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import make_app, type_prompt, wait_for

from agent_tui.speedups.guard import OFF_VARIABLE

pytestmark = pytest.mark.usefixtures("offline_env")


async def test_doctor_lists_each_speed_up_and_why_one_stood_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui import speedups
    from agent_tui.speedups import guard
    from agent_tui.ui.chat.messages import NoticeMessage

    # Every patch decided first, in the process's own verdicts (before the app applies any: once
    # applied, a target digests as the patch); the test's copy leaves one to decide again.
    speedups.status()
    decided = {k: v for k, v in guard.verdicts.items() if k != "geometry_caches"}
    monkeypatch.setattr(guard, "verdicts", decided)
    monkeypatch.setenv(OFF_VARIABLE, "geometry_caches")
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await type_prompt(pilot, "/doctor")
        await wait_for(pilot, lambda: any("Speed-ups" in n.text for n in app.query(NoticeMessage)))
        (text,) = [n.text for n in app.query(NoticeMessage) if "Speed-ups" in n.text]
    assert text.startswith("agent-tui 0.1.0 · Python ")
    assert "  ✓ strip_self_cache: applied (without it: " in text
    assert f"  ✗ geometry_caches: stands down, turned off by {OFF_VARIABLE}" in text
    assert "Debug log: none (agent-tui --debug writes one)" in text
