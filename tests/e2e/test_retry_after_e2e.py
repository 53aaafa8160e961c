"""A 429/529 whose `retry-after` asks for a day: the CLI stops at once and says when to retry (the
SDK's own retries are off, so nothing waits inside it either); a short wait is still retried."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from sse_server import SSEServer, run_agent_tui, sse_fixture

from agent_tui.agent.config import AgentConfig
from agent_tui.agent.retries import gave_up, try_again_at
from agent_tui.providers.anthropic import retry_after_seconds

RATE_LIMITED = json.dumps(
    {"type": "error", "error": {"type": "rate_limit_error", "message": "Too many requests."}}
)


@pytest.mark.parametrize("status", [429, 529])
async def test_a_day_long_retry_after_stops_at_once(tmp_path: Path, status: int) -> None:
    day = (status, {"retry-after": "86400"}, RATE_LIMITED)
    async with SSEServer(lambda n, body: day) as server:
        # (run_agent_tui gives up after 120 s: a run that waited would fail there)
        code, _out, err = await run_agent_tui(server, tmp_path, tmp_path / "home", "-p", "hi")
    stderr = err.decode()
    assert code == 1, stderr
    assert "asks to wait 24.0 h" in stderr and "try again after" in stderr
    assert "Traceback" not in stderr
    assert len(server.requests) == 1  # neither the SDK nor the loop sent it again


async def test_a_short_retry_after_is_waited_for(tmp_path: Path) -> None:
    def answer(n: int, body: object) -> object:
        if n == 0:
            return (429, {"retry-after-ms": "50"}, RATE_LIMITED)
        return sse_fixture("text_only.sse")

    async with SSEServer(answer) as server:
        code, out, err = await run_agent_tui(server, tmp_path, tmp_path / "home", "-p", "hi")
    assert code == 0, err.decode()
    assert "A git rebase" in out.decode()
    assert len(server.requests) == 2


def test_retry_after_forms() -> None:
    assert retry_after_seconds({"retry-after": "86400"}) == 86400
    assert retry_after_seconds({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    future = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 3600))
    assert 3500 < (retry_after_seconds({"retry-after": future}) or 0) <= 3600
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None


def test_the_stop_says_when() -> None:
    now = time.mktime((2026, 12, 4, 18, 0, 0, 0, 0, -1))
    assert try_again_at(600, now) == time.strftime("%H:%M %Z", time.localtime(now + 600))
    assert try_again_at(86400, now).startswith("2026-12-05 18:00")
    text = gave_up("Rate limited.", 86400, AgentConfig(model="m"))
    assert text.startswith("Rate limited. The API asks to wait 24.0 h")
