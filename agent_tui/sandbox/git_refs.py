"""What a command's new commits would bring: the protected paths in anything newly reachable from
a ref that moved — a branch, a tag, HEAD, the stash (its index and untracked parents included) —
or from a new entry of a reflog (`git reset --hard HEAD@{1}` checks it out). A commit of
`.envrc` is a file the person's next `git reset --hard`, `git checkout`, `git stash pop` writes
outside the sandbox, so the gate asks about it as about the file itself.

Read with git (`git_run`'s neutral settings; `rev-list --objects` runs no filter, textconv or
hook) over the project's repository, its objects and the command's new ones together (the
command's are in the change set's upper directory, not yet in the project). What git can't read
counts as holding something: it is never taken as empty.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

_SHA = re.compile(r"^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$")
#: refs a later command of the person's may check out
_REF_TOP = ("HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "packed-refs")
CANT_READ = "(git can't read what its new refs point at)"


def is_ref(inner: list[str]) -> bool:
    """`inner` (a path inside a git directory) names a ref, the packed refs or a reflog."""
    if not inner:
        return False
    return inner[0] in ("refs", "logs") or (len(inner) == 1 and inner[0] in _REF_TOP)


def _packed(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    try:
        text = path.read_text("utf-8", "replace")
    except OSError:
        return out
    for line in text.splitlines():
        if line and line[0] not in "#^":
            sha, _, name = line.partition(" ")
            if _SHA.match(sha):
                out[name.strip()] = sha.lower()
    return out


def _value(path: Path) -> str | None:
    try:
        text = path.read_text("utf-8", "replace").strip()
    except OSError:
        return None
    return text.split()[0] if text else None


def ref_value(path: Path) -> str | None:
    """The object a loose ref names (lower-case), or None."""
    value = _value(path)
    return value.lower() if value is not None and _SHA.match(value) else None


def packed_value(path: Path, name: str) -> str | None:
    """The object `name` has in the packed-refs file `path`, or None."""
    return _packed(path).get(name)


def _log_shas(path: Path) -> set[str]:
    """Every object a reflog names (its old and new columns)."""
    found: set[str] = set()
    try:
        text = path.read_text("utf-8", "replace")
    except OSError:
        return found
    for line in text.splitlines():
        for word in line.split()[:2]:
            if _SHA.match(word) and word.strip("0"):  # not the null object (a ref's birth)
                found.add(word.lower())
    return found


def new_tips(lower: Path, upper: Path, changed: list[str]) -> set[str]:
    """The objects the changed refs and reflogs name now and did not before."""
    tips: set[str] = set()
    old_packed, new_packed = _packed(lower / "packed-refs"), _packed(upper / "packed-refs")
    for rel in changed:
        if rel == "packed-refs":
            tips |= {sha for name, sha in new_packed.items() if old_packed.get(name) != sha}
        elif rel.startswith("logs/"):
            tips |= _log_shas(upper / rel) - _log_shas(lower / rel)
        else:
            new = _value(upper / rel)
            if new is not None and _SHA.match(new):  # else a symbolic ref: its target is read
                old = _value(lower / rel) or old_packed.get(rel)
                if old is None or old.lower() != new.lower():
                    tips.add(new.lower())
    return tips


def brought(
    lower: Path,
    upper: Path,
    changed: list[str],
    protected: Callable[[str], bool],
    *,
    new_repository: bool = False,
) -> list[str]:
    """The protected paths in what the changed refs and reflogs newly reach (everything, for a
    `new_repository`, whose `lower` is empty)."""
    from agent_tui import git_run

    tips = new_tips(lower, upper, changed)
    if not tips or not git_run.available():
        return []
    env = {
        "GIT_DIR": str(upper if new_repository else lower),
        "GIT_OBJECT_DIRECTORY": str(upper / "objects"),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    if not new_repository:
        env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = str(lower / "objects")
    args = ["rev-list", "--objects", *sorted(tips)]
    if not new_repository:
        args += ["--not", "--all"]  # the project's refs: what was reachable already
    try:
        out = git_run.run(Path("/"), *args, env=env, check=True)
    except git_run.GitError:
        return [CANT_READ]
    found: set[str] = set()
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        _, _, path = line.partition(" ")
        if path and protected(path):
            found.add(path)
    return sorted(found)
