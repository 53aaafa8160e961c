"""The person's sandbox settings: `[sandbox]` in the user's `settings.toml`, with Claude Code's
names for what Claude Code has (so habits carry over), and `--sandbox` on the command line.

```toml
[sandbox]
mode = "auto"                      # off | on | auto  (or Claude Code's `enabled` and
                                   # `autoAllowBashIfSandboxed`)
bwrapPath = "/usr/bin/bwrap"       # which bubblewrap (default: the system's, else the wheel's)
failIfUnavailable = true           # no sandbox here: refuse Bash rather than run it without one
excludedCommands = ["docker"]      # run outside the sandbox (the usual questions; never auto)
changeSets = true                  # false: commands write to the project directly (no
                                   # change sets, undo by snapshots), as before
apply = "auto"                     # auto: a command's changes land when it ends (the gate asks
                                   # only for protected ones); review: each change set waits
                                   # for you, file by file
env = ["MY_TOOL_*", "DEBUG"]       # variables passed besides the allow-list (environment.py)
[sandbox.env]
RUST_LOG = "info"                  # variables set inside
[sandbox.filesystem]
allowRead = ["~/.config/mytool"]   # shown read-only besides what toolchains need (home.py)
allowWrite = ["~/scratch"]         # writable as they are, besides the project's change set
denyRead = ["~/work/secrets"]      # hidden besides ~/.ssh, ~/.aws, ... and Read(...) deny rules
[sandbox.network]
allowedDomains = ["pypi.org", "*.pythonhosted.org"]   # reached through the proxy without asking
allowUnixSockets = ["/run/docker.sock"]                # sockets under the hidden /run made visible
forwardPorts = [5173, 8000]        # a server a sandboxed command starts on these ports is
                                   # reachable on your loopback without asking
```

Only the user's own file counts for what widens the sandbox (paths, domains, sockets, the
binary); the person's Claude Code `sandbox` table (~/.claude/settings.json, `--settings`, a
managed file: never a project's) is merged under it, ours winning key by key.
A project's `.agent-tui/settings.toml` may raise the mode (`auto` → `on`), never lower it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

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
    #: shown read-only inside besides what toolchains need
    allow_read: tuple[str, ...] = ()
    #: variable names (or `PREFIX_*`) passed besides the allow-list, and values set
    env: tuple[str, ...] = ()
    env_values: tuple[tuple[str, str], ...] = ()
    #: "auto": a change set lands when its command ends; "review": it waits for the person
    apply: str = "auto"
    #: ports a sandboxed server may be reached on from the host's loopback without asking
    forward_ports: tuple[int, ...] = ()
    #: commands run as transactions where overlays work (`changeSets = false`: never; they
    #: write to the project directly under the older protections)
    change_sets: bool = True


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
            return cast(SandboxMode, mode)
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
    apply = user.get("apply", "auto")
    if apply not in ("auto", "review"):
        warnings.append(f"{where}: [sandbox] apply {apply!r} is not auto or review; auto used")
        apply = "auto"
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
        allow_read=_strings(fs, "allowRead", where, warnings),
        env=_env_names(user, where, warnings),
        env_values=_env_values(user, where, warnings),
        apply=apply,
        forward_ports=_ports(net, where, warnings),
        change_sets=user.get("changeSets") is not False,
        warnings=tuple(warnings),
    )


def _env_names(table: dict[str, Any], where: str, warnings: list[str]) -> tuple[str, ...]:
    value = table.get("env", [])
    if isinstance(value, dict):
        return ()  # `[sandbox.env]`: values, below
    return _strings(table, "env", where, warnings)


def _env_values(
    table: dict[str, Any], where: str, warnings: list[str]
) -> tuple[tuple[str, str], ...]:
    value = table.get("env")
    if not isinstance(value, dict):
        return ()
    out = tuple((str(k), v) for k, v in value.items() if isinstance(v, str))
    if len(out) != len(value):
        warnings.append(f"{where}: [sandbox.env] values should be strings; others ignored")
    return out


def _ports(table: dict[str, Any], where: str, warnings: list[str]) -> tuple[int, ...]:
    value = table.get("forwardPorts", [])
    if isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) and 0 < v < 65536 for v in value
    ):
        return tuple(value)
    warnings.append(f"{where}: forwardPorts should be a list of port numbers; ignored")
    return ()
