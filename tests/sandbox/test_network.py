"""The sandbox's network: nothing but the app's proxy; a host the person named is reached through
it (both bridges), a new host asks once per command, "always" saves a rule, and the SSRF guard
holds for a host allowed only by the project."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from bwrap_support import needs_bwrap

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.permissions.rules import parse_rule
from agent_tui.permissions.settings import SourcedRule
from agent_tui.sandbox.bwrap import BwrapBackend
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.runner import Sandbox
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.bash import BashInput, BashTool

pytestmark = needs_bwrap


async def serve_page() -> tuple[asyncio.AbstractServer, int, list[bytes]]:
    hits: list[bytes] = []

    async def page(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        hits.append(await reader.readline())
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 6\r\nconnection: close\r\n\r\nhello\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(page, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], hits


def make(tmp_path: Path, rules: list[tuple[str, str, str]], bridge: str = "perl") -> Sandbox:
    cwd = tmp_path / "p"
    cwd.mkdir(exist_ok=True)
    engine = PermissionEngine(
        cwd,
        [SourcedRule(parse_rule(t), b, s) for b, t, s in rules],  # type: ignore[arg-type]
    )
    backend = BwrapBackend(bridge=bridge)
    return Sandbox(SandboxConfig(mode="on"), cwd, engine, data_dir=tmp_path / "d", backend=backend)


async def run(sandbox: Sandbox, command: str, asked: list[str] | None = None, answer=False):  # type: ignore[no-untyped-def]
    async def ask(host: str, port: int) -> bool:
        if asked is not None:
            asked.append(host)
        return answer

    ctx = ToolContext(cwd=sandbox.cwd, data_dir=sandbox.cwd, sandbox=sandbox, ask_host=ask)
    try:
        return await BashTool().run(BashInput(command=command), ctx)
    finally:
        sandbox.close()


@pytest.mark.parametrize("bridge", ["perl", "python"])
async def test_a_host_the_person_named_is_reached_through_the_proxy(
    tmp_path: Path, bridge: str
) -> None:
    server, port, hits = await serve_page()
    sandbox = make(tmp_path, [("allow", "WebFetch(domain:127.0.0.1)", "user")], bridge)
    try:
        out = await run(sandbox, f"curl -sf http://127.0.0.1:{port}/x")
    finally:
        server.close()
    assert "hello" in out.content and hits == [b"GET /x HTTP/1.1\r\n"]


async def test_a_direct_connection_never_leaves_the_sandbox(tmp_path: Path) -> None:
    server, port, hits = await serve_page()
    sandbox = make(tmp_path, [("allow", "WebFetch(domain:127.0.0.1)", "user")])
    try:
        out = await run(sandbox, f"curl -sSf --noproxy '*' http://127.0.0.1:{port}/ && echo IN")
    finally:
        server.close()
    assert hits == [] and "IN" not in out.content
    assert "network to 127.0.0.1 refused" in out.content


async def test_a_new_host_asks_once_and_no_refuses(tmp_path: Path) -> None:
    asked: list[str] = []
    sandbox = make(tmp_path, [])
    command = "for i in 1 2 3; do curl -s -o /dev/null https://docs.example.com/; done"
    out = await run(sandbox, command, asked)
    assert asked == ["docs.example.com"]
    assert "network to docs.example.com refused (you said no)" in out.content


async def test_the_project_cannot_open_loopback(tmp_path: Path) -> None:
    server, port, hits = await serve_page()
    sandbox = make(tmp_path, [("allow", "WebFetch(domain:127.0.0.1)", "project")])
    try:
        out = await run(sandbox, f"curl -sSf http://127.0.0.1:{port}/")
    finally:
        server.close()
    # loopback inside is the sandbox's own (a background shell's server): nothing there
    assert hits == [] and "network to 127.0.0.1 refused" in out.content


async def test_deny_rules_win_over_allowed_domains(tmp_path: Path) -> None:
    asked: list[str] = []
    sandbox = make(tmp_path, [("deny", "WebFetch(domain:evil.example)", "user")])
    out = await run(sandbox, "curl -s https://evil.example/", asked)
    assert asked == [] and "network to evil.example refused (deny rule" in out.content


async def test_always_saves_a_webfetch_rule(tmp_path: Path) -> None:
    from agent_tui.agent.approvals import Approvals
    from agent_tui.permissions.types import ApprovalAnswer

    engine = PermissionEngine(tmp_path)
    seen = []

    async def ask(request):  # type: ignore[no-untyped-def]
        seen.append(request)
        return ApprovalAnswer("always")

    events: list[object] = []
    approvals = Approvals(engine, ask, events.append, cwd=tmp_path)
    assert await approvals.ask_host("t1", "Bash", "pypi.org", 443)
    [request] = seen
    assert request.decision.risk == "Bash wants to reach pypi.org"
    assert request.decision.suggestions == ("WebFetch(domain:pypi.org)",)
    assert "WebFetch(domain:pypi.org)" in engine.local_settings.read_text()
