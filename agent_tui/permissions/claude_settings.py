"""Claude Code's settings files, read beside our TOML so a Claude Code user's set-up carries over.

Files, lowest precedence first (Claude Code's order: managed > command line > local > project >
user; for permission rules every file counts and deny beats allow across all of them):

  user     ~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json when set)
  project  <cwd>/.claude/settings.json                  arrives with the repository: restricted
  local    <cwd>/.claude/settings.local.json            restricted, like the project's
  cli      --settings FILE-or-JSON                       the person's own, for this run
  managed  /etc/claude-code/managed-settings.json (macOS: /Library/Application Support/ClaudeCode)

Keys read: `permissions` (allow, ask, deny, defaultMode, additionalDirectories), `hooks`, `env`,
`sandbox`, `model`, `statusLine`. The two project files give only what our project TOML may
give, and only once the project is trusted: rules (grants wait for trust; ask and deny rules
always apply), hooks and a `defaultMode` of `plan`. What widens the agent — `env`, `model`,
`sandbox`, a wider `defaultMode`, `additionalDirectories`, `apiKeyHelper` — counts only from
the person's own files (user, cli, managed), and is named and ignored in a project's (so is
`statusLine`, which runs a command).
`apiKeyHelper` and `outputStyle` are said to be ignored; any other key agent-tui doesn't use is
listed once per file.

Where our TOML and these files set the same thing: rules and hooks add up (deny wins); the sandbox
table is merged with ours winning key by key; the command line wins over every file.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: the sources, lowest precedence first
SOURCES = ("user", "project", "local", "cli", "managed")
#: the sources the person writes (a project's files are the others)
OWN_SOURCES = frozenset({"user", "cli", "managed"})
#: keys read from these files
USED_KEYS = frozenset({"permissions", "hooks", "env", "sandbox", "model", "statusLine", "$schema"})
#: keys Claude Code has that agent-tui says it ignores (with why)
IGNORED_KEYS = {
    "apiKeyHelper": "agent-tui reads the key from ANTHROPIC_API_KEY (or the platform's login)",
    "outputStyle": "agent-tui has no output styles",
}
#: `permissions` keys read
PERMISSION_KEYS = ("allow", "ask", "deny", "defaultMode", "additionalDirectories")
#: Claude Code's permission modes in ours (None: no equivalent)
MODES: dict[str, str | None] = {
    "default": "default",
    "acceptEdits": "accept-edits",
    "plan": "plan",
    "bypassPermissions": "yolo",
    "dontAsk": None,
    "auto": None,
}
#: a managed file's place, per platform (Claude Code's)
MANAGED_FILE = (
    Path("/Library/Application Support/ClaudeCode/managed-settings.json")
    if sys.platform == "darwin"
    else Path("/etc/claude-code/managed-settings.json")
)

#: `--settings` values given on this run's command line (a file, or JSON text)
_cli_settings: list[str] = []


def use_cli_settings(values: Sequence[str]) -> None:
    """This run's `--settings` (each a file path or a JSON object's text), read as the `cli`
    source. Called once by the command line, before anything reads settings."""
    _cli_settings[:] = list(values)


def claude_dir() -> Path:
    """The person's Claude Code folder: $CLAUDE_CONFIG_DIR, else ~/.claude."""
    value = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(value).expanduser() if value else Path.home() / ".claude"


@dataclass(frozen=True)
class ClaudeFile:
    """One settings file as read: its source, where it is (or `--settings` for JSON text), its
    top-level object ({} when absent or unusable) and why it couldn't be used."""

    source: str
    path: Path
    data: dict[str, Any] = field(default_factory=dict)
    #: why the file is there but can't be used (not JSON, not an object, unreadable), or None
    problem: str | None = None

    @property
    def own(self) -> bool:
        return self.source in OWN_SOURCES

    def table(self, key: str) -> dict[str, Any]:
        value = self.data.get(key)
        return value if isinstance(value, dict) else {}


def file_paths(cwd: Path) -> list[tuple[str, Path]]:
    """The files that may hold settings, lowest precedence first (`--settings` JSON text is
    not a file and not listed)."""
    cwd = cwd.resolve()
    paths = [
        ("user", claude_dir() / "settings.json"),
        ("project", cwd / ".claude" / "settings.json"),
        ("local", cwd / ".claude" / "settings.local.json"),
    ]
    paths += [("cli", Path(v).expanduser()) for v in _cli_settings if not _is_json(v)]
    paths.append(("managed", MANAGED_FILE))
    return paths


def _is_json(value: str) -> bool:
    return value.lstrip().startswith("{")


_cache: dict[tuple[str, int, int], ClaudeFile] = {}


def read_file(source: str, path: Path) -> ClaudeFile | None:
    """The file, or None when there is none (kept while it is unchanged: several parts of a
    start read the same files)."""
    try:
        st = path.stat()
    except OSError:
        return None
    key = (f"{source}:{path}", st.st_mtime_ns, st.st_size)
    found = _cache.get(key)
    if found is None:
        try:
            text = path.read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            found = ClaudeFile(source, path, problem=f"can't be read ({exc})")
        else:
            found = parse(source, path, text)
        _cache[key] = found
    return found


def parse(source: str, path: Path, text: str) -> ClaudeFile:
    try:
        data = json.loads(text)
    except ValueError as exc:
        return ClaudeFile(source, path, problem=f"is not JSON ({exc})")
    if not isinstance(data, dict):
        return ClaudeFile(source, path, problem="is not a JSON object")
    return ClaudeFile(source, path, data)


def claude_files(cwd: Path) -> list[ClaudeFile]:
    """Every settings file present, lowest precedence first."""
    found = [f for source, path in file_paths(cwd) if (f := read_file(source, path)) is not None]
    # `--settings '{"model": …}'`: JSON text sits with the cli files, under the managed one
    cli = [parse("cli", Path("--settings"), v) for v in _cli_settings if _is_json(v)]
    at = next((i for i, f in enumerate(found) if f.source == "managed"), len(found))
    return [*found[:at], *cli, *found[at:]]


def file_warnings(f: ClaudeFile) -> list[str]:
    """What the start says about one file: keys ignored (and why), keys not used, and the
    settings a project's file may not hold."""
    out: list[str] = []
    for key, why in IGNORED_KEYS.items():
        if key in f.data:
            out.append(f"{f.path}: `{key}` is ignored: {why}")
    unused = sorted(k for k in f.data if k not in USED_KEYS and k not in IGNORED_KEYS)
    if unused:
        out.append(f"{f.path}: not used by agent-tui: {', '.join(unused)}")
    if not f.own:
        refused: list[str] = [k for k in ("env", "model", "sandbox", "statusLine") if k in f.data]
        perms = f.table("permissions")
        if "additionalDirectories" in perms:
            refused.append("permissions.additionalDirectories")
        mode = perms.get("defaultMode")
        if mode is not None and mode != "plan" and MODES.get(mode) is not None:
            refused.append(f"permissions.defaultMode ({mode})")
        for key in refused:
            out.append(
                f"{f.path}: `{key}` ignored: a project's settings may not set it "
                "(put it in your own ~/.claude/settings.json)"
            )
    for key in f.table("permissions"):
        if key not in PERMISSION_KEYS:
            out.append(f"{f.path}: permissions.{key} is not used by agent-tui")
    mode = f.table("permissions").get("defaultMode")
    if mode is not None and MODES.get(mode) is None:
        what = "has no equivalent here" if mode in MODES else "is not a Claude Code mode"
        out.append(f"{f.path}: permissions.defaultMode {mode!r} {what}; ignored")
    return out


def _highest(cwd: Path, pick: Any) -> tuple[Any, ClaudeFile] | None:
    """The value `pick(file)` gives in the highest-precedence file that gives one."""
    for f in reversed(claude_files(cwd)):
        value = pick(f)
        if value is not None:
            return value, f
    return None


def status_line(cwd: Path) -> str | None:
    """`statusLine`'s command (`{"type": "command", "command": …}`) from the person's own files
    (a project's would run its code unasked; it is named and ignored)."""

    def pick(f: ClaudeFile) -> str | None:
        line = f.table("statusLine")
        command = line.get("command")
        if not (f.own and line.get("type", "command") == "command"):
            return None
        return command if isinstance(command, str) and command.strip() else None

    found = _highest(cwd, pick)
    return found[0] if found else None


def default_mode(cwd: Path) -> tuple[str, str] | None:
    """(our mode, the file it came from) for `permissions.defaultMode`: a project's file may only
    choose `plan`; a mode without an equivalent here is left out (its file's warning says so)."""

    def pick(f: ClaudeFile) -> str | None:
        mode = f.table("permissions").get("defaultMode")
        ours = MODES.get(mode) if isinstance(mode, str) else None
        if ours is None or (not f.own and ours != "plan"):
            return None
        return ours

    found = _highest(cwd, pick)
    return (found[0], str(found[1].path)) if found else None


def model(cwd: Path) -> str | None:
    """`model` from the person's own files (a project's may not choose what is billed)."""
    found = _highest(cwd, lambda f: f.data.get("model") if f.own else None)
    return found[0] if found and isinstance(found[0], str) and found[0].strip() else None


def additional_directories(cwd: Path) -> list[Path]:
    """`permissions.additionalDirectories` of the person's own files, every file's (the list adds
    up, as rules do); relative paths are taken from the working directory."""
    dirs: list[Path] = []
    for f in claude_files(cwd):
        value = f.table("permissions").get("additionalDirectories")
        if f.own and isinstance(value, list):
            dirs += [(cwd / os.path.expanduser(v)).resolve() for v in value if isinstance(v, str)]
    return list(dict.fromkeys(dirs))


def env(cwd: Path) -> dict[str, str]:
    """`env` of the person's own files, higher precedence winning per name."""
    out: dict[str, str] = {}
    for f in claude_files(cwd):
        if f.own:
            out.update({k: str(v) for k, v in f.table("env").items() if isinstance(k, str)})
    return out


def apply_env(cwd: Path) -> list[str]:
    """Set the person's `env` in this process (so the provider, tools and hooks see it), leaving
    alone a variable the environment already has (the command line's choice is the nearer one).
    Returns the names set."""
    done = []
    for name, value in env(cwd).items():
        if name and "=" not in name and "\x00" not in value and name not in os.environ:
            os.environ[name] = value
            done.append(name)
    return done


def user_sandbox(cwd: Path | None = None) -> dict[str, Any]:
    """The person's Claude Code `sandbox` table, merged from their own files only (user,
    `--settings`, managed: higher precedence winning key by key, nested tables merged). A
    project's file never widens the sandbox, so its `sandbox` is not read."""
    merged: dict[str, Any] = {}
    for f in claude_files(cwd or Path.cwd()):
        if f.own:
            merged = merge(merged, f.table("sandbox"))
    return merged


def merge(low: dict[str, Any], high: dict[str, Any]) -> dict[str, Any]:
    """`high` over `low`, key by key; tables merged, anything else replaced."""
    out = dict(low)
    for key, value in high.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out
