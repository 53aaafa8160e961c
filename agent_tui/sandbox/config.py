"""The person's sandbox settings: `[sandbox]` in the user's `settings.toml`, with Claude Code's
names for what Claude Code has (so habits carry over), and `--sandbox` on the command line.

```toml
[sandbox]
mode = "auto"                      # off | on | auto  (or Claude Code's `enabled` and
                                   # `autoAllowBashIfSandboxed`)
bwrapPath = "/usr/bin/bwrap"       # which bubblewrap (default: the system's, else the wheel's)
failIfUnavailable = true           # no sandbox here: refuse Bash rather than run it without one
excludedCommands = ["docker"]      # run outside the sandbox (the usual questions; never auto)
[sandbox.filesystem]
allowWrite = ["~/.cache/pip"]      # writable besides the working directory and the private /tmp
denyRead = ["~/work/secrets"]      # hidden besides ~/.ssh, ~/.aws, ... and Read(...) deny rules
[sandbox.network]
allowedDomains = ["pypi.org", "*.pythonhosted.org"]   # reached through the proxy without asking
allowUnixSockets = ["/run/docker.sock"]                # sockets under the hidden /run made visible
```

Only the user's own file counts for what widens the sandbox (paths, domains, sockets, the
binary); the person's Claude Code `sandbox` table (~/.claude/settings.json, `--settings`, a
managed file: never a project's) is merged under it, ours winning key by key.
A project's `.agent-tui/settings.toml` may raise the mode (`auto` → `on`), never lower it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.sandbox.base import MODES, STRENGTH, SandboxMode
from agent_tui.toml_file import TomlFileError, read_toml


@dataclass(frozen=True, slots=True)
class SandboxConfig:
    """The sandbox settings in force: the mode and where it came from, what the boundary lets
    through, and warnings about the settings."""

    mode: SandboxMode = "off"
    #: where the mode came from: "default", "user settings", "--sandbox", "project settings"
    mode_source: str = "default"
    allow_write: tuple[str, ...] = ()
    deny_read: tuple[str, ...] = ()
    allowed_domains: tuple[str, ...] = ()
    allow_unix_sockets: tuple[str, ...] = ()
    bwrap_path: str | None = None
    #: where the sandbox can't run, Bash commands are refused instead of run without it
    fail_if_unavailable: bool = False
    #: command prefixes that run outside the sandbox (`excludedCommands`)
    excluded_commands: tuple[str, ...] = ()
    warnings: tuple[str, ...] = field(default_factory=tuple)


def _read(path: Path) -> dict[str, Any]:
    try:
        data = read_toml(path) or {}
    except TomlFileError:
        return {}  # the permission settings already report a file that can't be read
    table = data.get("sandbox")
    return table if isinstance(table, dict) else {}


def _mode_of(table: dict[str, Any], where: str, warnings: list[str]) -> SandboxMode | None:
    mode = table.get("mode")
    if mode is not None:
        if mode in MODES:
            return mode
        warnings.append(f"{where}: [sandbox] mode {mode!r} is not one of {', '.join(MODES)}")
        return None
    enabled = table.get("enabled")
    if isinstance(enabled, bool):
        auto = table.get("autoAllowBashIfSandboxed", True)  # Claude Code's default
        return "off" if not enabled else ("auto" if auto is not False else "on")
    return None


def _table(table: dict[str, Any], key: str) -> dict[str, Any]:
    value = table.get(key)
    return value if isinstance(value, dict) else {}


def _strings(table: dict[str, Any], key: str, where: str, warnings: list[str]) -> tuple[str, ...]:
    value = table.get(key, [])
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    warnings.append(f"{where}: {key} should be a list of strings; ignored")
    return ()


def load_config(
    config_dir: Path, cwd: Path, cli_mode: str | None = None, default: SandboxMode = "off"
) -> SandboxConfig:
    warnings: list[str] = []
    user_file = config_dir / "settings.toml"
    from agent_tui.permissions.claude_settings import merge, user_sandbox

    # Claude Code's `sandbox` (the person's own files only) under ours: ours wins, key by key
    user = merge(user_sandbox(cwd), _read(user_file))
    mode: SandboxMode = default
    source = "default"
    found = _mode_of(user, str(user_file), warnings)
    if found is not None:
        mode, source = found, "user settings"
    if cli_mode in MODES:
        mode, source = cli_mode, "--sandbox"
    project_file = cwd / ".agent-tui" / "settings.toml"
    raised = _mode_of(_read(project_file), str(project_file), warnings)
    if raised is not None and STRENGTH[raised] > STRENGTH[mode]:
        mode, source = raised, "project settings (a project may raise the mode)"
    fs = _table(user, "filesystem")
    net = _table(user, "network")
    where = str(user_file)
    bwrap = user.get("bwrapPath")
    return SandboxConfig(
        mode=mode,
        mode_source=source,
        allow_write=_strings(fs, "allowWrite", where, warnings),
        deny_read=_strings(fs, "denyRead", where, warnings),
        allowed_domains=_strings(net, "allowedDomains", where, warnings),
        allow_unix_sockets=_strings(net, "allowUnixSockets", where, warnings),
        bwrap_path=bwrap if isinstance(bwrap, str) and bwrap else None,
        fail_if_unavailable=user.get("failIfUnavailable") is True,
        excluded_commands=_strings(user, "excludedCommands", where, warnings),
        warnings=tuple(warnings),
    )
