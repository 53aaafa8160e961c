"""MCP servers: configuration in Claude Code's format, a real server (written with the `mcp`
SDK) over stdio — its tools named `mcp__notes__…`, text, image and resource results — servers
that fail or hang reported once, and rules that name a server or one of its tools."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_tui.mcp_servers.config import load_servers, parse_servers
from agent_tui.mcp_servers.manager import McpManager
from agent_tui.mcp_servers.tool import McpTool
from agent_tui.permissions.engine import PermissionEngine
from agent_tui.permissions.rules import parse_rule
from agent_tui.permissions.settings import SourcedRule
from agent_tui.tools.base import ToolContext

SERVER = Path(__file__).parent / "fixtures" / "mcp" / "notes_server.py"


def notes_config(name: str = "notes", command: str = sys.executable) -> dict[str, Any]:
    return {"mcpServers": {name: {"command": command, "args": [str(SERVER)]}}}


def test_config_in_claude_codes_format(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTES_TOKEN", "t0k")
    data = {
        "mcpServers": {
            "notes": {"command": "python", "args": ["s.py"], "env": {"T": "${NOTES_TOKEN}"}},
            "docs": {"type": "http", "url": "https://x.test/mcp", "headers": {"A": "${NOPE:-d}"}},
            "bad name!": {"command": "x"},
            "empty": {},
        }
    }
    servers, warnings = parse_servers(data, "user", "mcp.json")
    notes, docs = servers
    assert (notes.transport, notes.command, notes.args, notes.env) == (
        "stdio",
        "python",
        ("s.py",),
        {"T": "t0k"},
    )
    assert (docs.transport, docs.url, docs.headers) == ("http", "https://x.test/mcp", {"A": "d"})
    assert len(warnings) == 2 and any("bad name!" in w for w in warnings)


def test_later_sources_win_and_a_broken_file_is_a_warning(tmp_path: Path) -> None:
    config, project = tmp_path / "cfg", tmp_path / "project"
    config.mkdir()
    project.mkdir()
    (config / "mcp.json").write_text(json.dumps(notes_config()))
    (project / ".mcp.json").write_text(json.dumps(notes_config(command="node")))
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    servers, warnings = load_servers([broken], config, project)
    (only,) = servers
    assert only.command == "node" and only.source == "project"
    assert any("broken.json" in w for w in warnings)


def test_rules_name_a_server_or_one_of_its_tools(tmp_path: Path) -> None:
    def engine(*rules: tuple[str, str]) -> PermissionEngine:
        return PermissionEngine(tmp_path, [SourcedRule(parse_rule(r), b, "cli") for r, b in rules])  # type: ignore[arg-type]

    assert engine().check("mcp__notes__add_note", {}, read_only=False).behavior == "ask"
    allow_all = engine(("mcp__notes", "allow"))
    assert allow_all.check("mcp__notes__add_note", {}, read_only=False).behavior == "allow"
    assert allow_all.check("mcp__notesy__x", {}, read_only=False).behavior == "ask"
    mixed = engine(("mcp__notes", "allow"), ("mcp__notes__add_note", "deny"))
    assert mixed.check("mcp__notes__add_note", {}, read_only=False).behavior == "deny"
    assert mixed.check("mcp__notes__read_note", {}, read_only=False).behavior == "allow"


async def start(
    tmp_path: Path, data: dict[str, Any]
) -> tuple[McpManager, list[McpTool], list[str]]:
    servers, _ = parse_servers(data, "cli", "test")
    tools: list[McpTool] = []
    reports: list[str] = []
    manager = McpManager(
        servers,
        tmp_path,
        tmp_path / "mcp.log",
        tools.append,
        lambda n, w: reports.append(f"{n}: {w}"),
    )
    manager.start()
    await asyncio.wait_for(manager.wait_started(), 60)
    return manager, tools, reports


async def test_a_real_server_over_stdio(tmp_path: Path) -> None:
    manager, tools, reports = await start(tmp_path, notes_config())
    try:
        assert reports == []
        assert manager.status["notes"].state == "connected"
        by_name = {t.name: t for t in tools}
        assert set(by_name) == {
            "mcp__notes__add_note",
            "mcp__notes__read_note",
            "mcp__notes__note_picture",
        }
        schema = by_name["mcp__notes__add_note"].schema()
        assert schema["input_schema"]["required"] == ["name", "text"]
        ctx = ToolContext(cwd=tmp_path, data_dir=tmp_path)
        add = by_name["mcp__notes__add_note"]
        out = await add.run(add.validate({"name": "todo", "text": "buy milk"}), ctx)
        assert out.content == "Stored note 'todo' (8 characters)." and not out.is_error
        read = by_name["mcp__notes__read_note"]
        out = await read.run(read.validate({"name": "missing"}), ctx)
        assert out.is_error
        picture = by_name["mcp__notes__note_picture"]
        out = await picture.run(picture.validate({}), ctx)
        assert out.blocks and out.blocks[0]["type"] == "image"
        assert out.blocks[0]["source"]["media_type"] == "image/png"
        assert "[resource notes://all]\nwelcome, todo" in out.content
    finally:
        await manager.stop()
    # the server's stderr went to the log, not the screen
    assert "stored todo" in (tmp_path / "mcp.log").read_text()


async def test_failing_and_hanging_servers_are_reported_once(tmp_path: Path) -> None:
    hang = tmp_path / "hang.py"
    hang.write_text("import time\ntime.sleep(60)\n")
    data = {
        "mcpServers": {
            "gone": {"command": str(tmp_path / "no-such-program")},
            "crash": {"command": sys.executable, "args": ["-c", "raise SystemExit(3)"]},
            "hang": {"command": sys.executable, "args": [str(hang)]},
            "notes": {"command": sys.executable, "args": [str(SERVER)]},
        }
    }
    servers, _ = parse_servers(data, "cli", "test")
    tools: list[McpTool] = []
    reports: list[str] = []
    manager = McpManager(
        servers, tmp_path, tmp_path / "mcp.log", tools.append, lambda n, w: reports.append(n)
    )
    manager.start_timeout = 3
    manager.start()
    try:
        await asyncio.wait_for(manager.wait_started(), 60)
        assert sorted(reports) == ["crash", "gone", "hang"]
        states = {name: s.state for name, s in manager.status.items()}
        assert states == {
            "gone": "failed",
            "crash": "failed",
            "hang": "failed",
            "notes": "connected",
        }
        assert "did not answer within 3s" in manager.status["hang"].error
        assert "no-such-program" in manager.status["gone"].error
        assert len(tools) == 3  # the session goes on with the server that works
        with pytest.raises(RuntimeError, match="not available"):
            await manager.call("gone", "x", {})
    finally:
        await manager.stop()


async def test_a_call_timeout_names_the_server_and_the_limit(tmp_path: Path) -> None:
    class Silent:
        async def call_tool(self, tool: str, arguments: dict[str, Any]) -> Any:
            await asyncio.sleep(60)

    manager = McpManager([], tmp_path, tmp_path / "mcp.log", lambda t: None, lambda n, w: None)
    manager._sessions["slow"] = Silent()
    manager.call_timeout = 0.05
    with pytest.raises(TimeoutError) as caught:
        await manager.call("slow", "wait", {})
    assert str(caught.value) == (
        "slow did not answer within 0.05 s (AGENT_TUI_MCP_CALL_TIMEOUT sets the limit)"
    )
