"""The project's tree looked through for what the direct scheme protects (nested protected
names and git directories, to SCAN_DEPTH levels) and for what `Read(...)` deny rules hide."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from agent_tui.permissions.git_config import is_git_dir
from agent_tui.permissions.protected import (
    PROTECTED_DIRS,
    PROTECTED_FILES,
    PROTECTED_RUN_NAMES,
    protected_reason,
)

#: directories the scan for nested protected names doesn't enter (big, and not where hooks live)
_SKIP = frozenset({"node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache"})
_GLOB_CHARS = frozenset("*?[")
SCAN_DEPTH = 3
#: entries looked at per command (a few ms in a usual project; ~70 ms for 5,000 on a busy machine)
SCAN_LIMIT = 5_000


def _abs(raw: str, cwd: Path, home: Path) -> Path:
    if raw == "~" or raw.startswith("~/"):
        return home / raw[2:]
    p = Path(raw)
    return p if p.is_absolute() else cwd / p


#: protected names that don't start with a dot (most don't need the analyser's full test)
_PLAIN = frozenset(n.casefold() for n in PROTECTED_DIRS | PROTECTED_FILES if n[0] != ".")
_PLAIN_PREFIXES = tuple(n for n in PROTECTED_RUN_NAMES if n[0] != ".")


def _maybe_protected(name: str) -> bool:
    """False for names the analyser's `protected_reason` can't call protected (plain ASCII, no
    leading dot, no `~`, not one of the few protected names without a dot): a fast path only."""
    if not name.isascii() or name.startswith(".") or "~" in name:
        return True
    bare = name.casefold().rstrip(". ")
    return bare in _PLAIN or bare.endswith((".git", ".pth")) or bare.startswith(_PLAIN_PREFIXES)


def _protected(path: str, root: Path) -> bool:
    return protected_reason(os.path.relpath(path, root)) is not None


class _Entry(NamedTuple):
    path: str
    is_dir: bool
    #: what the analyser protects: a protected name, or a git directory (by name or contents)
    protected: bool
    git: bool


def scan(root: Path) -> Iterator[_Entry]:
    """Every entry down to SCAN_DEPTH levels, not following symlinks nor entering protected or
    git directories (read-only whole, or kept apart) or big generated ones; at most SCAN_LIMIT
    entries. Names are tested with the analyser's `protected_reason`, git directories with
    `is_git_dir` only where there is a HEAD (one stat), so a large tree stays cheap."""
    seen = 0
    stack = [(str(root), 1)]
    while stack:
        d, depth = stack.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            seen += 1
            if seen > SCAN_LIMIT:
                return
            try:
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            git = is_dir and (
                e.name.casefold().rstrip(". ").endswith(".git")
                or (os.path.isfile(os.path.join(e.path, "HEAD")) and is_git_dir(Path(e.path)))
            )
            protected = git or (_maybe_protected(e.name) and _protected(e.path, root))
            yield _Entry(e.path, is_dir, protected, git)
            if is_dir and depth < SCAN_DEPTH and not protected and e.name not in _SKIP:
                stack.append((e.path, depth + 1))


def scan_names(root: Path) -> list[str]:
    """The entries `scan` finds (to SCAN_DEPTH levels, SCAN_LIMIT of them)."""
    return [e.path for e in scan(root)]


def read_deny_paths(
    globs: Iterable[str], cwd: Path, home: Path, scanned: list[Path]
) -> tuple[list[Path], list[str]]:
    """The existing paths `Read(...)` deny rules' globs name, and notes where the sandbox can
    only look for them to a limited depth."""
    found: list[Path] = []
    notes: list[str] = []
    for pattern in globs:
        paths, note = _read_deny(pattern, cwd, home, scanned)
        found += paths
        if note:
            notes.append(note)
    return found, list(dict.fromkeys(notes))


def _read_deny(
    pattern: str, cwd: Path, home: Path, scanned: list[Path]
) -> tuple[list[Path], str | None]:
    """The existing paths a `Read(...)` deny rule's glob names (and a note when the sandbox can
    only look for them to a limited depth)."""
    from agent_tui.permissions.rules import RuleError, match_path, parse_rule

    body = pattern[:-1] if pattern.endswith("/") else pattern
    if body.endswith("/**"):
        body = body[:-3]
    if not any(c in _GLOB_CHARS for c in body):
        if "/" not in body and not body.startswith("~"):
            # a bare name matches at any depth: look in the scanned tree
            return [p for p in scanned if p.name == body], _depth_note(pattern)
        return [_abs(body.removeprefix("./"), cwd, home)], None
    try:
        rule = parse_rule(f"Read({pattern})")
    except RuleError:
        return [], None
    found = [p for p in scanned if match_path(rule, p, cwd)]
    return found, _depth_note(pattern)


def _depth_note(pattern: str) -> str:
    return (
        f"Read({pattern}): hidden where found within {SCAN_DEPTH} levels of the working "
        "directory (deeper matches rely on the analyser)"
    )
