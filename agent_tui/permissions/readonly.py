"""The few commands that may run without any rule.

Kept deliberately tiny. Each one only reads and prints: it can't write (redirections and `tee`
targets are checked as writes on their own), can't run another program, and makes no network
request (DNS tools such as `dig`/`host`/`nslookup` once exfiltrated `.env` through lookups, so
nothing network-capable belongs here). Arguments that name paths must stay inside the working
directory. For git, the options that write a file (`--output`) or read outside the repository
(`--no-index`, `-O`) or run configured programs (`--ext-diff`, `--textconv`) are excluded; hooks
that git runs from `.git/config` (e.g. core.fsmonitor) need that file written first, which asks.
"""

from __future__ import annotations

import re
from pathlib import Path

from agent_tui.pathutil import is_inside
from agent_tui.permissions.analysis import Part
from agent_tui.permissions.command_risks import normalize

_GIT_VERBS = frozenset({"status", "diff", "log"})
_GIT_FORBIDDEN = ("--output", "--no-index", "--ext-diff", "--textconv", "-O", "--exec")


def default_allows(part: Part, cwd: Path) -> bool:
    if part.assignments or part.privileged or part.open_args:
        return False
    name, args = part.argv[0], part.argv[1:]
    if name in ("pwd", "echo", "true", "false"):
        return True
    if name == "ls":
        return _paths_inside([a for a in args if a is not None], cwd)
    if name == "tee":  # its files are checked as writes
        return all(a is not None for a in args)
    if name == "cd":
        return len(args) == 1 and args[0] is not None and _paths_inside([args[0]], cwd)
    if name == "git" and args and args[0] and args[0].startswith("-"):
        norm = normalize(part.argv)  # `git --no-pager log`: value-less global flags only
        if norm.certain and norm.flags_only:
            args = norm.argv[1:]
    if name == "git" and args and args[0] in _GIT_VERBS:
        if any(a is None or a.startswith(_GIT_FORBIDDEN) for a in args):
            return False
        return _paths_inside(list(args[1:]), cwd)  # type: ignore[arg-type]
    return False


# Plan mode ("look, don't touch") also runs these, when their paths stay in the project and the
# analysis found nothing they write or run (sed -i, sort -o, find -delete/-exec, awk system()...).
_PLAN_READERS = frozenset(
    {"cat", "head", "tail", "wc", "du", "sort", "uniq", "cut", "tr", "nl", "column", "tac"}
    | {"grep", "egrep", "fgrep", "rg", "find", "tree", "file", "stat", "diff", "cmp", "jq"}
    | {"basename", "dirname", "realpath", "readlink", "date", "which", "sed", "awk", "ls"}
)
_PLAN_GIT_VERBS = _GIT_VERBS | {"show", "rev-parse", "ls-files", "blame", "shortlog", "describe"}
_SAFE_GLOB = re.compile(r"[\w.*?\[\]/@+,=-]+")


def plan_allows(part: Part, cwd: Path) -> bool:
    """A read-only command plan mode may run (the caller has checked writes and risks)."""
    if default_allows(part, cwd):
        return True
    if part.assignments or part.privileged or part.argv[0] is None:
        return False
    name, args = part.argv[0], list(part.argv[1:])
    if name == "git":
        norm = normalize(part.argv)
        verb = norm.argv[1] if len(norm.argv) > 1 else None
        if not (norm.certain and norm.flags_only and verb in _PLAN_GIT_VERBS):
            return False
        args = list(norm.argv[2:])
        if any(a is None or a.startswith(_GIT_FORBIDDEN) for a in args):
            return False
    elif name not in _PLAN_READERS:
        return False
    raw = part.raw[1:] if len(part.raw) == len(part.argv) else ()
    for i, a in enumerate(args):
        if a is None:
            # `du -sh *`: a relative glob stays in the project; anything else isn't known
            word = raw[i] if i < len(raw) else ""
            if not (_SAFE_GLOB.fullmatch(word) and not word.startswith("/") and ".." not in word):
                return False
    return _paths_inside([a for a in args if a is not None], cwd)


def _paths_inside(args: list[str], cwd: Path) -> bool:
    operands: list[str] = []
    options = True
    for a in args:
        if options and a == "--":
            options = False
        elif options and a.startswith("-"):
            continue
        else:
            operands.append(a)
    return all(is_inside(a, cwd) for a in operands)
