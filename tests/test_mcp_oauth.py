"""MCP over HTTP with OAuth 2.1 against a loopback authorization server + MCP server the tests
start (tests/fixtures/mcp/oauth_server.py, on the SDK): a server answering 401 is "needs login"
and no browser opens unasked; a login discovers the metadata, registers the client, sends the
browser (here `$BROWSER`, a script that follows the redirects) to the authorization endpoint with
a PKCE challenge and takes the code at the loopback redirect; the tokens are kept 0600 in a
0700 folder outside the project and refreshed once expired, after a restart too; logout forgets
them; and a recorded headless session that calls the server's tool holds no token anywhere in
the store or the logs."""

from __future__ import annotations

import asyncio
import json
import socket
import stat
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.mcp_servers.config import ServerConfig
from agent_tui.mcp_servers.manager import McpManager
from agent_tui.mcp_servers.tool import McpTool

SERVER = Path(__file__).parent / "fixtures" / "mcp" / "oauth_server.py"
FOLLOW = "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=30).read()"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def start_server(tmp_path: Path, expires_in: int) -> tuple[subprocess.Popen[bytes], str, Path]:
    port, log = free_port(), tmp_path / f"as-{expires_in}.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), str(port), str(log), str(expires_in)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(f"{base}/.well-known/oauth-authorization-server", timeout=1)
            break
        except OSError:
            time.sleep(0.05)
    return proc, f"{base}/mcp", log


@pytest.fixture
def oauth(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    script = tmp_path / "browser.py"
    script.write_text(FOLLOW)
    monkeypatch.setenv("BROWSER", f"{sys.executable} {script} %s")
    proc, url, log = start_server(tmp_path, expires_in=3600)
    yield url, log
    proc.terminate()
    proc.wait(10)


def manager(data: Path, url: str) -> tuple[McpManager, list[McpTool], list[str]]:
    """A manager whose data dir (where tokens are kept) is `data`."""
    tools: list[McpTool] = []
    said: list[str] = []
    config = ServerConfig("secure", "http", url=url, source="user")
    made = McpManager(
        [config], data, data / "mcp.log", tools.append, lambda n, why: said.append(why)
    )
    return made, tools, said


async def until(check: Any, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def log_in(data: Path, url: str) -> tuple[McpManager, list[McpTool]]:
    m, tools, said = manager(data, url)
    m.start()
    await m.wait_started()
    status = m.status["secure"]
    assert status.state == "needs login" and "log in" in status.error and tools == []
    assert said == [status.error]  # said once
    assert await m.login("secure")
    await until(lambda: status.state in ("connected", "failed"))
    assert status.state == "connected", status.error
    return m, tools


async def test_login_discovers_registers_and_keeps_the_token_private(
    tmp_path: Path, oauth: tuple[str, Path]
) -> None:
    url, log = oauth
    m, tools = await log_in(tmp_path / "data", url)
    try:
        events = [e["event"] for e in server_log(log)]
        assert events[:3] == ["register", "authorize", "token"]  # DCR, PKCE'd authorize, code
        assert [t.name for t in tools] == ["mcp__secure__whoami"]
        result = await m.call("secure", "whoami", {})
        assert "an authorised agent-tui" in str(result.content)
        tokens = m.tokens(m.status["secure"].config)
        assert stat.S_IMODE(tokens.path.stat().st_mode) == 0o600
        assert stat.S_IMODE(tokens.folder.stat().st_mode) == 0o700
        assert tokens.path.is_relative_to(tmp_path / "data")  # the data dir, not the project
        access = server_log(log)[2]["access"]
        assert access in tokens.path.read_text()
        assert await m.logout("secure")
        assert not tokens.path.exists() and m.status["secure"].state == "needs login"
    finally:
        await m.stop()


async def test_an_expired_token_is_refreshed_after_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "browser.py"
    script.write_text(FOLLOW)
    monkeypatch.setenv("BROWSER", f"{sys.executable} {script} %s")
    proc, url, log = start_server(tmp_path, expires_in=1)
    try:
        first, _tools = await log_in(tmp_path / "data", url)
        await first.stop()
        await asyncio.sleep(1.5)  # the access token has expired
        again, tools, said = manager(tmp_path / "data", url)
        again.start()
        await again.wait_started()
        assert again.status["secure"].state == "connected", again.status["secure"].error
        assert [e.get("grant") for e in server_log(log) if e["event"] == "token"] == [
            "code",
            "refresh",
        ]
        assert said == [] and tools
        await again.stop()
    finally:
        proc.terminate()
        proc.wait(10)


async def test_no_token_reaches_the_session_store_or_a_log(
    tmp_path: Path, oauth: tuple[str, Path]
) -> None:
    from scripted_calls import calls_then_done, setup
    from sse_server import SSEServer, run_agent_tui

    url, log = oauth
    work, home = setup(tmp_path)
    m, _tools = await log_in(home, url)  # AGENT_TUI_HOME is the CLI's data dir
    await m.stop()
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"secure": {"url": url}}}))
    responder = calls_then_done(("mcp__secure__whoami", {}))
    async with SSEServer(responder) as api:
        code, out, err = await run_agent_tui(
            api, work, home, "-p", "who am I?", "--allow", "mcp__secure",
            "--output-format", "stream-json",
        )  # fmt: skip
        assert code == 0, err.decode()
        sent = json.dumps([r.json for r in api.requests])
    assert "an authorised agent-tui" in sent
    secrets = {v for e in server_log(log) for k, v in e.items() if k in ("access", "refresh")}
    assert secrets
    for path in home.rglob("*"):
        if path.is_file() and "mcp-oauth" not in path.parts:
            data = path.read_bytes()
            assert not any(s.encode() in data for s in secrets), path
    assert not any(s in out.decode() + err.decode() + sent for s in secrets)
    assert any(home.rglob("*.db"))  # the session was recorded
