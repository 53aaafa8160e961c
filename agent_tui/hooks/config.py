"""The `hooks` of the settings files, in Claude Code's shape, from our TOML and from Claude Code's
settings.json files (`permissions.claude_settings`) alike:

    [[hooks.PreToolUse]]
    matcher = "Bash"            # a tool name or a regex; "" or "*" (or none): every tool
    hooks = [{ type = "command", command = "~/bin/check.sh", timeout = 30 }]

The person's files always count (`settings.toml`, `~/.claude/settings.json`, `--settings`, a
managed file); a project's (`.agent-tui/settings*.toml`, `.claude/settings*.json`) only once the
person trusts the project. A malformed entry is left out with a warning.

`onFailure` (Claude Code's) says what a hook that can't start, times out or exits with another
code than 0 or 2 does: `"block"` blocks the action, `"continue"` lets it go on with a warning.
A PreToolUse hook blocks by default (a safety check that didn't run must not let the call
through); the other events continue by default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.toml_file import TomlFileError, read_toml

EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "Notification",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
)
#: the events whose matcher is matched against a tool name
TOOL_EVENTS = ("PreToolUse", "PostToolUse")
#: the events whose matcher is matched against a word of the event (Claude Code's): the
#: notification's type, SessionStart's source, SessionEnd's reason, PreCompact's trigger
WORD_EVENTS = ("Notification", "SessionStart", "SessionEnd", "PreCompact")
#: Claude Code's names for our tools, so a matcher written for either matches
TOOL_NAMES = {"Task": "Agent", "BashOutput": "TaskOutput", "KillShell": "TaskStop"}
FAILURES = ("block", "continue")
#: seconds a hook command may run when its entry says nothing, and for SessionEnd, which holds
#: up quitting (Claude Code's, 1.5 s)
DEFAULT_TIMEOUT_S = 60.0
SESSION_END_TIMEOUT_S = 1.5


@dataclass(frozen=True)
class HookCommand:
    """One hook command from a settings file: the event it runs on, what tools it matches, its
    timeout and where it came from."""

    event: str
    matcher: str
    command: str
    timeout: float
    #: "user", "project", "local", "cli", "managed" or "plugin"
    source: str
    path: Path
    #: what a failure does (`onFailure`): "block", "continue", or None: the event's default
    #: (a PreToolUse hook blocks, the others continue)
    on_failure: str | None = None
    #: variables its command gets besides the usual ones (a plugin's `CLAUDE_PLUGIN_ROOT`)
    env: tuple[tuple[str, str], ...] = ()

    @property
    def blocks_on_failure(self) -> bool:
        if self.on_failure is None:
            return self.event == "PreToolUse"
        return self.on_failure == "block"

    @property
    def own(self) -> bool:
        """The person's own hook (not a project's): it runs as the person's code. A plugin's
        is among them only once the person trusted the plugin (`plugins.session`)."""
        return self.source in ("user", "cli", "managed", "plugin")

    def matches(self, tool: str | None) -> bool:
        if self.event not in (*TOOL_EVENTS, *WORD_EVENTS) or self.matcher in ("", "*"):
            return True
        if tool is None:
            return False
        return any(self._fits(name) for name in (tool, TOOL_NAMES.get(tool)) if name)

    def _fits(self, name: str) -> bool:
        if self.matcher == name:
            return True
        try:
            return re.fullmatch(self.matcher, name) is not None
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
    if data is not None:
        read_table(path, source, data.get("hooks"), into)


def read_table(path: Path, source: str, table: object, into: HookSettings) -> None:
    """One file's `hooks` table (None: the file has none)."""
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
        default = SESSION_END_TIMEOUT_S if event == "SessionEnd" else DEFAULT_TIMEOUT_S
        timeout = hook.get("timeout", default)
        fails = hook.get("onFailure")
        if fails is not None and fails not in FAILURES:
            into.warnings.append(f"{where}: onFailure must be one of {', '.join(FAILURES)}")
            continue
        if not isinstance(command, str) or not command.strip():
            into.warnings.append(f"{where}: a hook needs a command")
            continue
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            into.warnings.append(f"{where}: timeout must be a positive number of seconds")
            continue
        hook_ = HookCommand(event, matcher, command, float(timeout), source, path, fails)
        into.commands.append(hook_)


def load_hooks(config_dir: Path, cwd: Path) -> HookSettings:
    """Every hook of the user's, the project's and the local settings, ours and Claude Code's
    (trust is the runner's). A hook named in several files runs once, as in Claude Code."""
    from agent_tui.permissions.claude_settings import claude_files
    from agent_tui.permissions.settings import settings_paths

    settings = HookSettings()
    for source, path in settings_paths(cwd, config_dir).items():
        read_hooks(path, source, settings)
    for f in claude_files(cwd):
        if f.problem is None:
            read_table(f.path, f.source, f.data.get("hooks"), settings)
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for c in settings.commands:
        key = (c.event, c.matcher, c.command)
        if key not in seen:
            seen.add(key)
            unique.append(c)
    settings.commands = unique
    return settings
