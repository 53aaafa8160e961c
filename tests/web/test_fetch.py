"""The fetch against a loopback server: redirects, limits, timeouts, failure kinds, pinning."""

from __future__ import annotations

import asyncio
import contextlib
import socket

import httpx
import pytest
from web_helpers import Request, Server, make_ctx, static

from agent_tui.tools.builtin.web_fetch import WebFetchInput, WebFetchTool
from agent_tui.web.fetch import (
    AddressPolicy,
    FetchConfig,
    FetchError,
    FetchResult,
    OffHostRedirect,
    _PinnedBackend,
    fetch,
    redirect_problem,
)
from agent_tui.web.urls import CheckedUrl, check_url

LOOPBACK = frozenset({"127.0.0.1"})
HTML = {"content-type": "text/html; charset=utf-8"}


async def get(url: str, config: FetchConfig | None = None, explicit=LOOPBACK):
    return await fetch(check_url(url, explicit), explicit, config)


async def test_plain_get_with_user_agent_and_no_body(server: Server) -> None:
    server.route("/p", static(200, b"hello", {"content-type": "text/plain"}))
    result = await get(server.url("/p"))
    assert isinstance(result, FetchResult)
    assert (result.status, result.body) == (200, b"hello")
    (request,) = server.requests
    assert request.method == "GET"
    assert request.headers["user-agent"].startswith("agent-tui/")
    assert "content-length" not in request.headers
    assert result.peer == "127.0.0.1"


# --- redirects ------------------------------------------------------------------------------


async def test_same_host_redirect_is_followed(server: Server) -> None:
    server.route("/a", static(301, headers={"location": "/b"}))
    server.route("/b", static(302, headers={"location": server.url("/c")}))
    server.route("/c", static(200, b"final", {"content-type": "text/plain"}))
    result = await get(server.url("/a"))
    assert isinstance(result, FetchResult)
    assert result.url == server.url("/c")
    assert result.redirects == [server.url("/a"), server.url("/b")]
    assert result.body == b"final"


async def test_www_variant_redirect_is_followed(server: Server) -> None:
    explicit = frozenset({"localhost", "www.localhost"})
    target = f"http://www.localhost:{server.port}/p"
    server.route("/w", static(302, headers={"location": target}))
    server.route("/p", static(200, b"www page", {"content-type": "text/plain"}))
    result = await get(f"http://localhost:{server.port}/w", explicit=explicit)
    assert isinstance(result, FetchResult)
    assert result.url == target
    assert result.body == b"www page"


async def test_other_host_redirect_is_reported_not_followed(server: Server, tmp_path) -> None:
    server.route("/away", static(302, headers={"location": "https://elsewhere.example/doc"}))
    result = await get(server.url("/away"))
    assert result == OffHostRedirect(server.url("/away"), "https://elsewhere.example/doc", 302)

    ctx, _ = make_ctx(tmp_path)
    out = await WebFetchTool().run(WebFetchInput(url=server.url("/away"), prompt="x"), ctx)
    assert not out.is_error
    assert "https://elsewhere.example/doc" in out.content
    assert "call WebFetch again" in out.content
    assert server.hits("/away") == 2


async def test_redirect_to_other_port_counts_as_other_host(server: Server) -> None:
    server.route("/port", static(302, headers={"location": "http://127.0.0.1:1/x"}))
    result = await get(server.url("/port"))
    assert isinstance(result, OffHostRedirect)
    assert result.target == "http://127.0.0.1:1/x"


async def test_too_many_redirects(server: Server) -> None:
    async def loop(request: Request, writer: asyncio.StreamWriter) -> None:
        n = int(request.path.split("=")[1])
        writer.write(static_bytes(302, {"location": f"/loop?n={n + 1}"}))

    server.route("/loop", loop)
    with pytest.raises(FetchError) as info:
        await get(server.url("/loop?n=0"))
    assert info.value.kind == "redirect"
    assert "Too many redirects" in info.value.message
    assert server.hits("/loop") == 11  # the first request and 10 followed redirects


def static_bytes(status: int, headers: dict[str, str]) -> bytes:
    from web_helpers import response_bytes

    return response_bytes(status, b"", headers)


@pytest.mark.parametrize(
    ("current", "target", "problem"),
    [
        ("https://example.com/a", "https://example.com/b", None),
        ("https://example.com/a", "https://www.example.com/b", None),
        ("https://www.example.com/a", "https://example.com/b", None),
        ("https://example.com/a", "http://example.com/b", "downgrade"),
        ("https://example.com/a", "http://www.example.com/b", "downgrade"),
        ("https://example.com/a", "https://evil.com/b", "other"),
        ("https://example.com/a", "https://sub.example.com/b", "other"),
        ("https://example.com/a", "https://example.com:8443/b", "other"),
        ("https://example.com/a", "https://example.com.evil.com/b", "other"),
        ("https://www.example.com/a", "https://www.www.example.com/", "other"),
        ("http://127.0.0.1:5/a", "http://127.0.0.1:5/b", None),
        ("https://example.com/a", "ftp://example.com/b", "other"),
    ],
)
def test_redirect_rules(current: str, target: str, problem: str | None) -> None:
    assert redirect_problem(httpx.URL(current), httpx.URL(target)) == problem


async def test_https_to_http_downgrade_is_refused(server: Server) -> None:
    from agent_tui.web.fetch import _next_hop

    with pytest.raises(FetchError) as info:
        _next_hop(httpx.URL("https://example.com/a"), "http://example.com/b", 301, frozenset())
    assert info.value.kind == "redirect"
    assert "insecure http" in info.value.message


async def test_same_host_redirect_to_refused_address_is_refused(server: Server) -> None:
    explicit = frozenset({"localhost"})
    # www.localhost is the www variant, but it is not a host the person allowed
    server.route("/w", static(302, headers={"location": f"http://www.localhost:{server.port}/"}))
    with pytest.raises(FetchError) as info:
        await get(f"http://localhost:{server.port}/w", explicit=explicit)
    assert info.value.kind == "refused"


# --- size cap -------------------------------------------------------------------------------


async def test_body_cap_aborts_a_streaming_download(server: Server) -> None:
    total = 64 * 1024 * 1024
    sent = 0
    finished = asyncio.Event()

    async def endless(request: Request, writer: asyncio.StreamWriter) -> None:
        nonlocal sent
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n")
        chunk = b"x" * 65536
        try:
            while sent < total:
                writer.write(chunk)
                await writer.drain()
                sent += len(chunk)
        except ConnectionError:
            pass
        finally:
            finished.set()

    server.route("/big", endless)
    with pytest.raises(FetchError) as info:
        await get(server.url("/big"), FetchConfig(max_bytes=256 * 1024))
    assert info.value.kind == "too_large"
    assert "download aborted" in info.value.message
    await asyncio.wait_for(finished.wait(), 30)
    assert sent < total  # the client hung up long before the server was done


async def test_declared_length_over_cap_is_refused_before_reading(server: Server) -> None:
    async def huge(request: Request, writer: asyncio.StreamWriter) -> None:
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 999999999\r\n\r\n"
        )
        await writer.drain()
        await asyncio.sleep(30)  # never sends the body: the client must not wait for it

    server.route("/huge", huge)
    with pytest.raises(FetchError) as info:
        await get(server.url("/huge"), FetchConfig(read_timeout=20, deadline=25))
    assert info.value.kind == "too_large"


# --- timeouts and failure kinds -------------------------------------------------------------


async def stall(request: Request, writer: asyncio.StreamWriter) -> None:
    await asyncio.sleep(60)


async def test_read_timeout_on_a_stalled_server(server: Server) -> None:
    server.route("/stall", stall)
    with pytest.raises(FetchError) as info:
        await get(server.url("/stall"), FetchConfig(read_timeout=0.3, deadline=30))
    assert info.value.kind == "timeout"
    assert "sent nothing" in info.value.message


async def test_overall_deadline_on_a_dripping_server(server: Server) -> None:
    async def drip(request: Request, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n")
        for _ in range(600):
            writer.write(b".")
            await writer.drain()
            await asyncio.sleep(0.05)

    server.route("/drip", drip)
    with pytest.raises(FetchError) as info:
        await get(server.url("/drip"), FetchConfig(read_timeout=10, deadline=0.5))
    assert info.value.kind == "timeout"
    assert "did not finish within" in info.value.message


async def test_parallel_fetches_are_independent(server: Server) -> None:
    server.route("/stall", stall)
    server.route("/fast", static(200, b"fast", {"content-type": "text/plain"}))
    slow = asyncio.create_task(get(server.url("/stall"), FetchConfig(read_timeout=60)))
    try:
        fast = await asyncio.wait_for(get(server.url("/fast")), 20)
        assert isinstance(fast, FetchResult) and fast.body == b"fast"
        assert not slow.done()
    finally:
        slow.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await slow


async def test_connection_refused() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(FetchError) as info:
        await get(f"http://127.0.0.1:{port}/")
    assert info.value.kind == "connection_refused"
    assert "refused" in info.value.message.lower()


async def test_tls_error() -> None:
    async def not_tls(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
        await writer.drain()
        writer.close()

    srv = await asyncio.start_server(not_tls, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]
    try:
        with pytest.raises(FetchError) as info:
            await get(f"https://127.0.0.1:{port}/", FetchConfig(read_timeout=10))
        assert info.value.kind == "tls"
        assert "TLS error" in info.value.message
    finally:
        srv.close()


async def test_dns_failure() -> None:
    async def no_such_host(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    with pytest.raises(FetchError) as info:
        await get("https://no-such-host.example/", FetchConfig(resolver=no_such_host))
    assert info.value.kind == "dns"
    assert "DNS failure" in info.value.message


async def test_http_status_error_carries_the_code(server: Server) -> None:
    server.route("/gone", static(404, b"nope"))
    with pytest.raises(FetchError) as info:
        await get(server.url("/gone"))
    assert (info.value.kind, info.value.status) == ("http_status", 404)
    assert "HTTP 404" in info.value.message


@pytest.mark.parametrize(
    "header",
    [
        {"x-proxy-error": "blocked-by-allowlist"},
        {"X-Squid-Error": "ERR_ACCESS_DENIED 0"},
        {"x-deny-reason": "host_not_allowed"},
    ],
)
async def test_proxy_block_is_reported_as_network_policy(server: Server, header) -> None:
    server.route("/blocked", static(403, b"denied", header))
    with pytest.raises(FetchError) as info:
        await get(server.url("/blocked"))
    assert info.value.kind == "blocked"
    assert "blocked by network policy" in info.value.message.lower()


async def test_plain_403_is_an_http_status(server: Server) -> None:
    server.route("/forbidden", static(403, b"no"))
    with pytest.raises(FetchError) as info:
        await get(server.url("/forbidden"))
    assert info.value.kind == "http_status"


# --- the address actually connected to ------------------------------------------------------


async def test_name_resolving_to_loopback_is_refused_without_connecting(server: Server) -> None:
    # The name passes the URL checks; only its DNS answer is internal (DNS rebinding).
    async def rebinding(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    checked = CheckedUrl(
        url=server.url("/p").replace("127.0.0.1", "rebind.example"),
        host="rebind.example",
        explicit=False,
    )
    with pytest.raises(FetchError) as info:
        await fetch(checked, frozenset(), FetchConfig(resolver=rebinding))
    assert info.value.kind == "refused"
    assert "rebind.example resolves to 127.0.0.1, a loopback address" in info.value.message
    assert server.requests == []


async def test_any_internal_address_in_the_answer_is_refused(server: Server) -> None:
    async def mixed(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "10.0.0.7"]

    policy = AddressPolicy(frozenset(), mixed, timeout=5)
    with pytest.raises(FetchError) as info:
        await policy.resolve("mixed.example", 443)
    assert "10.0.0.7" in info.value.message


async def test_connection_goes_to_the_checked_address(server: Server) -> None:
    calls: list[str] = []

    async def resolver(host: str, port: int) -> list[str]:
        calls.append(host)
        return ["127.0.0.1"]

    backend = _PinnedBackend(AddressPolicy(frozenset({"pinned.example"}), resolver, timeout=5))
    stream = await backend.connect_tcp("pinned.example", server.port, timeout=5)
    try:
        assert stream.get_extra_info("server_addr")[0] == "127.0.0.1"
    finally:
        await stream.aclose()
    assert calls == ["pinned.example"]  # resolved once, by us; the socket never saw the name


async def test_loopback_names_never_reach_the_resolver(server: Server) -> None:
    async def resolver(host: str, port: int) -> list[str]:
        raise AssertionError("localhost must not be looked up")

    policy = AddressPolicy(frozenset(), resolver, timeout=5)
    with pytest.raises(FetchError) as info:
        await policy.resolve("db.localhost", 80)
    assert "loopback" in info.value.message


# --- a named host never opens other internal addresses ------------------------------------------


async def _resolves_to(*addresses: str):  # type: ignore[no-untyped-def]
    async def resolver(host: str, port: int) -> list[str]:
        return list(addresses)

    return resolver


async def test_a_name_from_a_project_rule_resolving_to_loopback_is_refused() -> None:
    # `localtest.me` resolves to 127.0.0.1; a rule for it (not the person's own) lifts nothing.
    policy = AddressPolicy(frozenset(), await _resolves_to("127.0.0.1"), 1.0)
    with pytest.raises(FetchError, match="loopback"):
        await policy.resolve("localtest.me", 443)


async def test_a_named_host_may_reach_private_addresses_but_not_metadata() -> None:
    policy = AddressPolicy(frozenset({"nas.lan"}), await _resolves_to("192.168.1.5"), 1.0)
    assert await policy.resolve("nas.lan", 443) == ["192.168.1.5"]
    meta = AddressPolicy(
        frozenset({"metadata.google.internal"}), await _resolves_to("169.254.169.254"), 1.0
    )
    with pytest.raises(FetchError, match="metadata"):
        await meta.resolve("metadata.google.internal", 80)
    named_ip = AddressPolicy(
        frozenset({"169.254.169.254"}), await _resolves_to("169.254.169.254"), 1.0
    )
    assert await named_ip.resolve("169.254.169.254", 80) == ["169.254.169.254"]
