"""OAuth 2.1 for remote (HTTP) MCP servers, as the MCP spec describes it, on the `mcp` SDK's own
client (`mcp.client.auth.OAuthClientProvider`): a server that answers 401 with
`WWW-Authenticate` is followed to its protected resource metadata and its authorization server's
metadata, agent-tui registers itself there when the server offers dynamic client registration,
and the person logs in in their browser (PKCE, S256) with the code coming back to a loopback
redirect (`http://127.0.0.1:PORT/callback`, the port kept per server). Tokens are refreshed by
the SDK when they expire (the expiry is kept, so a refresh happens after a restart too).

What this module adds to the SDK: where tokens live (`TokenFile`: one file per server under
`<data dir>/mcp-oauth/`, outside any project, the folder 0700 and the file 0600, never in the
session store or a log), the loopback listener (`LoopbackCallback`) and the browser. A session
never opens a browser unasked: a server that needs a login is marked so, and `/mcp` logs in
(or out).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

#: seconds a login may wait for the person's browser
LOGIN_TIMEOUT_S = 300.0
CALLBACK_PATH = "/callback"
PAGE = (
    b"<!doctype html><meta charset=utf-8><title>agent-tui</title>"
    b"<p>agent-tui is logged in. You can close this tab.</p>"
)


class LoginNeeded(Exception):
    """The server needs the person to log in (`/mcp`), and this connection may not ask."""


class TokenFile:
    """The SDK's `TokenStorage` for one server: its tokens (with their expiry), its client
    registration and its loopback port, in a file only the person can read."""

    def __init__(self, folder: Path, name: str, url: str) -> None:
        digest = hashlib.sha256(url.encode()).hexdigest()[:16]
        self.folder = folder
        self.path = folder / f"{name}-{digest}.json"

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.folder, 0o700)
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".token.", suffix=".tmp")
        try:  # mkstemp makes it 0600
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _update(self, **fields: Any) -> None:
        data = self._read()
        data.update(fields)
        self._write(data)

    @property
    def logged_in(self) -> bool:
        return bool(self._read().get("tokens"))

    def expires_at(self) -> float | None:
        value = self._read().get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    def port(self) -> int | None:
        value = self._read().get("port")
        return value if isinstance(value, int) else None

    def set_port(self, port: int) -> None:
        """A new loopback port: the registration named the old one, so it goes too."""
        self._update(port=port, client=None)

    def clear(self) -> None:
        """Log out: the tokens and the registration are forgotten (the file removed)."""
        self.path.unlink(missing_ok=True)

    # --- the SDK's TokenStorage ---

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        data = self._read().get("tokens")
        return OAuthToken.model_validate(data) if isinstance(data, dict) else None

    async def set_tokens(self, tokens: Any) -> None:
        expires = time.time() + tokens.expires_in if tokens.expires_in else None
        self._update(tokens=tokens.model_dump(mode="json"), expires_at=expires)

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        data = self._read().get("client")
        return OAuthClientInformationFull.model_validate(data) if isinstance(data, dict) else None

    async def set_client_info(self, client_info: Any) -> None:
        self._update(client=client_info.model_dump(mode="json"))


class LoopbackCallback:
    """The redirect's listener on 127.0.0.1: the first request to `/callback` with a `state`
    gives the authorization code (or the server's error)."""

    def __init__(self) -> None:
        self.server: asyncio.Server | None = None
        self.port = 0
        self._result: asyncio.Future[dict[str, str]] | None = None

    async def start(self, port: int | None) -> int:
        """Listen on `port` (or, taken or none, a free one); the port listened on."""
        self._result = asyncio.get_running_loop().create_future()
        try:
            self.server = await asyncio.start_server(self._serve, "127.0.0.1", port or 0)
        except OSError:
            self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1")
            while (await asyncio.wait_for(reader.readline(), 10)) not in (b"\r\n", b"\n", b""):
                pass
            target = line.split(" ")[1] if line.count(" ") >= 2 else "/"
            parts = urlsplit(target)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            found = parts.path == CALLBACK_PATH and ("code" in query or "error" in query)
            status = b"200 OK" if found else b"404 Not Found"
            writer.write(
                b"HTTP/1.1 " + status + b"\r\nContent-Type: text/html; charset=utf-8\r\n"
                b"Content-Length: " + str(len(PAGE)).encode() + b"\r\nConnection: close\r\n\r\n"
                + PAGE
            )  # fmt: skip
            await writer.drain()
            if found and self._result is not None and not self._result.done():
                self._result.set_result(query)
        except (OSError, TimeoutError, IndexError, UnicodeDecodeError):
            pass
        finally:
            writer.close()

    async def wait(self) -> Any:
        """The SDK's `AuthorizationCodeResult`, once the browser comes back."""
        from mcp.shared.auth import AuthorizationCodeResult

        assert self._result is not None, "start() first"
        try:
            query = await asyncio.wait_for(self._result, LOGIN_TIMEOUT_S)
        finally:
            await self.close()
        if "error" in query:
            why = query.get("error_description") or query["error"]
            raise LoginNeeded(f"the authorization server refused: {why}")
        return AuthorizationCodeResult(
            code=query["code"], state=query.get("state"), iss=query.get("iss")
        )

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(Exception):
                await self.server.wait_closed()
            self.server = None


def open_browser(url: str) -> None:
    """The person's browser at `url` (`$BROWSER`, else the platform's), from a worker thread."""
    import webbrowser

    with contextlib.suppress(Exception):
        webbrowser.open(url)


async def make_auth(
    tokens: TokenFile,
    url: str,
    *,
    interactive: bool,
    show_url: Callable[[str], None] = lambda _url: None,
) -> tuple[Any, LoopbackCallback | None]:
    """The SDK's OAuth provider for one connection, and its listener (interactive only). Not
    interactive, a server that wants a login raises `LoginNeeded` instead of opening a browser."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    quiet_sdk_log()
    callback = LoopbackCallback() if interactive else None
    port = tokens.port()
    if callback is not None:
        listened = await callback.start(port)
        if listened != port:
            tokens.set_port(listened)
        port = listened
    elif port is None:
        port = 0

    async def redirect(authorization_url: str) -> None:
        if callback is None:
            raise LoginNeeded("it needs you to log in (/mcp, then l)")
        show_url(authorization_url)
        await asyncio.to_thread(open_browser, authorization_url)

    async def came_back() -> Any:
        if callback is None:
            raise LoginNeeded("it needs you to log in (/mcp, then l)")
        return await callback.wait()

    metadata = OAuthClientMetadata(
        client_name="agent-tui",
        redirect_uris=[f"http://127.0.0.1:{port}{CALLBACK_PATH}"],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    provider = OAuthClientProvider(url, metadata, tokens, redirect, came_back)
    # the SDK loads the stored tokens but not when they expire: without this, an expired token
    # kept from an earlier run would be sent (and refused) instead of refreshed
    provider.context.token_expiry_time = tokens.expires_at()
    return provider, callback


def quiet_sdk_log() -> None:
    """The SDK logs a failed flow's traceback (a login that is needed, a refused refresh) to
    stderr, over the app's screen: the server's state says why instead (`/mcp`)."""
    import logging

    sdk = logging.getLogger("mcp.client.auth")
    if not sdk.handlers:
        sdk.addHandler(logging.NullHandler())
        sdk.propagate = False


def login_needed(exc: BaseException, said: str = "") -> str | None:
    """Why a connection failed for want of a login (`said`: a 401 was answered, or
    `LoginNeeded` anywhere in it), else None."""
    if said:
        return said
    seen: list[BaseException] = [exc]
    visited: set[int] = set()
    while seen:
        e = seen.pop()
        if id(e) in visited:
            continue
        visited.add(id(e))
        if isinstance(e, LoginNeeded):
            return str(e)
        if isinstance(e, BaseExceptionGroup):
            seen.extend(e.exceptions)
        seen.extend(x for x in (e.__cause__, e.__context__) if x is not None)
    return None
