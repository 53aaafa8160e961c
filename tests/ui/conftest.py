"""Fixtures for the UI tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def offline_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The app on its offline model, with a home of its own; replies paced by
    `AGENT_TUI_OFFLINE_DELAY` (0.05 unless the test sets another)."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENT_TUI_OFFLINE_DELAY", "0.05")
