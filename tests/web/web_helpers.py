"""WebFetch test helpers: a loopback HTTP server on raw asyncio streams, so tests control every
byte and stall, and a fake provider that records extraction requests."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.providers.base import MessageRequest, ProviderError
from agent_tui.tools.base import ToolContext

FIXTURES = Path(__file__).parent.parent / "fixtures" / "html"


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]


Handler = Callable[[Request, asyncio.StreamWriter], Awaitable[None]]


def response_bytes(status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> bytes:
    reasons = {
        200: "OK",
        301: "Moved Permanently",
        302: "Found",
        403: "Forbidden",
        404: "Not Found",
    }
    head = [f"HTTP/1.1 {status} {reasons.get(status, 'Status')}"]
    merged = {"content-length": str(len(body)), "connection": "close", **(headers or {})}
    head += [f"{k}: {v}" for k, v in merged.items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def static(status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> Handler:
    async def handler(request: Request, writer: asyncio.StreamWriter) -> None:
        writer.write(response_bytes(status, body, headers))
        await writer.drain()

    return handler


@dataclass
class Server:
    host: str = "127.0.0.1"
    port: int = 0
    routes: dict[str, Handler] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    _server: asyncio.Server | None = None

    def url(self, path: str = "/", host: str | None = None) -> str:
        return f"http://{host or self.host}:{self.port}{path}"

    def route(self, path: str, handler: Handler) -> None:
        self.routes[path] = handler

    def hits(self, path: str) -> int:
        return sum(1 for r in self.requests if r.path.split("?")[0] == path)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, self.host, 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    k, v = line.split(":", 1)
                    headers[k.strip().lower()] = v.strip()
            request = Request(method, path, headers)
            self.requests.append(request)
            handler = self.routes.get(path.split("?")[0], static(404, b"not found"))
            await handler(request, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()


class FakeProvider:
    """Records requests; answers with `answer`, or raises `error`."""

    name = "fake"
    label = "fake"

    def __init__(self, answer: str = "extracted answer", error: ProviderError | None = None):
        self.answer = answer
        self.error = error
        self.requests: list[MessageRequest] = []

    def supports_web_search(self, model: str) -> bool:
        return False

    async def stream(self, request: MessageRequest) -> AsyncIterator[dict[str, Any]]:
        self.requests.append(request)
        if self.error is not None:
            raise self.error
        yield {
            "type": "message_start",
            "message": {"usage": {"input_tokens": 120, "output_tokens": 1}},
        }
        yield {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}
        for piece in (self.answer[: len(self.answer) // 2], self.answer[len(self.answer) // 2 :]):
            yield {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": piece},
            }
        yield {"type": "content_block_stop", "index": 0}
        yield {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 7},
        }
        yield {"type": "message_stop"}


@dataclass
class Recorder:
    statuses: list[str] = field(default_factory=list)

    def __call__(self, **kwargs: Any) -> None:
        if "status" in kwargs:
            self.statuses.append(kwargs["status"])


def make_ctx(
    tmp_path: Path,
    *,
    provider: Any = None,
    explicit: frozenset[str] = frozenset({"127.0.0.1"}),
    clock: Callable[[], float] | None = None,
) -> tuple[ToolContext, Recorder]:
    recorder = Recorder()
    ctx = ToolContext(
        cwd=tmp_path,
        data_dir=tmp_path / "data",
        progress=recorder,
        provider=provider,
        model="main-model",
        small_model="small-model",
        explicit_hosts=explicit,
        clock=clock,
    )
    return ctx, recorder
