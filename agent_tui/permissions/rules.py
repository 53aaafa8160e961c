"""Permission rules: parsing `Tool` / `Tool(content)` and matching one rule against one thing.

Syntax (DESIGN.md): `Bash` (any command), `Bash(git status)` (exactly), `Bash(npm run test:*)` (that
prefix, at a word boundary), `WebFetch(domain:example.com)` (`domain:*.example.com` for subdomains),
`WebSearch`, `Read(glob)`, `Edit(glob)` (also covers Write; `Write(glob)` is accepted as a synonym),
and bare tool names for any other tool.

Path globs: `*` and `?` stay within one path segment, `**` spans segments, `[...]` is a class. A
pattern without a slash (`.env`, `*.py`) matches that name at any depth; `dir/` means everything
below `dir`; other relative patterns are anchored at the working directory; `/abs` and `~/x` are
absolute.
"""

from __future__ import annotations

import enum
import ipaddress
import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from agent_tui.permissions.hosts import canonical_host

KNOWN_TOOLS = ("Bash", "Read", "Edit", "Write", "WebFetch", "WebSearch")
_TOOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]*")
_RULE = re.compile(r"([^()\s]+)(?:\((.*)\))?", re.DOTALL)
_HOST = re.compile(r"(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*")
_SHELL_OPERATORS = frozenset({";", "&", "&&", "|", "||", "|&", ";;", "(", ")"})


class RuleError(ValueError):
    """A rule that can't be parsed; the message says why, for the person."""


class Match(enum.Enum):
    NO = 0
    #: a part of the command isn't known statically where the rule looks (`rm $flags`)
    MAYBE = 1
    YES = 2


@dataclass(frozen=True, slots=True)
class Rule:
    """One permission rule, parsed (`parse_rule`): the tool it covers and what it matches."""

    #: the rule as written (stripped), which is what decisions name
    text: str
    #: the tool it covers; `Write(...)` rules are stored as "Edit"
    tool: str
    #: None for a bare tool name (the whole tool)
    content: str | None = None
    #: Bash: the words of the command or prefix, unquoted as the shell would
    tokens: tuple[str, ...] = ()
    prefix: bool = False
    #: WebFetch: the host in its canonical spelling (`hosts.canonical_host`), possibly
    #: "*.example.com"
    domain: str | None = None
    #: WebFetch: the rule wrote the host in that canonical spelling (`127.1` is not)
    canonical: bool = True

    def covers(self, tool: str) -> bool:
        if self.tool == tool or (self.tool == "Edit" and tool == "Write"):
            return True
        # `mcp__server` covers every tool of that server (`mcp__server__tool`)
        return (
            self.tool.startswith("mcp__")
            and self.tool.count("__") == 1
            and tool.startswith(self.tool + "__")
        )

    @property
    def bare(self) -> bool:
        return self.content is None


def parse_rule(text: str) -> Rule:
    """Parse one rule, raising `RuleError` with a message that says what is wrong."""
    raw = text.strip() if isinstance(text, str) else text
    if not isinstance(raw, str) or not raw:
        raise RuleError(f"empty or non-text rule: {text!r}")
    m = _RULE.fullmatch(raw)
    if m is None:
        raise RuleError(f"{raw!r}: expected `Tool` or `Tool(content)`")
    name, content = m.group(1), m.group(2)
    if not _TOOL_NAME.fullmatch(name):
        raise RuleError(f"{raw!r}: {name!r} is not a tool name")
    tool = "Edit" if name == "Write" else name
    if content is None:
        return Rule(text=raw, tool=tool)
    if not content.strip():
        raise RuleError(f"{raw!r}: empty parentheses (write `{name}` for the whole tool)")
    if tool == "Bash":
        return _bash_rule(raw, content)
    if tool == "WebFetch":
        return _webfetch_rule(raw, content)
    if tool in ("Read", "Edit"):
        if "\x00" in content or content != content.strip():
            raise RuleError(f"{raw!r}: a path glob may not contain NUL or surrounding spaces")
        return Rule(text=raw, tool=tool, content=content)
    raise RuleError(f"{raw!r}: {name} takes no `(...)`; write just `{name}`")


def _bash_rule(raw: str, content: str) -> Rule:
    prefix = content.endswith(":*")
    body = content[:-2] if prefix else content
    if prefix and not body.strip():
        raise RuleError(f"{raw!r}: an empty prefix; write `Bash` to cover every command")
    special = _unquoted(body, "*;&|<>()")
    if "*" in special:
        raise RuleError(f"{raw!r}: only a trailing `:*` wildcard is supported")
    if special:
        raise RuleError(f"{raw!r}: a rule names one simple command, not a list or pipeline")
    if "\n" in body or "$(" in body or "`" in body:
        raise RuleError(f"{raw!r}: a rule names one plain command, without substitutions")
    try:
        tokens = tuple(shlex.split(body))
    except ValueError as e:
        raise RuleError(f"{raw!r}: {e}") from None
    if not tokens:
        raise RuleError(f"{raw!r}: no command")
    if any(t in _SHELL_OPERATORS for t in tokens):
        raise RuleError(f"{raw!r}: a rule names one simple command, not a list or pipeline")
    return Rule(text=raw, tool="Bash", content=content, tokens=tokens, prefix=prefix)


def _unquoted(body: str, chars: str) -> set[str]:
    """Which of `chars` appear in `body` outside quotes and not backslash-escaped."""
    found: set[str] = set()
    quote = ""
    escaped = False
    for c in body:
        if escaped:
            escaped = False
        elif c == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in chars:
            found.add(c)
    return found


def _webfetch_rule(raw: str, content: str) -> Rule:
    if not content.startswith("domain:"):
        raise RuleError(f"{raw!r}: expected `WebFetch(domain:HOST)`")
    written = content[len("domain:") :].strip().lower().rstrip(".")
    wildcard = written.startswith("*.")
    host = canonical_host(written[2:] if wildcard else written)
    try:
        ipaddress.ip_address(host)
        ip_literal = True
    except ValueError:
        ip_literal = False
    if not (ip_literal and not wildcard) and not _HOST.fullmatch(host):
        raise RuleError(f"{raw!r}: {written!r} is not a host name")
    domain = ("*." if wildcard else "") + host
    return Rule(
        text=raw, tool="WebFetch", content=content, domain=domain, canonical=domain == written
    )


# --- matching ---------------------------------------------------------------------------------


def match_command(
    rule: Rule, argv: Sequence[str | None], *, open_args: bool = False, basename: bool = False
) -> Match:
    """Does a Bash rule cover one simple command? `None` words aren't known statically.

    `open_args`: more arguments are appended at run time (xargs, find -exec), so an exact rule
    can't be proven to match. `basename`: also compare the command's last path segment, so a deny
    rule for `rm` catches `/bin/rm`; allow rules never use it (`./ls` is not `ls`).
    """
    if rule.bare:
        return Match.YES
    if not argv:
        return Match.NO
    tokens = rule.tokens
    if len(argv) < len(tokens) or (not rule.prefix and len(argv) > len(tokens)):
        return Match.NO
    maybe = False
    for i, (want, got) in enumerate(zip(tokens, argv, strict=False)):
        if got is None:
            maybe = True
        elif got != want and not (i == 0 and basename and got.rsplit("/", 1)[-1] == want):
            return Match.NO
    if not rule.prefix and open_args:
        maybe = True
    return Match.MAYBE if maybe else Match.YES


def match_host(rule: Rule, host: str) -> bool:
    """Does a WebFetch rule cover `host` (compared in canonical spelling)?"""
    if rule.bare:
        return True
    host = canonical_host(host)
    domain = rule.domain or ""
    if domain.startswith("*."):
        return host.endswith(domain[1:])
    return host == domain


def match_path(rule: Rule, path: Path, cwd: Path) -> bool:
    """Does a Read/Edit rule's glob cover `path` (absolute; resolved by the caller)?"""
    if rule.bare:
        return True
    assert rule.content is not None
    return _compile_glob(rule.content, str(cwd)).fullmatch(path.as_posix()) is not None


@lru_cache(maxsize=512)
def _compile_glob(pattern: str, cwd: str) -> re.Pattern[str]:
    if pattern.endswith("/"):
        pattern += "**"
    if pattern.startswith("~"):
        pattern = os.path.expanduser(pattern)
    if pattern.startswith("//"):
        pattern = pattern[1:]  # Claude Code's spelling of an absolute path
    if pattern.startswith("/"):
        anchor = ""
    elif "/" in pattern:
        anchor = Path(cwd).as_posix().rstrip("/") + "/"
        pattern = pattern.removeprefix("./")
    else:
        return re.compile(r"(?:.*/)?" + _glob_to_regex(pattern))
    full = os.path.normpath(anchor + pattern).replace(os.sep, "/")
    return re.compile(_glob_to_regex(full))


def _glob_to_regex(glob: str) -> str:
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if glob.startswith("**/", i):
            out.append(r"(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(r".*")
            i += 2
        elif c == "*":
            out.append(r"[^/]*")
            i += 1
        elif c == "?":
            out.append(r"[^/]")
            i += 1
        elif c == "[" and (end := glob.find("]", i + 2)) != -1:
            body = glob[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\").replace("/", "") + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def format_bash_rule(argv: Sequence[str], *, prefix: bool) -> str:
    """`Bash(<words>)` or `Bash(<words>:*)`, quoting words the way `parse_rule` reads them back."""
    body = " ".join(shlex.quote(w) for w in argv)
    return f"Bash({body}:*)" if prefix else f"Bash({body})"


def split_rules(line: str) -> tuple[str, ...]:
    """`Bash(git log:*), Read(src/**)` -> the two rules (commas inside parentheses stay)."""
    rules, depth, start = [], 0, 0
    for i, ch in enumerate(line):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            rules.append(line[start:i])
            start = i + 1
    rules.append(line[start:])
    return tuple(r.strip() for r in rules if r.strip())
