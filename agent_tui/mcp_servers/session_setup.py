"""The session's MCP servers as a session is built: the manager (None until a server is
configured), the project's servers waiting for trust, and what could not be read."""

from __future__ import annotations

from pathlib import Path
from typing import Any


class McpSetup:
    """The session's MCP servers: the manager (None until a server is configured), the
    project's servers waiting for trust, and what could not be read."""

    def __init__(self) -> None:
        self.manager: Any = None
        self.pending: list[Any] = []
        self.warnings: list[str] = []

    def start_pending(self) -> None:
        """The project was trusted: start its servers too (in the running loop)."""
        if self.pending and self.manager is not None:
            names = [s.name for s in self.pending]
            self.manager.add_servers(self.pending)
            self.pending = []
            self.manager.start(names)


def attach_mcp(agent: Any, cwd: Path, configs: list[Path], *, trusted: bool) -> None:
    """Read the MCP configuration (nothing of the SDK is imported here) into `agent.mcp`; the
    caller starts the servers (`agent.mcp.manager.start()`) once it has an event loop and a frame
    on screen. A project's servers (`.mcp.json`) wait for trust unless `trusted`."""
    from agent_tui.paths import config_dir, data_dir

    setup = McpSetup()
    agent.mcp = setup
    if not configs and not ((config_dir() / "mcp.json").is_file() or (cwd / ".mcp.json").is_file()):
        return
    from agent_tui.mcp_servers.config import load_servers
    from agent_tui.mcp_servers.manager import McpManager
    from agent_tui.protocol.events import Notice

    servers, setup.warnings = load_servers(configs, config_dir(), cwd)
    permissions = agent.permissions
    setup.pending = [s for s in servers if s.source == "project" and not trusted]
    if setup.pending and hasattr(permissions, "untrusted_servers"):
        permissions.untrusted_servers = tuple(
            f"MCP server {s.name} (.mcp.json) runs: {s.describe()}" for s in setup.pending
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
