"""Fixtures for the tool tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.tools.base import ToolContext


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, data_dir=tmp_path / ".data")
