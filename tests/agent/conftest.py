"""Fixtures for the agent tests."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent_tui.agent import loop as loop_module


@pytest.fixture
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record the loop's back-off delays instead of sleeping them."""
    delays: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(delay: float, *args: Any) -> None:
        if delay > 0:
            delays.append(delay)
        await real_sleep(0)

    monkeypatch.setattr(loop_module.asyncio, "sleep", fake_sleep)
    return delays
