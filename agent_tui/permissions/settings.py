"""Permission rules from TOML settings files and command-line flags, and saving "always" answers.

Files, each with `[permissions] allow = [...] ask = [...] deny = [...]`:
  user     <config_dir>/settings.toml                 trusted: written by the person
  project  <cwd>/.agent-tui/settings.toml             comes with the repository: restricted
  local    <cwd>/.agent-tui/settings.local.toml       "always" answers go here: restricted
The two files inside the project directory arrive with whatever repository was cloned, so they may
only narrow trust or add modest allow rules: they may not set the API base URL, key or token (a
repository once redirected the base URL and leaked the key; such keys are ignored with a warning),
nor choose the permission mode, nor allow everything (`Bash`, `Edit`), an interpreter or wrapper by
prefix (`Bash(python:*)` runs any code), paths outside the project, or fetches from local hosts.

A rule that can't be parsed is reported and never widens access: a bad allow rule is dropped; a
bad deny or ask rule (or a file that can't be read) makes its tool, or every tool when that can't
be told, ask until it is fixed.
"""

from __future__ import annotations

import ipaddress
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.permissions.rules import KNOWN_TOOLS, Rule, RuleError, parse_rule
from agent_tui.permissions.types import Behavior
from agent_tui.toml_file import TomlFileError, read_toml

USER_FILE = "settings.toml"
PROJECT_DIR = ".agent-tui"
PROJECT_FILE = "settings.toml"
LOCAL_FILE = "settings.local.toml"
BEHAVIORS: tuple[Behavior, ...] = ("allow", "ask", "deny")
ALL_TOOLS = "*"

# Commands that run whatever they are given: a prefix rule on one allows any code.
CODE_RUNNERS = frozenset(
    {"eval", "exec", "env", "sudo", "doas", "su", "xargs", "nohup", "time", "nice", "timeout"}
    | {"command", "builtin", "setsid", "stdbuf", "watch", "ssh", "script", "flock", "chroot"}
    | {"busybox", "npx", "pnpx", "bunx", "uvx", "pipx", "awk", "gawk", "sed", "find", "source"}
    | {".", "parallel", "strace", "ltrace", "gdb", "valgrind", "runuser", "unbuffer", "ionice"}
    | {"chrt", "taskset", "make", "docker", "podman", "kubectl", "osascript", "open", "xdg-open"}
)
_FORBIDDEN_KEY = re.compile(
    r"(anthropic_\w+|base_?url|api_?key(_?helper)?|auth_?token|api_?base|endpoint|headers?|env)"
)


class SettingsError(Exception):
    """A settings file that can't be read or written."""


@dataclass(frozen=True, slots=True)
class SourcedRule:
    """A rule with what it does (allow, ask or deny) and the settings it came from."""

    rule: Rule
    behavior: Behavior
    #: "user", "project", "local", "cli", "managed" or "session"
    source: str
    #: the file it was read from, when that isn't the source's TOML file (a Claude Code
    #: settings.json: `claude_rules`)
    path: Path | None = None


@dataclass
class LoadedRules:
    """What `load_rules` read from every settings file and flag: the rules, what broken rules make
    ask, warnings, and the grants withheld."""

    rules: list[SourcedRule] = field(default_factory=list)
    #: (tool or "*", why): a bad deny/ask rule makes these ask, even in yolo mode
    fallback: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: grants from project files that are not trusted yet: (source, rule), withheld
    untrusted: list[SourcedRule] = field(default_factory=list)


def settings_paths(cwd: Path, config_dir: Path) -> dict[str, Path]:
    return {
        "user": config_dir / USER_FILE,
        "project": cwd / PROJECT_DIR / PROJECT_FILE,
        "local": cwd / PROJECT_DIR / LOCAL_FILE,
    }


def load_rules(
    cwd: Path,
    config_dir: Path,
    allow: Iterable[str] = (),
    deny: Iterable[str] = (),
    trusted: Iterable[str] = ("project", "local"),
    own: frozenset[str] = frozenset(),
    more: Iterable[Callable[[LoadedRules], None]] = (),
) -> LoadedRules:
    """Rules from every file and flag; grants from project files not in `trusted` are withheld
    (in `untrusted`), while their ask and deny rules always apply. `own`: rules the app saved to
    the local file for the person, which need no trust. `more`: readers of other files whose rules
    count as these do (Claude Code's settings.json files)."""
    out = LoadedRules()
    trusted = frozenset(trusted)
    for source, path in settings_paths(cwd, config_dir).items():
        read_file(path, source, out)
    for read in more:  # Claude Code's settings files (`claude_rules.read_all`)
        read(out)
    grants = [
        r
        for r in out.rules
        if r.source in ("project", "local")
        and r.source not in trusted
        and is_grant(r)
        and not (r.source == "local" and r.path is None and r.rule.text in own)
    ]
    out.rules = [r for r in out.rules if r not in grants]
    out.untrusted.extend(grants)
    add_rules(allow, "allow", "cli", out)
    add_rules(deny, "deny", "cli", out)
    return out


def read_file(path: Path, source: str, into: LoadedRules) -> None:
    try:
        data = read_toml(path)
    except TomlFileError as e:
        # Its deny rules are unknown, so nothing may run without asking until it is fixed.
        into.warnings.append(f"{path}: can't be read ({e}); asking for every tool until fixed")
        into.fallback.append((ALL_TOOLS, f"{path} can't be read"))
        return
    if data is None:
        return
    restricted = source in ("project", "local")
    if restricted:
        for key in forbidden_keys(data):
            into.warnings.append(f"{path}: `{key}` ignored: a project's settings may not set it")
    perms = data.get("permissions", {})
    if not isinstance(perms, dict):
        into.warnings.append(f"{path}: `permissions` should be a table; asking for every tool")
        into.fallback.append((ALL_TOOLS, f"{path} has a malformed [permissions]"))
        return
    for key, value in perms.items():
        if key not in BEHAVIORS:
            into.warnings.append(f"{path}: [permissions] `{key}` is not a known key; ignored")
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            into.warnings.append(f"{path}: permissions.{key} should be a list of strings")
            if key != "allow":
                into.fallback.append((ALL_TOOLS, f"{path} has a malformed permissions.{key}"))
            continue
        add_rules(value, key, source, into, where=str(path))


def add_rules(
    texts: Iterable[str],
    behavior: Behavior,
    source: str,
    into: LoadedRules,
    where: str = "",
    path: Path | None = None,
) -> None:
    where = where or ("--" + behavior if source == "cli" else source)
    for text in texts:
        try:
            rule = parse_rule(text)
        except RuleError as e:
            into.warnings.append(f"{where}: bad {behavior} rule: {e}")
            if behavior != "allow":
                tool = _tool_of(text)
                into.fallback.append((tool, f"a bad {behavior} rule {text!r} in {where}"))
            continue
        if source in ("project", "local") and behavior == "allow":
            refused = restriction(rule)
            if refused:
                into.warnings.append(f"{where}: allow rule {rule.text} ignored: {refused}")
                continue
        into.rules.append(SourcedRule(rule, behavior, source, path))


def is_grant(r: SourcedRule) -> bool:
    """An allow rule that grants more than reading files."""
    return r.behavior == "allow" and r.rule.tool != "Read"


def _tool_of(text: object) -> str:
    """The tool a malformed rule was meant for, when recognisable, else every tool."""
    if isinstance(text, str):
        name = re.split(r"[(\s]", text.strip(), maxsplit=1)[0]
        if name in KNOWN_TOOLS:
            return "Edit" if name == "Write" else name
    return ALL_TOOLS


def restriction(rule: Rule) -> str | None:
    """Why a project-directory file may not hold this allow rule, or None if it may."""
    if rule.bare and rule.tool in ("Bash", "Edit", "WebFetch"):
        return f"`{rule.text}` would allow every use of the tool"
    if rule.tool == "Bash" and rule.prefix:
        from agent_tui.permissions.analysis import INTERPRETER, SHELLS  # the shell's tables

        first = rule.tokens[0].rsplit("/", 1)[-1]
        runner = first in CODE_RUNNERS and len(rule.tokens) == 1
        if runner or first in SHELLS or INTERPRETER.fullmatch(first):
            return f"a prefix rule for `{first}` allows running any code"
    if rule.tool in ("Read", "Edit") and rule.content is not None:
        c = rule.content
        if c.startswith(("/", "~")) or ".." in c.split("/"):
            return "a project may only name paths inside itself"
    if rule.tool == "WebFetch" and rule.domain and _is_local_host(rule.domain):
        return "a project may not allow fetching from local hosts"
    return None


def _is_local_host(host: str) -> bool:
    if host in ("localhost", "localhost.localdomain") or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private or ip.is_link_local or ip.is_unspecified


def forbidden_keys(data: dict[str, Any], prefix: str = "") -> list[str]:
    """Dotted keys a project's settings may not set (API base URL, key, token, mode, env)."""
    found: list[str] = []
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        norm = str(key).lower().replace("-", "_")
        if _FORBIDDEN_KEY.fullmatch(norm) or (prefix == "permissions." and "mode" in norm):
            found.append(dotted)
        elif isinstance(value, dict):
            found.extend(forbidden_keys(value, dotted + "."))
    return found


# --- saving "always" answers ------------------------------------------------------------------


def append_allow_rules(path: Path, rules: Sequence[str]) -> None:
    """Append rules to `permissions.allow` in `path`, keeping everything else; atomic write."""
    import tomllib  # with a file to change, not at start-up (issue 34)

    try:
        text = path.read_text("utf-8") if path.exists() else ""
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise SettingsError(f"{path}: can't be read, so nothing was saved ({e})") from e
    perms = data.get("permissions", {})
    existing = perms.get("allow", []) if isinstance(perms, dict) else None
    if not isinstance(existing, list):
        raise SettingsError(f"{path}: permissions.allow is not a list; nothing was saved")
    new = [r for r in dict.fromkeys(rules) if r not in existing]
    if not new:
        return
    updated = _with_rules(text, new)
    try:
        after = tomllib.loads(updated)
    except tomllib.TOMLDecodeError:
        after = {}
    want = {**data, "permissions": {**perms, "allow": existing + new}}
    if after != want:
        raise SettingsError(f"{path}: its layout is too unusual to edit safely; nothing was saved")
    write_atomic(path, updated)


def remove_rule(path: Path, behavior: str, rule: str) -> None:
    """Take `rule` out of `permissions.<behavior>` in `path`, keeping everything else (comments
    inside that one array excepted); atomic write. Raises SettingsError when it can't."""
    import tomllib  # with a file to change, not at start-up (issue 34)

    try:
        text = path.read_text("utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise SettingsError(f"{path}: can't be read, so nothing was changed ({e})") from e
    perms = data.get("permissions", {})
    existing = perms.get(behavior) if isinstance(perms, dict) else None
    if not isinstance(existing, list) or rule not in existing:
        raise SettingsError(f"{path}: {rule} is not in permissions.{behavior}")
    kept = [r for r in existing if r != rule]
    header = _HEADER.search(text)
    key = None
    if header is not None:
        nxt = _ANY_HEADER.search(text, header.end() + 1)
        pattern = re.compile(rf"^[ \t]*{behavior}[ \t]*=[ \t]*(?=\[)", re.MULTILINE)
        key = pattern.search(text, header.end(), nxt.start() if nxt else len(text))
    if key is None:
        raise SettingsError(f"{path}: its layout is too unusual to edit safely; nothing changed")
    close, _ = _array_end(text, key.end())
    items = "".join(f"  {toml_string(r)},\n" for r in kept)
    updated = f"{text[: key.end()]}[\n{items}]{text[close + 1 :]}"
    try:
        after = tomllib.loads(updated)
    except tomllib.TOMLDecodeError:
        after = {}
    if after != {**data, "permissions": {**perms, behavior: kept}}:
        raise SettingsError(f"{path}: its layout is too unusual to edit safely; nothing changed")
    write_atomic(path, updated)


_HEADER = re.compile(r"^[ \t]*\[[ \t]*permissions[ \t]*\][ \t]*(#.*)?$", re.MULTILINE)
_ANY_HEADER = re.compile(r"^[ \t]*\[", re.MULTILINE)
_ALLOW_KEY = re.compile(r"^[ \t]*allow[ \t]*=[ \t]*(?=\[)", re.MULTILINE)


def _with_rules(text: str, new: Sequence[str]) -> str:
    items = "".join(f"  {toml_string(r)},\n" for r in new)
    header = _HEADER.search(text)
    if header is None:
        intro = (
            ""
            if text
            else '# Rules saved by agent-tui\'s "always" answers (personal: keep out of git).\n'
        )
        sep = "" if not text or text.endswith("\n") else "\n"
        return f"{text}{sep}{intro}[permissions]\nallow = [\n{items}]\n"
    body_start = header.end()
    nxt = _ANY_HEADER.search(text, body_start + 1)
    body_end = nxt.start() if nxt else len(text)
    key = _ALLOW_KEY.search(text, body_start, body_end)
    if key is None:
        return f"{text[:body_start]}\nallow = [\n{items}]{text[body_start:]}"
    close, last = _array_end(text, key.end())
    lead = "" if last in ",[" else ","
    return f"{text[:close]}{lead}\n{items}{text[close:]}"


def _array_end(text: str, start: int) -> tuple[int, str]:
    """Index of the `]` closing the array opened at `start`, and the last significant char."""
    depth, i, last = 0, start, ""
    while i < len(text):
        c = text[i]
        if c == "#":
            i = text.find("\n", i)
            if i < 0:
                break
            continue
        if c in "\"'":
            q = c * 3 if text.startswith(c * 3, i) else c
            j = i + len(q)
            while j < len(text) and not text.startswith(q, j):
                j += 2 if c == '"' and text[j] == "\\" else 1
            i, last = j + len(q), c
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return i, last
        if not c.isspace():
            last = c
        i += 1
    raise SettingsError("unterminated array")


def toml_string(s: str) -> str:
    out = ['"']
    for c in s:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def ignore_in_git(project: Path, local_file: Path) -> bool:
    """Add the local settings file to the project's `.gitignore` (it holds one person's "always"
    answers, not the project's), when the project is a git work tree and it isn't listed yet.
    Returns whether the `.gitignore` was changed."""
    if not any((d / ".git").exists() for d in (project, *project.parents)):
        return False
    try:
        entry = local_file.relative_to(project).as_posix()
    except ValueError:
        return False
    gitignore = project / ".gitignore"
    try:
        text = gitignore.read_text("utf-8") if gitignore.exists() else ""
    except (OSError, UnicodeDecodeError):
        return False
    if any(line.strip() in (entry, "/" + entry) for line in text.splitlines()):
        return False
    sep = "" if not text or text.endswith("\n") else "\n"
    with open(gitignore, "a", encoding="utf-8") as f:
        f.write(f"{sep}# agent-tui: one person's saved approvals\n{entry}\n")
    return True
