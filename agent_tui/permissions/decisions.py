"""Decisions the engine and the Bash check both make: by a rule, refused by plan mode, the
`Edit(...)` rule an "always" answer would save for one file, the `Read(...)` rules that cover a
path."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from agent_tui.permissions.rules import match_path
from agent_tui.permissions.settings import SourcedRule
from agent_tui.permissions.types import Behavior, Decision


def rule_reason(behavior: str, r: SourcedRule, reason: str = "") -> str:
    """Why, naming the rule and, for a settings file, which one."""
    where = f" ({r.source} settings)" if r.source in ("user", "project", "local") else ""
    if r.path is not None:  # a Claude Code settings.json: name the file
        where = f" ({r.path})"
    return (reason or f"{behavior} rule {r.rule.text}") + where


def by_rule(behavior: Behavior, r: SourcedRule, reason: str = "") -> Decision:
    return Decision(
        behavior,
        rule=r.rule.text,
        reason=rule_reason(behavior, r, reason),
        source="rule",
        rule_source=r.source,
    )


def plan_denied(tool: str) -> Decision:
    # Said so the model doesn't ask the person to approve what plan mode would refuse anyway.
    return Decision(
        "deny",
        reason=f"plan mode runs only read-only tools and commands inside the project, and this "
        f"{tool} call is not one; it can't be approved in plan mode (the person can leave plan "
        "mode with shift+tab)",
        source="mode",
    )


def edit_rule(path: Path, cwd: Path) -> str | None:
    """`Edit(<path relative to cwd>)`, anchored so it covers just this file, or None."""
    try:
        rel = path.relative_to(cwd).as_posix()
    except ValueError:
        return None
    if rel == "." or any(c in rel for c in "*?[]()\n") or rel != rel.strip():
        return None
    return f"Edit({rel if '/' in rel else './' + rel})"


#: sources of rules that are the person's own (a project's can't name places outside it)
_OWN = ("user", "cli", "session")
#: a path no file has, at any depth below a folder
_DEEP = "\0/\0"


def read_rule_covers(
    rules: Iterable[SourcedRule],
    behavior: Behavior,
    paths: Callable[[], Iterable[Path]],
    cwd: Path,
) -> bool:
    """A `Read(...)` rule of `behavior` covers one of `paths()` (asked for only when there is
    such a rule). For allow: only the person's own that name a place (`Read(//opt/sdk/**)`,
    `Read(~/notes/**)`; not a bare `Read`), Claude Code's way to add a folder to read outside
    the working directory."""
    found = [r for r in rules if r.behavior == behavior and r.rule.tool == "Read"]
    if behavior == "allow":
        places = [r for r in found if (r.rule.content or "").startswith(("/", "~"))]
        found = [r for r in places if r.source in _OWN]
    if not found:
        return False
    if behavior == "allow":  # a folder whose whole tree is allowed (`X/**`) is allowed too
        return any(
            match_path(r.rule, q, cwd) for p in paths() for q in (p, p / _DEEP) for r in found
        )
    return any(match_path(r.rule, p, cwd) for p in paths() for r in found)
