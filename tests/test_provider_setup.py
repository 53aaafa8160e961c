"""Which API a session talks to, and what is said when it can't: `--offline` says so (not "No
ANTHROPIC_API_KEY"), a base URL without a key stops with the line to fix it (not the SDK's
TypeError), and Bedrock/Vertex use the platform or stop with the install/credentials line —
never the offline model."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from app_helpers import make_app, wait_for

from agent_tui.providers.anthropic import AnthropicProvider
from agent_tui.providers.base import MessageRequest, ProviderError
from agent_tui.runtime import Options, offline_reason, setup_problem
from agent_tui.ui.chat.messages import NoticeMessage

_ALL = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "AGENT_TUI_USE_BEDROCK",
    "AGENT_TUI_USE_VERTEX",
    "AGENT_TUI_USE_FOUNDRY",
    "ANTHROPIC_FOUNDRY_RESOURCE",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_PROFILE",
    "CLOUD_ML_REGION",
)


@pytest.fixture
def bare_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _ALL:
        monkeypatch.delenv(name, raising=False)


async def cli(tmp_path: Path, env: dict[str, str], *args: str) -> tuple[int, str, str]:
    base = {k: v for k, v in os.environ.items() if k not in _ALL}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agent_tui", *args, env={**base, **env,
        "AGENT_TUI_HOME": str(tmp_path / "home"), "AGENT_TUI_OFFLINE_DELAY": "0"},
        cwd=tmp_path, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_base_url_without_a_key_says_what_to_set(tmp_path: Path) -> None:
    env = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    code, out, err = await cli(tmp_path, env, "-p", "hello")
    assert code == 1 and not out
    assert err.strip().splitlines() == [
        "agent-tui: ANTHROPIC_BASE_URL is set but ANTHROPIC_API_KEY is not: set "
        "ANTHROPIC_API_KEY (any value for a keyless server), or run with --offline"
    ]
    # --offline still works with the base URL set
    code, out, err = await cli(tmp_path, env, "--offline", "-p", "hello")
    assert code == 0 and out.strip(), err


@pytest.mark.parametrize(
    ("variable", "platform"),
    [("CLAUDE_CODE_USE_BEDROCK", "bedrock"), ("CLAUDE_CODE_USE_VERTEX", "vertex")],
)
async def test_a_platform_without_a_key_never_runs_offline(
    tmp_path: Path, variable: str, platform: str
) -> None:
    code, out, err = await cli(tmp_path, {variable: "1"}, "-p", "hello")
    assert code == 1 and not out  # the offline model would have answered on stdout
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    # this machine has neither boto3 nor google-auth: the install line; with them, the
    # credentials line of the first request (see the unit tests below)
    assert f"pip install 'agent-tui[{platform}]'" in err or "is not set up" in err


def test_offline_is_only_for_a_bare_environment(
    bare_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert (
        offline_reason(Options()) == "No ANTHROPIC_API_KEY: running on the built-in offline model"
    )
    for variable in ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "ANTHROPIC_BASE_URL"):
        with monkeypatch.context() as m:
            m.setenv(variable, "1")
            assert offline_reason(Options()) is None
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-x")
    assert offline_reason(Options()) is None
    assert offline_reason(Options(offline=True)) == (
        "Running on the built-in offline model (--offline)"
    )
    assert setup_problem(Options(offline=True)) is None and setup_problem(Options()) is None


async def test_bedrock_without_a_region_says_what_to_set(
    bare_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_USE_BEDROCK", "1")
    provider = AnthropicProvider("anthropic.claude-sonnet-4-5")
    provider.warm_up()  # remembered, not raised, in the boot thread
    assert provider.setup_error is not None and "AWS_REGION" in provider.setup_error
    with pytest.raises(ProviderError) as caught:
        async for _ in provider.stream(MessageRequest(model="m", messages=[])):
            pass
    assert caught.value.kind == "setup" and not caught.value.retryable
    assert caught.value.message.startswith(
        "Bedrock is not set up (No AWS region was provided): set AWS_REGION"
    )


async def test_vertex_without_a_region_says_what_to_set(
    bare_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_USE_VERTEX", "1")
    provider = AnthropicProvider("claude-sonnet-4-5@20250929")
    provider.warm_up()
    assert provider.setup_error is not None
    assert provider.setup_error.startswith(
        "Vertex AI is not set up (No region was given): set CLOUD_ML_REGION"
    )
    assert "CLOUD_ML_REGION and ANTHROPIC_VERTEX_PROJECT_ID" in provider.setup_error


async def test_the_tui_says_offline_was_asked_for(
    bare_env: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-set")
    app = make_app(tmp_path, offline=True)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: bool(app.query(NoticeMessage)))
        text = str(app.query(NoticeMessage).first().render())
    assert "Running on the built-in offline model (--offline)." in text
    assert "No ANTHROPIC_API_KEY" not in text


async def test_the_tui_says_at_once_when_the_platform_is_not_set_up(
    bare_env: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import agent_tui.providers.anthropic as anthropic_provider

    monkeypatch.setenv("CLAUDE_CODE_USE_VERTEX", "1")
    # as if the extra were installed: the SDK's client then finds no region
    monkeypatch.setattr(anthropic_provider, "platform_problem", lambda: None)
    app = make_app(tmp_path)
    async with app.run_test() as pilot:
        said = lambda: [str(n.render()) for n in app.query(NoticeMessage)]  # noqa: E731
        await wait_for(pilot, lambda: any("Vertex AI is not set up" in t for t in said()))
    assert not any("offline model" in t for t in said())
