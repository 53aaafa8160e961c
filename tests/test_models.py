"""The model table: Claude Code's aliases, the `[1m]` suffix and its beta, adaptive thinking and
effort where the model has them, the defaults current; and what a real request carries (the
real SDK against the loopback API)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conversation_rules import reply, text
from sse_server import SSEServer, run_agent_tui

from agent_tui import models
from agent_tui.agent.model_list import listing
from agent_tui.providers.anthropic import DEFAULT_MODEL, DEFAULT_SMALL_MODEL


def test_aliases_and_the_1m_suffix_resolve() -> None:
    assert models.resolve("opus") == "claude-opus-5-5"
    assert models.resolve("Sonnet[1m]") == "claude-sonnet-5-5[1m]"
    assert models.resolve("claude-opus-4-8[1m]") == "claude-opus-4-8[1m]"
    assert models.resolve("my-proxy/model") == "my-proxy/model"


def test_the_defaults_are_the_tables_and_current() -> None:
    assert (models.default_model(), models.small_model()) == (DEFAULT_MODEL, DEFAULT_SMALL_MODEL)
    for name in (DEFAULT_MODEL, DEFAULT_SMALL_MODEL):
        row = models.info(name)
        assert row is not None and row.status == "latest"


@pytest.mark.parametrize(
    ("model", "sent", "betas"),
    [
        ("claude-opus-4-6[1m]", "claude-opus-4-6", ("context-1m-2025-08-07",)),
        ("claude-opus-4-8[1m]", "claude-opus-4-8", ()),  # 1M natively: no beta
        ("claude-sonnet-5-5", "claude-sonnet-5-5", ()),
        (
            "us.anthropic.claude-opus-4-7[1m]",
            "us.anthropic.claude-opus-4-7",
            ("context-1m-2025-08-07",),
        ),
    ],
)
def test_what_is_sent_for_a_model(model: str, sent: str, betas: tuple[str, ...]) -> None:
    assert models.for_api(model) == (sent, betas)


def test_rows_match_dated_and_platform_ids_but_not_neighbours() -> None:
    assert models.info("claude-haiku-4-5-20251001").id == "claude-haiku-4-5"  # type: ignore[union-attr]
    assert models.info("claude-opus-4-6@20260101").id == "claude-opus-4-6"  # type: ignore[union-attr]
    assert models.info("claude-sonnet-5-5").id == "claude-sonnet-5-5"  # type: ignore[union-attr]
    assert models.info("claude-sonnet-5").id == "claude-sonnet-5"  # type: ignore[union-attr]
    assert models.info("offline") is None and models.info("gpt-x") is None


def test_thinking_and_effort_follow_the_model() -> None:
    assert models.thinking_param("claude-opus-5-5", None) == {"type": "adaptive"}  # always on
    assert models.thinking_param("claude-sonnet-5-5", None) is None
    assert models.thinking_param("claude-sonnet-5-5", 8000) == {"type": "adaptive"}
    assert models.thinking_param("claude-haiku-4-5", 8000) == {
        "type": "enabled",
        "budget_tokens": 8000,
    }
    assert models.thinking_param("offline", None) is None
    assert models.output_config("claude-sonnet-5-5", "high") == {"effort": "high"}
    assert models.output_config("claude-haiku-4-5", "high") is None
    assert models.max_output("claude-haiku-4-5", 100_000) == 64_000


def test_the_listing_shows_current_models_and_leaves_out_retired_ones() -> None:
    lines = listing("claude-sonnet-5-5")
    assert any(line.startswith("→ claude-sonnet-5-5 (sonnet)") for line in lines)
    assert any("claude-opus-4-6" in line and "1M with [1m]" in line for line in lines)
    assert not any("claude-sonnet-4-5" in line for line in lines)


async def test_a_request_carries_adaptive_thinking_effort_and_the_beta(tmp_path: Path) -> None:
    work, home = tmp_path / "w", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (home / "settings.toml").write_text('[model]\neffort = "high"\n')

    def answer(index: int, body: Any) -> str:
        return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in reply(text("ok")))

    async with SSEServer(answer) as server:
        code, _, err = await run_agent_tui(server, work, home, "-p", "hi")
        assert code == 0, err.decode()
        code, _, err = await run_agent_tui(
            server, work, home, "-p", "hi", "--model", "claude-opus-4-6[1m]"
        )
        assert code == 0, err.decode()
        first, second = server.requests
    body = first.json
    assert body["model"] == "claude-sonnet-5-5" and body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": "high"} and body["max_tokens"] == 32000
    assert second.json["model"] == "claude-opus-4-6"
    assert "context-1m-2025-08-07" in second.headers.get("anthropic-beta", "")
