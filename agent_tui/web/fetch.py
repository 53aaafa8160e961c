"""The HTTP fetch behind WebFetch: one GET, under limits, to an address checked at connect time.

Every name is resolved once, by us; each address is checked with `urls.address_problem` and the
TCP connection is made to that very address (the TLS handshake still verifies the host name), so a
DNS answer that changes between check and connect (rebinding) cannot slip through. The peer address
of the response is checked once more as a guard against that pinning ever being bypassed.

Each fetch gets its own client and connection pool: concurrent fetches share nothing, so one stuck
server never holds up another fetch.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
import ssl
import time
from collections.abc import Collection, Iterable
from typing import Any

import httpcore
import httpx

from agent_tui.permissions.hosts import canonical_host, normalize_host
from agent_tui.web.fetch_types import (  # noqa: F401 (re-exported: the module's own names)
    ACCEPT,
    MAX_BYTES,
    MAX_REDIRECTS,
    PROXY_BLOCK_HEADERS,
    REDIRECT_STATUSES,
    USER_AGENT,
    FetchConfig,
    FetchError,
    FetchResult,
    OffHostRedirect,
    Resolver,
)
from agent_tui.web.urls import (
    METADATA_ADDRESSES,
    CheckedUrl,
    UrlRefused,
    address_problem,
    check_url,
    is_loopback_name,
)


async def system_resolve(host: str, port: int) -> list[str]:
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]).split("%")[0] for info in infos))


class AddressPolicy:
    """Resolves a host and returns only addresses WebFetch may connect to, or raises."""

    def __init__(self, explicit_hosts: Collection[str], resolver: Resolver | None, timeout: float):
        self._explicit = frozenset(canonical_host(h) for h in explicit_hosts)
        self._resolver = resolver or system_resolve
        self._timeout = timeout

    def is_explicit(self, host: str) -> bool:
        return canonical_host(host) in self._explicit

    async def resolve(self, host: str, port: int) -> list[str]:
        if is_loopback_name(host):
            # RFC 6761: never ask DNS about localhost names, they are loopback by definition.
            addresses = ["127.0.0.1", "::1"]
        else:
            try:
                async with asyncio.timeout(self._timeout):
                    addresses = await self._resolver(host, port)
            except TimeoutError:
                raise FetchError("dns", f"DNS lookup for {host} timed out.") from None
            except OSError as exc:
                raise FetchError("dns", f"DNS failure: could not resolve {host} ({exc}).") from None
            if not addresses:
                raise FetchError("dns", f"DNS failure: {host} has no addresses.")
        for address in addresses:
            self.check(host, address)
        return addresses

    def check(self, host: str, address: str) -> None:
        try:
            ip = ipaddress.ip_address(address.split("%")[0])
        except ValueError:
            raise FetchError("refused", f"{host} resolved to an invalid address.") from None
        if canonical_host(str(ip)) in self._explicit:
            return  # the person named this very address
        if self.is_explicit(host) and ip not in METADATA_ADDRESSES:
            return  # the person named this host; a metadata address must be named itself
        problem = address_problem(ip)
        if problem:
            raise FetchError(
                "refused",
                f"Refused: {host} resolves to {ip}, {problem}. WebFetch does not fetch from "
                "local, private or metadata addresses.",
            )


class _PinnedBackend(httpcore.AsyncNetworkBackend):
    """Connects to the addresses `AddressPolicy` approved, never to a fresh DNS answer."""

    def __init__(self, policy: AddressPolicy) -> None:
        self._policy = policy
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await self._policy.resolve(host, port)
        error: Exception | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
        assert error is not None
        raise error

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are not used by WebFetch")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    # Loading the CA bundle takes tens of milliseconds; one context serves every fetch.
    return httpx.create_ssl_context(trust_env=False)


class _PinnedTransport(httpx.AsyncHTTPTransport):
    def __init__(self, policy: AddressPolicy) -> None:
        super().__init__(verify=_ssl_context(), http1=True, http2=False, trust_env=False)
        # httpx has no public hook for the network backend; swap the pool it built for one that
        # uses ours. If a future httpx renames `_pool`, fail loudly rather than connect unpinned.
        if not isinstance(getattr(self, "_pool", None), httpcore.AsyncConnectionPool):
            raise RuntimeError("httpx transport layout changed; cannot pin connections")
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=_ssl_context(),
            network_backend=_PinnedBackend(policy),
            max_connections=4,
        )


def redirect_problem(current: httpx.URL, target: httpx.URL) -> str | None:
    """None if a redirect stays on the same site (host with or without `www.`, same port)."""
    if target.scheme not in ("http", "https"):
        return "other"
    if current.scheme == "https" and target.scheme == "http":
        return "downgrade"

    def site(url: httpx.URL) -> str:
        host = normalize_host(url.raw_host.decode("ascii", "replace"))
        return host.removeprefix("www.")

    def port(url: httpx.URL) -> int | None:
        return url.port  # httpx drops the scheme's default port, so None means "default"

    if site(current) != site(target) or port(current) != port(target):
        return "other"
    return None


async def fetch(
    checked: CheckedUrl, explicit_hosts: Collection[str], config: FetchConfig | None = None
) -> FetchResult | OffHostRedirect:
    """GET `checked.url`, following same-site redirects; raise `FetchError` on any failure."""
    config = config or FetchConfig()
    try:
        async with asyncio.timeout(config.deadline):
            return await _fetch(checked, explicit_hosts, config)
    except TimeoutError:
        raise FetchError(
            "timeout", f"Timed out: the fetch did not finish within {config.deadline:g}s."
        ) from None


async def _fetch(
    checked: CheckedUrl, explicit_hosts: Collection[str], config: FetchConfig
) -> FetchResult | OffHostRedirect:
    policy = AddressPolicy(explicit_hosts, config.resolver, config.connect_timeout)
    timeout = httpx.Timeout(
        connect=config.connect_timeout,
        read=config.read_timeout,
        write=config.read_timeout,
        pool=config.connect_timeout,
    )
    headers = {"user-agent": config.user_agent, "accept": ACCEPT}
    started = time.monotonic()
    url = httpx.URL(checked.url)
    redirects: list[str] = []
    async with httpx.AsyncClient(
        transport=_PinnedTransport(policy),
        timeout=timeout,
        follow_redirects=False,
        trust_env=False,
        headers=headers,
    ) as client:
        while True:
            try:
                async with client.stream("GET", url) as response:
                    peer = _check_peer(response, url, policy)
                    location = response.headers.get("location")
                    if response.status_code in REDIRECT_STATUSES and location:
                        next_url = _next_hop(url, location, response.status_code, explicit_hosts)
                        if isinstance(next_url, OffHostRedirect):
                            return next_url
                        redirects.append(str(url))
                        if len(redirects) > config.max_redirects:
                            raise FetchError(
                                "redirect",
                                f"Too many redirects (more than {config.max_redirects}); "
                                f"last target: {next_url}",
                            )
                        url = next_url
                        continue
                    _check_status(response)
                    body = await _read_capped(response, config.max_bytes)
                    return FetchResult(
                        url=str(url),
                        requested_url=checked.url,
                        status=response.status_code,
                        reason=response.reason_phrase,
                        headers=response.headers,
                        body=body,
                        elapsed=time.monotonic() - started,
                        redirects=redirects,
                        peer=peer,
                    )
            except httpx.HTTPError as exc:
                raise _classify(exc, url, config) from None


def _next_hop(
    url: httpx.URL, location: str, status: int, explicit_hosts: Collection[str]
) -> httpx.URL | OffHostRedirect:
    try:
        target = url.join(location)
    except (httpx.InvalidURL, ValueError):
        raise FetchError(
            "redirect", f"The server redirected to an invalid URL: {location!r}"
        ) from None
    problem = redirect_problem(url, target)
    if problem == "downgrade":
        raise FetchError(
            "redirect",
            f"Refused: {url} redirects to {target}, from https to insecure http.",
        )
    if problem == "other":
        return OffHostRedirect(url=str(url), target=str(target), status=status)
    try:
        checked = check_url(str(target), explicit_hosts)
    except UrlRefused as exc:
        raise FetchError("refused", f"Refused redirect to {target}: {exc}") from None
    return httpx.URL(checked.url)


def _check_peer(response: httpx.Response, url: httpx.URL, policy: AddressPolicy) -> str | None:
    stream = response.extensions.get("network_stream")
    addr = stream.get_extra_info("server_addr") if stream is not None else None
    if not addr:
        return None
    peer = str(addr[0])
    policy.check(url.raw_host.decode("ascii"), peer)
    return peer


def _check_status(response: httpx.Response) -> None:
    status = response.status_code
    if status < 400:
        return
    if status == 403 and any(h in response.headers for h in PROXY_BLOCK_HEADERS):
        detail = next(response.headers[h] for h in PROXY_BLOCK_HEADERS if h in response.headers)
        raise FetchError(
            "blocked",
            f"Blocked by network policy: a proxy refused access to {response.url.host} "
            f"(403, {detail}).",
            status=status,
        )
    message = f"HTTP {status} {response.reason_phrase} from {response.url}"
    host = (response.url.host or "").lower()
    github = host in GITHUB_HOSTS or host.endswith(".github.com")
    if status in (401, 403):
        message += (
            ": the page needs a login, and WebFetch cannot sign in. Use a tool with "
            "authenticated access (an MCP tool) if there is one"
        )
        message += "; for GitHub, the gh CLI through Bash." if github else "."
    elif status == 404 and github:
        # GitHub answers 404, not 401, to anyone not signed in who asks for a private repository.
        message += (
            " (a private GitHub repository looks like this to anyone not signed in: use the gh "
            "CLI through Bash, e.g. gh repo view, gh api)."
        )
    raise FetchError("http_status", message, status=status)


#: GitHub's hosts, for the hint to use `gh` where WebFetch can't sign in
GITHUB_HOSTS = frozenset(
    {
        "github.com",
        "raw.githubusercontent.com",
        "gist.githubusercontent.com",
        "githubusercontent.com",
    }
)


async def _read_capped(response: httpx.Response, max_bytes: int) -> bytes:
    too_large = f"Too large: the response is over the {max_bytes:,}-byte limit; download aborted."
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise FetchError("too_large", too_large)
    body = bytearray()
    # Decoded bytes are counted, so a small compressed body cannot expand past the cap either.
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > max_bytes:
            raise FetchError("too_large", too_large)
    return bytes(body)


def _classify(exc: httpx.HTTPError, url: httpx.URL, config: FetchConfig) -> FetchError:
    host = url.host
    if isinstance(exc, httpx.ConnectTimeout):
        return FetchError(
            "timeout", f"Timed out connecting to {host} (after {config.connect_timeout:g}s)."
        )
    if isinstance(exc, httpx.TimeoutException):
        return FetchError(
            "timeout",
            f"Timed out: {host} sent nothing for {config.read_timeout:g}s.",
        )
    causes = list(_chain(exc))
    if any(isinstance(c, ssl.SSLError) for c in causes) or "SSL" in str(exc):
        return FetchError("tls", f"TLS error talking to {host}: {exc}")
    if any(isinstance(c, ConnectionRefusedError) for c in causes) or "refused" in str(exc).lower():
        where = f"{host}:{url.port}" if url.port else host
        return FetchError("connection_refused", f"Connection refused by {where}.")
    if isinstance(exc, httpx.ConnectError):
        return FetchError("connection", f"Could not connect to {host}: {exc}")
    if isinstance(exc, httpx.DecodingError):
        return FetchError("protocol", f"Could not decode the response from {host}: {exc}")
    if isinstance(exc, httpx.RemoteProtocolError):
        return FetchError("protocol", f"{host} closed the connection or sent a bad response: {exc}")
    return FetchError("network", f"Network error fetching {url}: {exc}")


def _chain(exc: BaseException) -> Iterable[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__
