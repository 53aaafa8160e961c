"""WebFetch's domain preflight against the loopback API: the real SDK asks
`GET /api/web/domain_info?domain=` on the session's base URL before a domain's first fetch."""

from __future__ import annotations

from pathlib import Path

import pytest
from sse_server import SSEServer, domain_answer, use_loopback_api
from web_helpers import FakeProvider, Server, make_ctx, static

from agent_tui.providers.anthropic import AnthropicProvider
from agent_tui.providers.offline import OfflineProvider
from agent_tui.runtime import make_tools
from agent_tui.tools.builtin.web_fetch import WebFetchInput, WebFetchTool
from agent_tui.web.preflight import DomainPreflight

PAGE = b"<html><head><title>Notes</title></head><body><p>Release notes.</p></body></html>"


def never_called(index: int, body: object) -> str:
    raise AssertionError("no Messages request was expected")


async def fetch(tool: WebFetchTool, url: str, provider: object, tmp_path: Path):
    ctx, _ = make_ctx(tmp_path, provider=provider)
    # No extraction model: the page comes back as it is, so only the preflight reaches the API.
    ctx.small_model = ""
    return await tool.run(WebFetchInput(url=url, prompt="What is new?"), ctx)


async def test_a_domain_is_checked_once_through_the_session_client(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.route("/a", static(200, PAGE, {"content-type": "text/html"}))
    server.route("/b", static(200, PAGE, {"content-type": "text/html"}))
    async with SSEServer(never_called) as api:
        use_loopback_api(monkeypatch, api.url)
        provider, tool = AnthropicProvider(), WebFetchTool()
        first = await fetch(tool, server.url("/a"), provider, tmp_path)
        second = await fetch(tool, server.url("/b"), provider, tmp_path)

    assert not first.is_error and not second.is_error, (first.content, second.content)
    assert "Release notes." in first.content
    assert api.domain_checks == ["127.0.0.1"]  # the second page on the domain asks nothing
    # The session's own client: its credentials and API version headers.
    headers = api.domain_check_headers[0]
    assert "test-key" in (headers.get("x-api-key") or headers.get("authorization") or "")
    assert "anthropic-version" in headers
    assert api.requests == []
    assert tool.preflight.known("127.0.0.1") is True


async def test_a_blocked_domain_is_never_fetched(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.route("/a", static(200, PAGE, {"content-type": "text/html"}))
    async with SSEServer(never_called, domain_info=lambda d: domain_answer(False)) as api:
        use_loopback_api(monkeypatch, api.url)
        provider, tool = AnthropicProvider(), WebFetchTool()
        outs = [await fetch(tool, server.url("/a"), provider, tmp_path) for _ in range(2)]

    for out in outs:
        assert out.is_error and out.meta["error"] == "domain_blocked"
        assert "127.0.0.1" in out.content and "blocked" in out.content
    assert server.hits("/a") == 0
    assert api.domain_checks == ["127.0.0.1"]  # the answer is kept for the session


@pytest.mark.parametrize(
    "reply",
    [
        (502, {"content-type": "text/html"}, "<html>Bad gateway</html>"),
        (403, {}, '{"type": "error", "error": {"type": "permission_error", "message": "no"}}'),
        # A corporate proxy's login page, with a 200.
        (200, {"content-type": "text/html"}, "<html><body>Sign in to the proxy</body></html>"),
        (200, {}, '{"domain": "127.0.0.1"}'),
    ],
    ids=["bad-gateway", "forbidden", "proxy-page", "no-answer"],
)
async def test_a_failed_check_has_its_own_error_and_is_asked_again(
    reply: tuple[int, dict[str, str], str],
    server: Server,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server.route("/a", static(200, PAGE, {"content-type": "text/html"}))
    async with SSEServer(never_called, domain_info=lambda d: reply) as api:
        use_loopback_api(monkeypatch, api.url)
        provider, tool = AnthropicProvider(), WebFetchTool()
        outs = [await fetch(tool, server.url("/a"), provider, tmp_path) for _ in range(2)]

    for out in outs:
        assert out.is_error and out.meta["error"] == "domain_check_failed"
        assert "Could not check whether 127.0.0.1 may be fetched" in out.content
        assert "skip_web_fetch_preflight = true under [web]" in out.content
        assert "blocked" not in out.content.split("(")[0]
    assert server.hits("/a") == 0
    assert api.domain_checks == ["127.0.0.1", "127.0.0.1"]  # a failure is not kept


async def test_an_unreachable_api_is_a_failed_check(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with SSEServer(never_called) as api:
        closed = api.url  # nothing listens there once the server is gone
    use_loopback_api(monkeypatch, closed)
    out = await fetch(WebFetchTool(), server.url("/a"), AnthropicProvider(), tmp_path)

    assert out.is_error and out.meta["error"] == "domain_check_failed"
    assert closed in out.content
    assert server.hits("/a") == 0


async def test_the_setting_skips_the_check(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.route("/a", static(200, PAGE, {"content-type": "text/html"}))
    async with SSEServer(never_called, domain_info=lambda d: domain_answer(False)) as api:
        use_loopback_api(monkeypatch, api.url)
        tool = WebFetchTool(preflight=DomainPreflight(skip=True))
        out = await fetch(tool, server.url("/a"), AnthropicProvider(), tmp_path)

    assert not out.is_error, out.content
    assert api.domain_checks == []


def _web_fetch(provider: object) -> WebFetchTool:
    tool = make_tools(provider, "claude-sonnet-4-5").get("WebFetch")  # type: ignore[arg-type]
    assert isinstance(tool, WebFetchTool)
    return tool


def test_the_setting_is_read_from_the_users_settings_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("AGENT_TUI_HOME", str(home))
    provider = OfflineProvider(delay_scale=0)
    assert _web_fetch(provider).preflight.skip is False
    # A project's settings can't turn the check off.
    project = tmp_path / "project" / ".agent-tui"
    project.mkdir(parents=True)
    (project / "settings.toml").write_text("[web]\nskip_web_fetch_preflight = true\n")
    monkeypatch.chdir(project.parent)
    assert _web_fetch(provider).preflight.skip is False
    (home / "settings.toml").write_text("[web]\nskip_web_fetch_preflight = true\n")
    assert _web_fetch(provider).preflight.skip is True


async def test_providers_without_the_check_are_not_asked(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.route("/a", static(200, PAGE, {"content-type": "text/html"}))
    preflight = DomainPreflight()
    # The offline model and a stand-in provider have no check; nor have Bedrock, Vertex and
    # Foundry (Claude Code asks only the first-party API).
    assert await preflight.check("example.com", OfflineProvider(delay_scale=0)) is None
    assert await preflight.check("example.com", FakeProvider()) is None
    async with SSEServer(never_called, domain_info=lambda d: domain_answer(False)) as api:
        use_loopback_api(monkeypatch, api.url)
        bedrock = AnthropicProvider()
        bedrock.name = "bedrock"
        assert await bedrock.domain_info("example.com") is None
        out = await fetch(WebFetchTool(), server.url("/a"), bedrock, tmp_path)
    assert not out.is_error, out.content
    assert api.domain_checks == []
    assert preflight.known("example.com") is None


async def test_fetches_that_start_together_share_one_check() -> None:
    import asyncio

    asked: list[str] = []
    release = asyncio.Event()

    class Slow:
        async def domain_info(self, domain: str) -> bool:
            asked.append(domain)
            await release.wait()
            return True

    preflight = DomainPreflight()
    checks = [asyncio.ensure_future(preflight.check("Example.com", Slow())) for _ in range(3)]
    await asyncio.sleep(0)
    checks[0].cancel()  # one fetch given up: the others still get their answer
    release.set()
    assert await asyncio.gather(*checks[1:]) == [None, None]
    assert asked == ["example.com"] and preflight.known("example.com") is True


async def test_an_answer_is_kept_five_minutes_then_asked_again() -> None:
    from agent_tui.web.preflight import ANSWER_KEPT_S

    answers = [True, False]
    asked: list[str] = []

    class Api:
        async def domain_info(self, domain: str) -> bool:
            asked.append(domain)
            return answers[len(asked) - 1]

    now = [1000.0]
    preflight = DomainPreflight(clock=lambda: now[0])
    assert ANSWER_KEPT_S == 300.0  # Claude Code's
    assert await preflight.check("docs.example.com", Api()) is None
    now[0] += 299
    assert await preflight.check("docs.example.com", Api()) is None and len(asked) == 1
    now[0] += 2  # five minutes on: a domain blocked since is refused
    refused = await preflight.check("docs.example.com", Api())
    assert refused is not None and refused.kind == "domain_blocked" and len(asked) == 2
