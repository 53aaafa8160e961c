"""Bedrock and Vertex go through the SDK's own clients (not the first-party one under another
name), and a missing optional extra is a clear error at start-up, not at the first request."""

from __future__ import annotations

import importlib.util
from typing import Any

import anthropic
import pytest

from agent_tui.cli import main
from agent_tui.providers import anthropic as provider_module
from agent_tui.providers.anthropic import AnthropicProvider, platform_problem
from agent_tui.providers.base import ProviderError


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> pytest.MonkeyPatch:
    for name in (
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
        "AGENT_TUI_USE_BEDROCK",
        "AGENT_TUI_USE_VERTEX",
        "AGENT_TUI_USE_FOUNDRY",
        "ANTHROPIC_FOUNDRY_RESOURCE",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    return monkeypatch


@pytest.mark.parametrize(
    ("variable", "platform", "client"),
    [
        ("CLAUDE_CODE_USE_BEDROCK", "bedrock", "AsyncAnthropicBedrock"),
        ("CLAUDE_CODE_USE_VERTEX", "vertex", "AsyncAnthropicVertex"),
        (None, "anthropic", "AsyncAnthropic"),
    ],
)
def test_each_platform_uses_the_sdks_own_client(
    clean_env: pytest.MonkeyPatch, variable: str | None, platform: str, client: str
) -> None:
    if variable:
        clean_env.setenv(variable, "1")
    made: list[tuple[str, dict[str, Any]]] = []

    def fake(name: str) -> Any:
        return lambda **kwargs: made.append((name, kwargs)) or object()

    for name in ("AsyncAnthropic", "AsyncAnthropicBedrock", "AsyncAnthropicVertex"):
        clean_env.setattr(anthropic, name, fake(name))
    provider = AnthropicProvider("claude-sonnet-4-5")
    assert provider.name == platform
    provider.warm_up()
    assert made == [(client, {"max_retries": 0, "timeout": 600.0})]


def test_a_missing_extra_is_a_clear_error_at_start_up_and_at_the_client(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clean_env.setenv("CLAUDE_CODE_USE_BEDROCK", "1")
    real_find_spec = importlib.util.find_spec
    clean_env.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "boto3" else real_find_spec(name, *a),
    )
    problem = platform_problem()
    assert problem is not None and "pip install 'agent-tui[bedrock]'" in problem
    assert main(["-p", "hello"]) == 1
    assert "agent-tui[bedrock]" in capsys.readouterr().err

    def missing(**kwargs: Any) -> Any:
        raise ImportError("No module named 'boto3'")

    clean_env.setattr(anthropic, "AsyncAnthropicBedrock", missing)
    provider = AnthropicProvider("claude-sonnet-4-5")
    provider.warm_up()  # in the boot thread: remembered for the app to say, not raised
    assert provider.setup_error is not None and "agent-tui[bedrock]" in provider.setup_error
    with pytest.raises(ProviderError, match=r"agent-tui\[bedrock\]"):
        provider._get_client()


def test_the_first_party_platform_needs_no_extra(clean_env: pytest.MonkeyPatch) -> None:
    assert platform_problem() is None
    assert provider_module.EXTRA_MODULES.keys() == {"bedrock", "vertex"}
