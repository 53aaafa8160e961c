"""The session's MCP servers as a session is built: the manager (None until a server is
configured), the project's servers waiting for trust, and what could not be read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


class McpSetup:
    """The session's MCP servers: the manager (None until a server is configured), the
    project's servers waiting for trust, and what could not be read."""

    def __init__(self) -> None:
        self.manager: Any = None
        self.pending: list[Any] = []
        self.warnings: list[str] = []
        #: whether a waiting server may start now (its project or its plugin is trusted)
        self.trusted: Callable[[Any], bool] = lambda _server: True

    def start_pending(self) -> None:
        """The project or a plugin was trusted: start the servers now trusted too (in the
        running loop); the others keep waiting."""
        ready = [s for s in self.pending if self.trusted(s)]
        if ready and self.manager is not None:
            self.manager.add_servers(ready)
            self.pending = [s for s in self.pending if s not in ready]
            self.manager.start([s.name for s in ready])


def attach_mcp(agent: Any, cwd: Path, configs: list[Path], *, trusted: bool) -> None:
    """Read the MCP configuration (nothing of the SDK is imported here) into `agent.mcp`; the
    caller starts the servers (`agent.mcp.manager.start()`) once it has an event loop and a frame
    on screen. A project's servers (`.mcp.json`) wait for trust unless `trusted`."""
    from agent_tui.paths import config_dir, data_dir

    setup = McpSetup()
    agent.mcp = setup
    plugins = agent.config.plugins
    from_plugins = [s for p in plugins.plugins for s in p.servers] if plugins is not None else []
    files = (config_dir() / "mcp.json", cwd / ".mcp.json")
    if not configs and not from_plugins and not any(f.is_file() for f in files):
        return
    from agent_tui.mcp_servers.config import load_servers
    from agent_tui.mcp_servers.manager import McpManager
    from agent_tui.protocol.events import Notice

    servers, setup.warnings = load_servers(configs, config_dir(), cwd)
    servers += [s for s in from_plugins if s.name not in {x.name for x in servers}]
    permissions = agent.permissions

    def trusted_now(server: Any) -> bool:
        if server.source == "plugin":  # its `path` is the plugin's folder
            return plugins is not None and plugins.is_trusted(server.path)
        return server.source != "project" or bool(permissions.project_trusted)

    setup.trusted = trusted_now
    setup.pending = [
        s for s in servers if not trusted_now(s) and not (s.source == "project" and trusted)
    ]
    held = [s for s in setup.pending if s.source == "project"]  # a plugin's: in its lines
    if held and hasattr(permissions, "untrusted_servers"):
        permissions.untrusted_servers = tuple(
            f"MCP server {s.name} (.mcp.json) runs: {s.describe()}" for s in held
        )

    def report(name: str, why: str) -> None:
        agent.emit(
            Notice(
                "warning",
                f"MCP server {name} is not available: {why}. The session goes on without it "
                "(the palette's “MCP: servers” lists them; its output is in "
                f"{data_dir() / 'mcp.log'}).",
            )
        )

    setup.manager = McpManager(
        [s for s in servers if s not in setup.pending],
        cwd,
        data_dir() / "mcp.log",
        agent.tools.add,
        report,
        sandbox=agent.config.sandbox,
        ask_host=lambda name, host, port: agent.approvals.ask_host(
            "", f"MCP server {name}", host, port
        ),
    )
