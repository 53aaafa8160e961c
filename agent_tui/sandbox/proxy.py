"""The sandbox's way out: an HTTP proxy the app runs outside the sandbox, on a Unix socket that is
bound into it (`inside.py` exposes it on the sandbox's loopback as HTTP_PROXY / HTTPS_PROXY).

Each connection carries one request: `CONNECT host:port` (HTTPS, tunnelled as is) or a plain
`GET http://host/...` (sent on with `Connection: close`). Before connecting, the host must pass the
gate (deny rules, allowed domains, or the person's answer — see `network.py`), and every address
it resolves to must pass the same SSRF guard as WebFetch (`web/urls.address_problem`): loopback,
private, link-local and metadata addresses only for a host the person named in a rule of their
own. The connection goes to the address that was checked (no second DNS lookup to race).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Collection
from pathlib import Path
from urllib.parse import urlsplit

from agent_tui.permissions.hosts import canonical_host, ipv4_number, normalize_host
from agent_tui.web.urls import METADATA_ADDRESSES, METADATA_HOSTS, address_problem

#: (host, port) -> None when it may be reached, else why not (in words for the model)
Gate = Callable[[str, int], Awaitable[str | None]]
HEAD_LIMIT = 64 * 1024
_HOP_HEADERS = ("proxy-connection", "proxy-authorization", "connection", "keep-alive")


class Refused(Exception):
    pass


class Proxy:
    def __init__(self, path: Path, gate: Gate, explicit_hosts: Collection[str]) -> None:
        self.path = path
        self.gate = gate
        self.explicit = frozenset(canonical_host(h) for h in explicit_hosts)
        #: "network to HOST refused (why)", in the order they happened, without repeats
        self.refused: dict[str, None] = {}
        self.reached: dict[str, None] = {}
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_unix_server(
            self._handle, path=str(self.path), limit=HEAD_LIMIT
        )

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(OSError):
            self.path.unlink()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._serve(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        line, *headers = head.decode("latin-1").split("\r\n")
        method, target, version = line.split(" ", 2)
        if method.upper() == "CONNECT":
            host, port = _host_port(target, 443)
            path = ""
        else:
            url = urlsplit(target)
            if url.scheme.lower() != "http" or not url.hostname:
                await _reply(writer, 400, "the sandbox's proxy takes http:// URLs and CONNECT")
                return
            host, port = url.hostname, url.port or 80
            path = (url.path or "/") + (f"?{url.query}" if url.query else "")
        host = canonical_host(host)
        why = await self.gate(host, port)
        if why is None:
            try:
                upstream = await self._connect(host, port)
            except Refused as e:
                why = str(e)
        if why is not None:
            self.refused[f"network to {host} refused ({why})"] = None
            await _reply(writer, 403, f"blocked by the sandbox: network to {host} refused ({why})")
            return
        self.reached[host] = None
        up_reader, up_writer = upstream
        if method.upper() == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            kept = [
                h for h in headers if h and h.split(":", 1)[0].strip().lower() not in _HOP_HEADERS
            ]
            request = "\r\n".join(
                [f"{method} {path} {version}", *kept, "Connection: close", "", ""]
            )
            up_writer.write(request.encode("latin-1"))
        await writer.drain()
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    async def _connect(
        self, host: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        named = host in self.explicit
        _check_name(host, named)
        loop = asyncio.get_running_loop()
        try:
            infos = await asyncio.wait_for(
                loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), 15
            )
        except (OSError, TimeoutError) as e:
            raise Refused(f"{host} could not be resolved: {e}") from None
        addresses = list(dict.fromkeys(str(i[4][0]).split("%")[0] for i in infos))
        for address in addresses:
            ip = ipaddress.ip_address(address)
            if canonical_host(str(ip)) in self.explicit:
                continue
            if named and ip not in METADATA_ADDRESSES:
                continue
            problem = address_problem(ip)
            if problem:
                raise Refused(
                    f"{host} is {problem}"
                    if host == address
                    else f"{host} resolves to {ip}, {problem}"
                )
        error: Exception | None = None
        for address in addresses:
            try:
                return await asyncio.wait_for(asyncio.open_connection(address, port), 30)
            except (OSError, TimeoutError) as e:
                error = e
        raise Refused(f"could not connect to {host}:{port}: {error}")


def _check_name(host: str, named: bool) -> None:
    """Refuse names that are loopback or metadata by definition, and odd IPv4 spellings."""
    if named:
        return
    plain = normalize_host(host)
    if plain == "localhost" or plain.endswith(".localhost"):
        raise Refused(f"{host} is a loopback name")
    if plain in METADATA_HOSTS:
        raise Refused(f"{host} is a cloud metadata service")
    try:
        number = ipv4_number(plain)
    except ValueError:
        raise Refused(f"{host!r} is not a valid address") from None
    if number is not None and str(ipaddress.IPv4Address(number)) != plain:
        raise Refused(f"{host!r} spells an IPv4 address in a non-standard notation")


def _host_port(target: str, default: int) -> tuple[str, int]:
    if target.startswith("["):
        host, _, rest = target[1:].partition("]")
        port = rest.removeprefix(":")
    else:
        host, _, port = target.rpartition(":") if target.count(":") == 1 else (target, "", "")
    if not port:
        return host, default
    value = int(port)
    if not 0 < value < 65536:
        raise ValueError(f"bad port {port}")
    return host, value


async def _reply(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    reason = {400: "Bad Request", 403: "Forbidden"}.get(status, "Error")
    body = (text + "\n").encode()
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    with contextlib.suppress(OSError):
        await writer.drain()


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Carry `reader` to `writer` until it ends, then half-close (or close) `writer`."""
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            if writer.can_write_eof():
                writer.write_eof()
            else:
                writer.close()
