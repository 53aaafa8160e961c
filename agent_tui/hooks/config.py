"""The `hooks` of the settings files, in Claude Code's shape:

    [[hooks.PreToolUse]]
    matcher = "Bash"            # a tool name or a regex; "" or "*" (or none): every tool
    hooks = [{ type = "command", command = "~/bin/check.sh", timeout = 30 }]

The user's file always counts; a project's (`.agent-tui/settings.toml`, `settings.local.toml`)
only once the person trusts the project. A malformed entry is left out with a warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.toml_file import TomlFileError, read_toml

EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "Notification")
#: the events whose matcher is matched against a tool name
TOOL_EVENTS = ("PreToolUse", "PostToolUse")
#: seconds a hook command may run when its entry says nothing (Claude Code's default)
DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class HookCommand:
    """One hook command from a settings file: the event it runs on, what tools it matches, its
    timeout and where it came from."""

    event: str
    matcher: str
    command: str
    timeout: float
    #: "user", "project" or "local"
    source: str
    path: Path

    def matches(self, tool: str | None) -> bool:
        if self.event not in (*TOOL_EVENTS, "Notification") or self.matcher in ("", "*"):
            return True
        if tool is None:
            return False
        if self.matcher == tool:
            return True
        try:
            return re.fullmatch(self.matcher, tool) is not None
        except re.error:
            return False

    def describe(self) -> str:
        on = f"{self.event}({self.matcher})" if self.matcher else self.event
        return f"hook {on}: {self.command}"


@dataclass
class HookSettings:
    """The hook commands of every settings file (`load_hooks`), and warnings on entries left out."""

    commands: list[HookCommand] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def of(self, source: str) -> list[HookCommand]:
        return [c for c in self.commands if c.source == source]


def read_hooks(path: Path, source: str, into: HookSettings) -> None:
    try:
        data = read_toml(path)
    except TomlFileError as exc:
        into.warnings.append(f"{path}: hooks can't be read ({exc})")
        return
    if data is None:
        return
    table = data.get("hooks")
    if table is None:
        return
    if not isinstance(table, dict):
        into.warnings.append(f"{path}: `hooks` must be a table of events")
        return
    for event, groups in table.items():
        if event not in EVENTS:
            into.warnings.append(
                f"{path}: hooks.{event}: unknown event (known: {', '.join(EVENTS)})"
            )
            continue
        if not isinstance(groups, list):
            into.warnings.append(f"{path}: hooks.{event} must be an array of tables")
            continue
        for n, group in enumerate(groups):
            _read_group(path, source, event, n, group, into)


def _read_group(
    path: Path, source: str, event: str, n: int, group: object, into: HookSettings
) -> None:
    where = f"{path}: hooks.{event}[{n}]"
    if not isinstance(group, dict):
        into.warnings.append(f"{where}: must be a table")
        return
    matcher = group.get("matcher", "")
    if not isinstance(matcher, str):
        into.warnings.append(f"{where}: matcher must be a string")
        return
    if matcher not in ("", "*"):
        try:
            re.compile(matcher)
        except re.error as exc:
            into.warnings.append(f"{where}: matcher {matcher!r} is not a valid regex ({exc})")
            return
    hooks = group.get("hooks", [])
    if not isinstance(hooks, list):
        into.warnings.append(f"{where}: hooks must be an array")
        return
    for hook in hooks:
        if not isinstance(hook, dict) or hook.get("type", "command") != "command":
            into.warnings.append(f'{where}: only {{type = "command", command = …}} hooks run')
            continue
        command = hook.get("command")
        timeout = hook.get("timeout", DEFAULT_TIMEOUT_S)
        if not isinstance(command, str) or not command.strip():
            into.warnings.append(f"{where}: a hook needs a command")
            continue
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            into.warnings.append(f"{where}: timeout must be a positive number of seconds")
            continue
        into.commands.append(HookCommand(event, matcher, command, float(timeout), source, path))


def load_hooks(config_dir: Path, cwd: Path) -> HookSettings:
    """Every hook of the user's, the project's and the local settings (trust is the runner's)."""
    from agent_tui.permissions.settings import settings_paths

    settings = HookSettings()
    for source, path in settings_paths(cwd, config_dir).items():
        read_hooks(path, source, settings)
    return settings
