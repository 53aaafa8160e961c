"""Reading MCP server configuration in Claude Code's format:

    {"mcpServers": {"notes": {"command": "python", "args": ["server.py"], "env": {"K": "v"}},
                    "docs": {"type": "http", "url": "https://…", "headers": {"X": "y"}}}}

from `--mcp-config FILE`, the user's `<config>/mcp.json`, and the project's `.mcp.json` (whose
servers start only in a trusted project: they run programs). `${VAR}` and `${VAR:-default}` in
strings are taken from the environment, as Claude Code does. Problems are warnings, never a crash.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
#: the transports we speak; "sse" is the older HTTP transport, spoken by the same client here
HTTP_TYPES = ("http", "streamable-http", "sse")


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One MCP server as configured: how it is reached, and where its entry came from."""

    name: str
    #: "stdio" or "http"
    transport: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    #: "cli", "user" or "project"
    source: str = "user"
    path: str = ""

    def describe(self) -> str:
        if self.transport == "stdio":
            return " ".join([self.command, *self.args])
        return self.url


def _expand(value: str) -> str:
    return _VAR.sub(lambda m: os.environ.get(m.group(1), m.group(2) or ""), value)


def _strings(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {str(k): _expand(str(v)) for k, v in value.items() if isinstance(v, str | int | float)}


def parse_servers(data: Any, source: str, path: str) -> tuple[list[ServerConfig], list[str]]:
    servers: list[ServerConfig] = []
    warnings: list[str] = []
    table = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        return [], [f'{path}: no "mcpServers" object']
    for name, entry in table.items():
        if not _NAME.fullmatch(str(name)) or "__" in str(name):
            warnings.append(f"{path}: server name {name!r} must be letters, digits, - or _")
            continue
        if not isinstance(entry, dict):
            warnings.append(f"{path}: server {name!r} is not an object")
            continue
        kind = str(entry.get("type") or ("stdio" if "command" in entry else "http"))
        if kind == "stdio" and isinstance(entry.get("command"), str) and entry["command"]:
            args = entry.get("args") or []
            if not isinstance(args, list):
                warnings.append(f'{path}: server {name!r}: "args" must be a list')
                continue
            servers.append(
                ServerConfig(
                    name,
                    "stdio",
                    command=_expand(entry["command"]),
                    args=tuple(_expand(str(a)) for a in args),
                    env=_strings(entry.get("env")),
                    source=source,
                    path=path,
                )
            )
        elif kind in HTTP_TYPES and isinstance(entry.get("url"), str) and entry["url"]:
            servers.append(
                ServerConfig(
                    name,
                    "http",
                    url=_expand(entry["url"]),
                    headers=_strings(entry.get("headers")),
                    source=source,
                    path=path,
                )
            )
        else:
            warnings.append(f'{path}: server {name!r} needs a "command" or an http "url"')
    return servers, warnings


def load_servers(
    cli_files: list[Path], config_dir: Path, cwd: Path
) -> tuple[list[ServerConfig], list[str]]:
    """Every configured server, later sources winning on a name: user, project, command line."""
    found: dict[str, ServerConfig] = {}
    warnings: list[str] = []
    sources = [(config_dir / "mcp.json", "user"), (cwd / ".mcp.json", "project")]
    sources += [(path, "cli") for path in cli_files]
    for path, source in sources:
        if source != "cli" and not path.is_file():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            warnings.append(f"{path}: not read ({exc})")
            continue
        servers, problems = parse_servers(data, source, str(path))
        warnings += problems
        found.update((s.name, s) for s in servers)
    return list(found.values()), warnings
