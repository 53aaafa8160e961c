"""A loopback HTTP server that answers every request with an SSE body, so tests can run the real
`anthropic` SDK against recorded streams.

    async with SSEServer(lambda n, body: sse_fixture("text_only.sse")) as server:
        use_loopback_api(monkeypatch, server.url)
        ...  # drive the SDK
        assert server.requests[0].json["model"] == "claude-sonnet-4-5"

The responder gets the request's 0-based index and its parsed JSON body (None when the body is not
JSON) and returns a `Reply`: the SSE text (str or bytes) for a 200 `text/event-stream`, a `Path` to
such a file, a `(status, headers, body)` tuple (e.g. a 529 with a JSON error body), or a `Response`
whose body may be an async iterator of chunks (sent with chunked encoding, one write per chunk, for
tests that need the stream to arrive in steps). It may be sync or async.

`GET /api/web/domain_info?domain=HOST` (WebFetch's domain preflight, as Claude Code asks it) is
answered apart from the responder and not counted in `requests`: each domain asked about is added
to `domain_checks`, and `domain_info(domain)` gives the reply (default: `{"can_fetch": true}`).

Only what the SDK needs of HTTP/1.1 is spoken: a request line, headers, a Content-Length body, and
keep-alive. A responder that raises is answered with a 500 and the error is re-raised on exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import os
import sys
from collections.abc import AsyncIterable, Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "sse"


def sse_fixture(name: str) -> str:
    """The text of `tests/fixtures/sse/NAME`."""
    return (FIXTURES / name).read_text(encoding="utf-8")


def use_loopback_api(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    """Point the SDK at `url` with a dummy key, on the first-party platform."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    for name in (
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
        "ANTHROPIC_FOUNDRY_RESOURCE",
        "AGENT_TUI_USE_BEDROCK",
        "AGENT_TUI_USE_VERTEX",
        "AGENT_TUI_USE_FOUNDRY",
    ):
        monkeypatch.delenv(name, raising=False)


@dataclass(slots=True)
class Request:
    index: int
    method: str
    path: str
    #: header names lower-cased
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None


@dataclass(slots=True)
class Response:
    body: str | bytes | AsyncIterable[bytes]
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


_REASONS = {529: "Overloaded"}

Reply = str | bytes | Path | tuple[int, dict[str, str], str | bytes] | Response
Responder = Callable[[int, Any], Reply | Awaitable[Reply]]
DomainInfo = Callable[[str], Reply]

DOMAIN_INFO_PATH = "/api/web/domain_info"


def domain_answer(can_fetch: bool) -> Reply:
    """The API's answer to a domain preflight."""
    return (200, {}, json.dumps({"can_fetch": can_fetch}))


def _as_response(reply: Reply) -> Response:
    if isinstance(reply, Response):
        return reply
    if isinstance(reply, tuple):
        status, headers, body = reply
        return Response(body, status, {"content-type": "application/json", **headers})
    if isinstance(reply, Path):
        reply = reply.read_bytes()
    return Response(reply)


class SSEServer:
    def __init__(
        self,
        responder: Responder,
        host: str = "127.0.0.1",
        *,
        domain_info: DomainInfo = lambda _domain: domain_answer(True),
        count_tokens: Callable[[Any], int] | None = None,
    ) -> None:
        self.responder = responder
        #: `/v1/messages/count_tokens` answers `{"input_tokens": count_tokens(body)}`; without
        #: it, a 404 (a server that can't count); either way it is kept in `count_requests`, not
        #: in `requests`
        self.count_tokens = count_tokens
        self.count_requests: list[Request] = []
        self.domain_info = domain_info
        #: the domains WebFetch's preflight asked about, in order
        self.domain_checks: list[str] = []
        #: the headers of each domain preflight (lower-cased names)
        self.domain_check_headers: list[dict[str, str]] = []
        self.host = host
        self.port = 0
        #: every request received, in arrival order
        self.requests: list[Request] = []
        self.errors: list[BaseException] = []
        self._server: asyncio.Server | None = None
        self._connections: dict[asyncio.Task[Any], asyncio.StreamWriter] = {}

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def __aenter__(self) -> SSEServer:
        self._server = await asyncio.start_server(self._serve, self.host, 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, exc_type: object, *_: object) -> None:
        assert self._server is not None
        self._server.close()
        # The SDK keeps idle keep-alive connections open; close them or wait_closed() would wait.
        for task, writer in list(self._connections.items()):
            writer.close()
            task.cancel()
        for task in list(self._connections):
            with contextlib.suppress(BaseException):
                await task
        await self._server.wait_closed()
        if self.errors and exc_type is None:
            raise self.errors[0]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = writer
        try:
            while await self._one_exchange(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # the client went away
        except asyncio.CancelledError:
            # Only __aexit__ cancels; ending normally keeps Python 3.11's stream callback from
            # logging the cancellation as an unhandled error.
            pass
        finally:
            self._connections.pop(task, None)
            writer.close()

    async def _one_exchange(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Read one request and answer it; False when the connection should close."""
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path, _version = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        split = urlsplit(path)
        if method == "GET" and split.path == DOMAIN_INFO_PATH:
            domain = parse_qs(split.query).get("domain", [""])[0]
            self.domain_checks.append(domain)
            self.domain_check_headers.append(headers)
            await self._write(writer, _as_response(self.domain_info(domain)))
            return headers.get("connection", "").lower() != "close"
        if split.path.endswith("/count_tokens"):
            counted = Request(len(self.count_requests), method, path, headers, body)
            self.count_requests.append(counted)
            await self._write(writer, self._count(counted))
            return headers.get("connection", "").lower() != "close"
        request = Request(len(self.requests), method, path, headers, body)
        self.requests.append(request)
        try:
            reply = self.responder(request.index, request.json)
            if inspect.isawaitable(reply):
                reply = await reply
            response = _as_response(reply)
        except Exception as exc:
            self.errors.append(exc)
            response = Response(f"responder failed: {exc!r}", 500, {"content-type": "text/plain"})
        await self._write(writer, response)
        return headers.get("connection", "").lower() != "close"

    def _count(self, request: Request) -> Response:
        if self.count_tokens is None:
            error = {"type": "error", "error": {"type": "not_found_error", "message": "Not found"}}
            return Response(json.dumps(error), 404, {"content-type": "application/json"})
        answer = {"input_tokens": self.count_tokens(request.json)}
        return Response(json.dumps(answer), 200, {"content-type": "application/json"})

    async def _write(self, writer: asyncio.StreamWriter, response: Response) -> None:
        # 529 (overloaded) is Anthropic's own status; http.HTTPStatus does not know it.
        reason = _REASONS.get(response.status) or HTTPStatus(response.status).phrase
        headers = {"content-type": "text/event-stream; charset=utf-8", **response.headers}
        body = response.body
        chunked = not isinstance(body, str | bytes)
        if chunked:
            headers["transfer-encoding"] = "chunked"
        else:
            data = body.encode() if isinstance(body, str) else body
            headers["content-length"] = str(len(data))
        head = f"HTTP/1.1 {response.status} {reason}\r\n"
        head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        writer.write((head + "\r\n").encode("latin-1"))
        if not chunked:
            writer.write(data)
            await writer.drain()
            return
        async for chunk in body:  # type: ignore[union-attr]
            if chunk:
                writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()


def uncached(value: Any) -> Any:
    """A request body as the conversation would be without prompt caching: `cache_control`
    markers removed, every message in block form (how the provider sends them)."""
    if isinstance(value, dict):
        out = {k: uncached(v) for k, v in value.items() if k != "cache_control"}
        if isinstance(out.get("content"), str) and out.get("role") in ("user", "assistant"):
            out["content"] = [{"type": "text", "text": out["content"]}]
        return out
    if isinstance(value, list):
        return [uncached(v) for v in value]
    return value


async def run_agent_tui(
    server: SSEServer,
    cwd: Path,
    home: Path,
    *args: str,
    key: str = "sk-ant-e2e",
    extra_env: dict[str, str] | None = None,
) -> tuple[int, bytes, bytes]:
    """`python -m agent_tui ARGS` as a subprocess pointed at `server`, with its own home and no
    other ANTHROPIC_/AGENT_TUI_ settings from the environment (but `extra_env`); (exit code,
    stdout, stderr)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "AGENT_TUI_"))}
    env.update(ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY=key, AGENT_TUI_HOME=str(home))
    env.update(extra_env or {})
    # this tree's agent_tui, whatever the cwd (a worktree may share a virtualenv whose editable
    # install points at another tree)
    tree = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [tree, env.get("PYTHONPATH")]))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agent_tui", *args, env=env, cwd=cwd,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    return proc.returncode or 0, out, err
