"""Permission rules from Claude Code's settings files (`claude_settings`), in our rule syntax.

Claude Code's spellings that differ from ours are translated, never guessed at:
- `Bash(npm run *)` (a trailing ` *`: that prefix at a word boundary) is our `Bash(npm run:*)`;
  `Bash(*)` is `Bash`; a `*` anywhere else has no equivalent;
- `Read(//abs/path)` is absolute, `Read(/src/**)` relative to the project root (our `./src/**`),
  `~/`, `./` and bare patterns mean what they mean here;
- the tools Claude Code renamed: `Agent` is our `Task`, `TaskOutput` our `BashOutput`, `TaskStop`
  our `KillShell`; `MultiEdit` and `Write` are `Edit`; `mcp__server__*` is `mcp__server`.

A rule that can't be translated is reported and never widens access: an allow rule is dropped; a
deny or ask rule with no equivalent makes its tool ask (fail closed), unless it names a tool
agent-tui doesn't have (`Skill(...)`, `NotebookEdit`), which nothing can call here anyway.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from agent_tui.permissions.claude_settings import ClaudeFile, claude_files, file_warnings
from agent_tui.permissions.settings import BEHAVIORS, LoadedRules, add_rules

#: Claude Code's tool names for ours
TOOL_ALIASES = {
    "Agent": "Task",
    "TaskOutput": "BashOutput",
    "TaskStop": "KillShell",
    "KillBash": "KillShell",
    "MultiEdit": "Edit",
}
#: tools agent-tui has (rules for any other name can't match a call here)
OUR_TOOLS = frozenset(
    {"Bash", "Read", "Write", "Edit", "Grep", "Glob", "TodoWrite", "WebFetch", "WebSearch"}
    | {"BashOutput", "KillShell", "Task", "ToolSearch"}
)
_RULE = re.compile(r"([^()\s]+)(?:\((.*)\))?", re.DOTALL)


class Untranslatable(ValueError):
    """A Claude Code rule with no equivalent here; the message says why."""


def translate(text: str) -> str | None:
    """Our spelling of a Claude Code rule; None for a rule about a tool agent-tui doesn't have.
    Raises `Untranslatable` for one it can't express."""
    m = _RULE.fullmatch(text.strip())
    if m is None:
        return text  # our parser says what is wrong with it
    name, content = m.group(1), m.group(2)
    name = TOOL_ALIASES.get(name, name)
    if name.startswith("mcp__"):
        server = name.removesuffix("__*")
        return server if content is None else f"{server}({content})"
    if name not in OUR_TOOLS:
        return None
    if content is None:
        return name
    if name == "Bash":
        return _bash(text, content)
    if name in ("Read", "Edit", "Write"):
        return f"{name}({_path(content)})"
    if name == "Task":
        raise Untranslatable(f"{text}: rules for one sub-agent type are not supported")
    return f"{name}({content})"


def _bash(text: str, content: str) -> str:
    body = content.strip()
    if body == "*":
        return "Bash"
    if body.endswith(" *"):
        body = body[:-2].rstrip() + ":*"
    if "*" in body.removesuffix(":*"):
        raise Untranslatable(f"{text}: only a trailing ` *` (or `:*`) wildcard has an equivalent")
    return f"Bash({body})"


def _path(content: str) -> str:
    if content.startswith("//"):
        return content[1:]  # absolute
    if content.startswith("/"):
        return "." + content  # relative to the project root
    return content


def read_all(cwd: Path, into: LoadedRules) -> None:
    """Every Claude Code settings file's rules and warnings, into `into`."""
    for f in claude_files(cwd):
        read_rules(f, into)
        into.warnings += file_warnings(f)


def read_rules(f: ClaudeFile, into: LoadedRules) -> None:
    """The file's allow, ask and deny rules, translated, into `into` (with `f.source`)."""
    if f.problem:
        # Its deny rules are unknown, so nothing may run without asking until it is fixed.
        into.warnings.append(f"{f.path} {f.problem}; asking for every tool until fixed")
        into.fallback.append(("*", f"{f.path} {f.problem}"))
        return
    perms = f.data.get("permissions", {})
    if not isinstance(perms, dict):
        into.warnings.append(f"{f.path}: `permissions` should be an object; asking for every tool")
        into.fallback.append(("*", f"{f.path} has a malformed `permissions`"))
        return
    for behavior in BEHAVIORS:
        value = perms.get(behavior, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            into.warnings.append(f"{f.path}: permissions.{behavior} should be a list of strings")
            if behavior != "allow":
                into.fallback.append(("*", f"{f.path} has a malformed permissions.{behavior}"))
            continue
        texts = []
        for text in value:
            try:
                ours = translate(text)
            except Untranslatable as exc:
                _refuse(f, behavior, text, str(exc), into)
                continue
            if ours is None:
                into.warnings.append(
                    f"{f.path}: {behavior} rule {text} names a tool agent-tui doesn't have; "
                    "it can't match anything here"
                )
            else:
                texts.append(ours)
        add_rules(texts, behavior, f.source, into, where=str(f.path), path=f.path)


def _refuse(f: ClaudeFile, behavior: str, text: str, why: str, into: LoadedRules) -> None:
    if behavior == "allow":
        into.warnings.append(f"{f.path}: allow rule ignored: {why}")
        return
    m = _RULE.fullmatch(text.strip())
    tool = TOOL_ALIASES.get(m.group(1), m.group(1)) if m else "*"
    tool = "Edit" if tool == "Write" else tool
    into.warnings.append(f"{f.path}: {why}; {tool} asks until the rule is rewritten")
    into.fallback.append((tool, f"a {behavior} rule {text!r} in {f.path} has no equivalent"))


def remove_json_rule(path: Path, behavior: str, rule: str) -> None:
    """Take the entries of `permissions.<behavior>` in a Claude Code settings file that read as
    `rule` here out of it, keeping everything else (JSON keeps no comments to lose); atomic
    write. Raises SettingsError when it can't."""
    from agent_tui.permissions.settings import SettingsError, write_atomic

    try:
        data = json.loads(path.read_text("utf-8"))
        entries = data["permissions"][behavior]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as e:
        raise SettingsError(f"{path}: can't be read, so nothing was changed ({e})") from e
    if not isinstance(entries, list):
        raise SettingsError(f"{path}: permissions.{behavior} is not a list")
    kept = [e for e in entries if not (isinstance(e, str) and _reads_as(e, rule))]
    if len(kept) == len(entries):
        raise SettingsError(f"{path}: {rule} is not in permissions.{behavior}")
    data["permissions"][behavior] = kept
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _reads_as(entry: str, rule: str) -> bool:
    try:
        return translate(entry) == rule
    except Untranslatable:
        return False
