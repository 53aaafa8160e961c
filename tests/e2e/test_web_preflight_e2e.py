"""WebFetch's domain preflight through the CLI at the loopback API: a blocked domain is never
fetched and the model hears why; the user setting turns the check off."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from conversation_rules import reply, text, tool_use
from sse_server import SSEServer, domain_answer, run_agent_tui


def to_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


@pytest.mark.parametrize("skip", [False, True], ids=["checked", "skipped"])
async def test_a_blocked_domain_through_the_cli(tmp_path: Path, skip: bool) -> None:
    hits: list[bytes] = []

    async def page(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        hits.append(await reader.readline())
        body = b"<html><body><p>The release notes.</p></body></html>"
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nconnection: close\r\n"
            + f"content-length: {len(body)}\r\n\r\n".encode()
            + body
        )
        await writer.drain()
        writer.close()

    pages = await asyncio.start_server(page, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{pages.sockets[0].getsockname()[1]}/notes"

    def model(index: int, body: Any) -> str:
        if not body.get("tools"):  # WebFetch's extraction sub-request
            return to_sse(reply(text("The notes say: release notes.")))
        if len(body["messages"]) == 1:
            call = tool_use("toolu_f", "WebFetch", {"url": url, "prompt": "What is new?"})
            return to_sse(reply(call, stop_reason="tool_use"))
        return to_sse(reply(text("Done.")))

    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    if skip:
        (home / "settings.toml").write_text("[web]\nskip_web_fetch_preflight = true\n")
    try:
        async with SSEServer(model, domain_info=lambda d: domain_answer(False)) as api:
            code, _out, err = await run_agent_tui(
                api, work, home, "-p", "Read the notes", "--allow", "WebFetch(domain:127.0.0.1)"
            )
            bodies = [r.json for r in api.requests if r.json.get("tools")]
    finally:
        pages.close()
    assert code == 0, err.decode()
    result = next(
        b for b in bodies[-1]["messages"][-1]["content"] if b.get("type") == "tool_result"
    )
    if skip:
        assert api.domain_checks == []
        assert len(hits) == 1 and not result.get("is_error")
        assert "release notes" in json.dumps(result)
    else:
        assert api.domain_checks == ["127.0.0.1"]
        assert hits == []  # never fetched
        assert result.get("is_error") is True
        assert "WebFetch may not fetch from 127.0.0.1" in json.dumps(result)
