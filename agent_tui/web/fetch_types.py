"""What a fetch is configured with and returns, without the HTTP client: the WebFetch tool
imports these with the agent, and `web.fetch` (httpx, ~100 ms to import) with its first fetch."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent_tui import __version__

if TYPE_CHECKING:
    import httpx

#: resolve `(host, port)` to IP address strings
Resolver = Callable[[str, int], Awaitable[list[str]]]

MAX_BYTES = 10 * 1024 * 1024
MAX_REDIRECTS = 10
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Headers that egress proxies put on the 403 they send for a host outside their allowlist.
PROXY_BLOCK_HEADERS = ("x-proxy-error", "x-squid-error", "x-deny-reason", "x-blocked-reason")
USER_AGENT = f"agent-tui/{__version__} (WebFetch; read-only GET on behalf of a user)"
ACCEPT = "text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, text/plain;q=0.8, */*;q=0.5"


@dataclass(frozen=True, slots=True)
class FetchConfig:
    connect_timeout: float = 10.0
    #: longest wait for the next bytes of a response
    read_timeout: float = 30.0
    #: the whole fetch (DNS, connect, redirects, body) must finish within this
    deadline: float = 60.0
    max_bytes: int = MAX_BYTES
    max_redirects: int = MAX_REDIRECTS
    user_agent: str = USER_AGENT
    #: injectable for tests; the default asks the system resolver
    resolver: Resolver | None = None


@dataclass(slots=True)
class FetchResult:
    url: str
    requested_url: str
    status: int
    reason: str
    headers: httpx.Headers
    body: bytes
    elapsed: float
    redirects: list[str] = field(default_factory=list)
    peer: str | None = None

    @property
    def content_type(self) -> str:
        return str(self.headers.get("content-type", ""))


@dataclass(frozen=True, slots=True)
class OffHostRedirect:
    """A redirect WebFetch does not follow by itself: the model must ask for the target."""

    url: str
    target: str
    status: int


class FetchError(Exception):
    """A fetch failed; `kind` classifies it, the message says it in words."""

    def __init__(self, kind: str, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
