"""What a command's new commits would bring: the protected paths that a branch, tag, HEAD or the
stash now points at and did not before. A commit of `.envrc` that moves `main` is a file the
person's next `git reset --hard`, `git checkout main` or `git stash pop` writes — outside the
sandbox — so the gate asks about it as about the file itself.

Read with git (`git_run`'s neutral settings; `diff-tree` runs no filter, textconv or hook) over
the project's repository, its objects and the command's new ones together (the command's are in
the change set's upper directory, not yet in the project).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
#: refs a later command of the person's may check out
_REF_TOP = ("HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "packed-refs")


def is_ref(inner: list[str]) -> bool:
    """`inner` (a path inside a git directory) names a ref or the packed refs."""
    return bool(inner) and (inner[0] == "refs" or (len(inner) == 1 and inner[0] in _REF_TOP))


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
                out[name.strip()] = sha
    return out


def _value(path: Path) -> str | None:
    try:
        text = path.read_text("utf-8", "replace").strip()
    except OSError:
        return None
    return text.split()[0] if text else None


def moved_refs(lower: Path, upper: Path, changed: list[str]) -> list[tuple[str | None, str]]:
    """(old object, new object) for each ref in `changed` (paths inside the git directory) that
    now names another object."""
    pairs: list[tuple[str | None, str]] = []
    old_packed, new_packed = _packed(lower / "packed-refs"), _packed(upper / "packed-refs")
    for rel in changed:
        if rel == "packed-refs":
            for name, sha in new_packed.items():
                before = old_packed.get(name) or _value(lower / name)
                if sha != before:
                    pairs.append((before, sha))
            continue
        new = _value(upper / rel)
        if new is None or not _SHA.match(new):
            continue  # deleted, or a symbolic ref (`ref: refs/heads/x`): its target is checked
        old = _value(lower / rel) or old_packed.get(rel)
        if old != new:
            pairs.append((old if old and _SHA.match(old) else None, new))
    return pairs


def brought(
    lower: Path, upper: Path, changed: list[str], protected: Callable[[str], bool]
) -> list[str]:
    """The protected paths the moved refs' commits hold that the refs' old commits did not."""
    from agent_tui import git_run

    pairs = moved_refs(lower, upper, changed)
    if not pairs or not git_run.available():
        return []
    env = {
        "GIT_DIR": str(lower),
        "GIT_OBJECT_DIRECTORY": str(upper / "objects"),
        "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(lower / "objects"),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    found: set[str] = set()
    for old, new in pairs:
        args: list[str]
        if old is not None:
            args = ["diff-tree", "-r", "-z", "--name-only", "--no-renames", "--diff-filter=AMT"]
            args += [f"{old}^{{tree}}", f"{new}^{{tree}}"]
        else:
            args = ["ls-tree", "-r", "-z", "--name-only", f"{new}^{{tree}}"]
        try:
            out = git_run.run(Path("/"), *args, env=env, check=False)
        except git_run.GitError:
            return ["(the new commits can't be read)"]
        found.update(p for p in out.decode("utf-8", "replace").split("\0") if p and protected(p))
    return sorted(found)
