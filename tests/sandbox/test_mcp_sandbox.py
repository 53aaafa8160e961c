"""A project's stdio MCP server runs inside the sandbox when it is on (the person's own don't)."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from bwrap_support import needs_bwrap

from agent_tui.mcp_servers.config import parse_servers
from agent_tui.mcp_servers.manager import McpManager
from agent_tui.mcp_servers.tool import McpTool
from agent_tui.permissions.engine import PermissionEngine
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.runner import Sandbox
from agent_tui.sandbox.transaction import remove_folder
from agent_tui.tools.base import ToolContext

pytestmark = needs_bwrap
SERVER = Path(__file__).parents[1] / "fixtures" / "mcp" / "probe_server.py"


async def probe(tmp_path: Path, source: str, target: Path) -> str:
    project = tmp_path / "p"
    (project / "src").mkdir(parents=True, exist_ok=True)
    data = {"mcpServers": {"probe": {"command": sys.executable, "args": [str(SERVER)]}}}
    servers, _ = parse_servers(data, source, "test")
    sandbox = Sandbox(
        SandboxConfig(mode="on"), project, PermissionEngine(project), data_dir=tmp_path / "d"
    )
    tools: list[McpTool] = []
    manager = McpManager(
        servers, project, tmp_path / "mcp.log", tools.append, lambda n, w: None, sandbox=sandbox
    )
    manager.start()
    try:
        await asyncio.wait_for(manager.wait_started(), 60)
        assert manager.status["probe"].state == "connected", (tmp_path / "mcp.log").read_text()
        [tool] = tools
        ctx = ToolContext(cwd=project, data_dir=tmp_path)
        out = await tool.run(tool.validate({"path": str(target)}), ctx)
        return out.content
    finally:
        await manager.stop()
        sandbox.close()


async def test_a_project_server_runs_inside(tmp_path: Path) -> None:
    outside = Path(tempfile.mkdtemp(dir="/var/tmp"))
    try:
        # outside the project: not there inside (the sandbox's own /var/tmp), or read-only
        assert (await probe(tmp_path, "project", outside / "m")).startswith("refused: ")
        assert not (outside / "m").exists()
        inside = tmp_path / "p" / "src" / "ok.txt"
        assert await probe(tmp_path, "project", inside) == "written"
        hook = tmp_path / "p" / ".envrc"
        assert (await probe(tmp_path, "project", hook)).startswith("refused")
        assert not hook.exists()  # no placeholder left in the project either
    finally:
        remove_folder(outside)


async def test_the_persons_own_server_runs_as_configured(tmp_path: Path) -> None:
    outside = Path(tempfile.mkdtemp(dir="/var/tmp"))
    try:
        assert await probe(tmp_path, "user", outside / "m") == "written"
    finally:
        remove_folder(outside)
