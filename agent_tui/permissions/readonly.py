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
