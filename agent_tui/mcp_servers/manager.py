"""Starting MCP servers and talking to them, on the official `mcp` SDK.

Each server lives in one asyncio task that opens its transport (stdio or streamable HTTP) and
session, lists its tools, hands them to the agent and then waits until `stop()`. A server that
fails to start or answer within the timeout is reported once and marked failed; the session
goes on without it. `import mcp` takes most of a second, so it happens in a worker thread, and
only when a server is configured. A server's stderr goes to a log file, never to the screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from agent_tui.mcp_servers.config import ServerConfig
from agent_tui.mcp_servers.tool import McpTool
from agent_tui.redact import redact


def _timeout(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


@dataclass(slots=True)
class ServerStatus:
    config: ServerConfig
    #: "starting", "connected", "failed", "stopped", or for a remote server behind OAuth
    #: "needs login" and "logging in"
    state: str = "starting"
    tools: int = 0
    error: str = ""
    #: the authorization URL of a login under way (shown in /mcp; never logged or stored)
    login_url: str = ""


class McpManager:
    def __init__(
        self,
        servers: list[ServerConfig],
        cwd: Path,
        log_path: Path,
        add_tool: Callable[[McpTool], None],
        report: Callable[[str, str], None],
        sandbox: Any = None,
        ask_host: Callable[[str, str, int], Awaitable[bool]] | None = None,
    ) -> None:
        self.cwd = cwd
        #: the session's OS sandbox: a project's stdio servers run inside it when it is on
        self.sandbox = sandbox
        #: (server, host, port) -> allowed: a sandboxed server reaching a new host asks
        self.ask_host = ask_host
        self.log_path = log_path
        self.add_tool = add_tool
        #: (server, problem): said once per failed server
        self.report = report
        self.status: dict[str, ServerStatus] = {s.name: ServerStatus(s) for s in servers}
        self._sessions: dict[str, Any] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._stop: asyncio.Event | None = None
        self._log: TextIO | None = None
        self.start_timeout = _timeout("AGENT_TUI_MCP_TIMEOUT", 30.0)
        self.call_timeout = _timeout("AGENT_TUI_MCP_CALL_TIMEOUT", 600.0)
        #: where remote servers' OAuth tokens are kept (`oauth.TokenFile`), outside any project
        self.token_dir = log_path.parent / "mcp-oauth"
        self._by_name: dict[str, asyncio.Task[None]] = {}

    def add_servers(self, servers: list[ServerConfig]) -> None:
        for server in servers:
            self.status.setdefault(server.name, ServerStatus(server))

    def start(self, names: list[str] | None = None) -> None:
        """Start the named servers (default: all not started yet) in the running loop."""
        if self._stop is None:
            self._stop = asyncio.Event()
        for name, status in self.status.items():
            if (names is None or name in names) and status.state == "starting":
                self._launch(status)

    def _launch(self, status: ServerStatus, interactive: bool = False) -> None:
        task = asyncio.get_running_loop().create_task(self._serve(status, interactive))
        self._tasks.append(task)
        self._by_name[status.config.name] = task

    def tokens(self, config: ServerConfig) -> Any:
        from agent_tui.mcp_servers.oauth import TokenFile

        return TokenFile(self.token_dir, config.name, config.url)

    async def login(self, name: str) -> bool:
        """Log in to a remote server (the browser opens; the code comes back to a loopback
        redirect) and connect it; False for a server that isn't remote."""
        status = self.status.get(name)
        if status is None or status.config.transport != "http":
            return False
        await self._end(name)
        if self._stop is None:
            self._stop = asyncio.Event()
        status.state, status.error = "logging in", ""
        self._launch(status, interactive=True)
        return True

    async def logout(self, name: str) -> bool:
        """Forget a remote server's tokens and registration, and disconnect it."""
        status = self.status.get(name)
        if status is None or status.config.transport != "http":
            return False
        await self._end(name)
        self.tokens(status.config).clear()
        status.state, status.error, status.tools = "needs login", "logged out", 0
        return True

    async def _end(self, name: str) -> None:
        task = self._by_name.pop(name, None)
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    async def wait_started(self) -> None:
        """Until every started server is connected or failed (headless runs wait for this)."""
        while any(s.state == "starting" for s in self.status.values()) and any(
            not t.done() for t in self._tasks
        ):
            await asyncio.sleep(0.02)

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=5)
        for task in self._tasks:
            task.cancel()
        if self._log is not None:
            self._log.close()
            self._log = None

    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> Any:
        session = self._sessions.get(server)
        if session is None:
            status = self.status.get(server)
            why = status.error if status and status.error else "it is not connected"
            raise RuntimeError(f"the server is not available: {why}")
        try:
            async with asyncio.timeout(self.call_timeout):
                return await session.call_tool(tool, arguments)
        except TimeoutError:
            raise TimeoutError(
                f"{server} did not answer within {self.call_timeout:g} s "
                "(AGENT_TUI_MCP_CALL_TIMEOUT sets the limit)"
            ) from None

    # --- one server ---

    def _errlog(self) -> TextIO:
        if self._log is None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = self.log_path.open("a", encoding="utf-8")
        return self._log

    async def _serve(self, status: ServerStatus, interactive: bool = False) -> None:
        from agent_tui.mcp_servers.oauth import LOGIN_TIMEOUT_S, login_needed

        config = status.config
        run: Any = None
        limit = self.start_timeout + (LOGIN_TIMEOUT_S if interactive else 0)
        try:
            sdk = await asyncio.to_thread(_import_sdk)
            async with contextlib.AsyncExitStack() as stack:
                if self._sandboxed(config):
                    run = await self._sandbox_run(config)
                    config = dataclasses.replace(
                        config, command=run.argv[0], args=tuple(run.argv[1:])
                    )
                transport = await self._transport(sdk, config, status, interactive, stack)
                async with asyncio.timeout(limit):
                    read, write = await stack.enter_async_context(transport)
                    session = await stack.enter_async_context(sdk["ClientSession"](read, write))
                    await session.initialize()
                    listed = await session.list_tools()
                self._sessions[config.name] = session
                for tool in listed.tools:
                    self.add_tool(
                        McpTool(
                            config.name,
                            tool.name,
                            tool.description or "",
                            tool.input_schema,
                            self.call,
                        )
                    )
                status.state, status.tools, status.login_url = "connected", len(listed.tools), ""
                assert self._stop is not None
                await self._stop.wait()
                status.state = "stopped"
        except asyncio.CancelledError:
            status.state = "stopped"
            raise
        except BaseException as exc:
            status.login_url = ""
            why = login_needed(exc, status.error) if config.transport == "http" else None
            status.state = "failed" if why is None else "needs login"
            status.error = why or _reason(exc, limit)
            self.report(config.name, status.error)
        finally:
            self._sessions.pop(config.name, None)
            if run is not None:
                await run.finish(config.describe(), "")

    def _sandboxed(self, config: ServerConfig) -> bool:
        """A project's stdio server runs inside the sandbox when it is on (the person's own
        servers, from their settings or the command line, run as configured)."""
        sandbox = self.sandbox
        return (
            sandbox is not None
            and sandbox.active
            and config.transport == "stdio"
            and config.source == "project"
        )

    async def _sandbox_run(self, config: ServerConfig) -> Any:
        ask = self.ask_host

        async def ask_for(host: str, port: int) -> bool:
            return False if ask is None else await ask(config.name, host, port)

        argv = [config.command, *config.args]
        return await self.sandbox.prepare(argv, ask_for, lasting=True)

    async def _transport(
        self,
        sdk: dict[str, Any],
        config: ServerConfig,
        status: ServerStatus,
        interactive: bool,
        stack: contextlib.AsyncExitStack,
    ) -> Any:
        if config.transport == "stdio":
            params = sdk["StdioServerParameters"](
                command=config.command, args=list(config.args), env=config.env or None, cwd=self.cwd
            )
            return sdk["stdio_client"](params, errlog=self._errlog())
        auth = None
        tokens = self.tokens(config)
        if interactive or tokens.logged_in:  # else a 401 says "needs login", unasked
            from agent_tui.mcp_servers.oauth import make_auth

            def show(url: str) -> None:
                status.login_url = url

            auth, callback = await make_auth(
                tokens, config.url, interactive=interactive, show_url=show
            )
            if callback is not None:
                stack.push_async_callback(callback.close)
        client = sdk["create_mcp_http_client"](headers=config.headers or None, auth=auth)
        if auth is None:  # the SDK's error hides the status: a 401 is seen as it arrives

            async def seen(response: Any) -> None:
                if response.status_code == 401:
                    status.error = "it needs you to log in (/mcp, then l)"

            client.event_hooks["response"] = [*client.event_hooks["response"], seen]
        return sdk["streamable_http_client"](config.url, http_client=client)


def _import_sdk() -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters, stdio_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    return {
        "ClientSession": ClientSession,
        "StdioServerParameters": StdioServerParameters,
        "stdio_client": stdio_client,
        "streamable_http_client": streamable_http_client,
        "create_mcp_http_client": create_mcp_http_client,
    }


def _reason(exc: BaseException, timeout: float) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:  # anyio's task groups
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        return f"did not answer within {timeout:.0f}s"
    text = str(exc) or type(exc).__name__
    return redact(f"{type(exc).__name__}: {text}" if str(exc) else text)
