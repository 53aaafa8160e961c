"""Shared test setup. Kept minimal: helpers live in importable modules (`sse_server`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# CI draws the property tests' examples from fixed seeds, so a red build is reproducible; other
# runs draw new ones each time (that is how `;;` outside a case was found: see test_shell_cases).
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

# Test modules import helpers such as `sse_server` from this directory whatever the import mode.
_TESTS = str(Path(__file__).parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)


@pytest.fixture(autouse=True)
def _own_home(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each test has a home of its own: none reads the person's settings or writes their data or
    cache. A test that needs a particular home sets AGENT_TUI_HOME itself."""
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path_factory.mktemp("home")))
    # nor the person's Claude Code settings (~/.claude/settings.json), nor --settings of another
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path_factory.mktemp("claude")))
    from agent_tui.permissions import claude_settings

    claude_settings.use_cli_settings(())
