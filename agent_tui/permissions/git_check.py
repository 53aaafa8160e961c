"""Before a command with git in it runs unasked: the repositories git would use (and the
submodules it descends into, unless the command says `--ignore-submodules`), and what the same
command writes that git would then read (`printf … > x/config; cd x && git status`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from agent_tui.pathutil import resolve
from agent_tui.permissions.analysis import Part, Word
from agent_tui.permissions.git_config import GIT_DIR_NAMES, find_repo, programs

_IGNORE_SUBMODULES = ("--ignore-submodules", "--ignore-submodules=all")


def git_parts(parts: Sequence[Part]) -> list[Part]:
    return [p for p in parts if p.argv and p.argv[0] and os.path.basename(p.argv[0]) == "git"]


def git_risk(
    parts: Sequence[Part], dirs: Sequence[Path] | None, writes: Sequence[Word]
) -> str | None:
    """Why the git in this command may run a program the repository configures, or None."""
    gits = git_parts(parts)
    if not gits:
        return None
    if dirs is None:
        return "git runs in a folder that isn't known statically (its configuration can't be read)"
    for target in writes:
        if target is None:
            continue
        name = os.path.basename(os.path.normpath(target)).lower()
        segments = {s.lower() for s in Path(target).parts}
        if name in GIT_DIR_NAMES or "hooks" in segments or name.endswith(".git"):
            return f"the command writes {target}, which git may read as configuration"
    for part in gits:
        starts, explicit, trees = _starts(part.argv, dirs)
        if starts is None:
            return "git with a folder option that isn't known statically"
        repos = [(g, t) for g in explicit for t in trees or starts]
        repos += [
            (g, t) for g, found in filter(None, map(find_repo, starts)) for t in trees or [found]
        ]
        descend = not any(a in _IGNORE_SUBMODULES for a in part.argv)
        why = programs([g for g, _ in repos], [t for _, t in repos], descend)
        if why:
            return why
    return None


def _starts(
    argv: Sequence[Word], dirs: Sequence[Path]
) -> tuple[list[Path] | None, list[Path], list[Path]]:
    """Where git starts looking (after `-C`), the git directories named with `--git-dir`, and
    the work trees `--work-tree` names (whose submodules git descends into)."""
    starts = list(dirs)
    explicit: list[Path] = []
    trees: list[Path] = []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a is None:
            return None, explicit, trees
        if not a.startswith("-"):
            break
        value: Word = None
        if a in ("-C", "--git-dir", "--work-tree", "-c", "--namespace", "--exec-path"):
            value = argv[i + 1] if i + 1 < len(argv) else None
            i += 1
        elif "=" in a:
            a, value = a.split("=", 1)
        if a in ("-C", "--git-dir", "--work-tree") and value is None:
            return None, explicit, trees
        if a == "-C":
            starts = [resolve(value or "", d) for d in starts]
        elif a == "--git-dir":
            explicit += [resolve(value or "", d) for d in starts]
        elif a == "--work-tree":
            trees = [resolve(value or "", d) for d in starts]
        i += 1
    return starts, explicit, trees
