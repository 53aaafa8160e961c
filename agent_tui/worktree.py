"""`-w/--worktree [NAME]`: the session in a git worktree of its own, beside the repository.

`../<repo>-<NAME>` is made on a new branch `NAME` from the current commit (`git worktree add`,
through `git_run` and never in a repository whose config runs a program), and the session runs
there: its tools, its sandbox's project root and its record are the worktree's (a session
started in a sub-folder runs in the same sub-folder of the worktree). Leaving, the person is
asked whether to keep it or remove it; removing it also deletes the branch when nothing was
committed on it, and a worktree with changes not committed is removed only when they say so
again. The sessions browser shows a session's branch (`branch_of`, read from the files, no git).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

from agent_tui import git_run

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class WorktreeError(RuntimeError):
    """Why no worktree could be made or removed, in one line."""


@dataclass(frozen=True, slots=True)
class Worktree:
    #: the worktree's top folder, and the folder the session runs in (its `cwd`)
    path: Path
    cwd: Path
    branch: str
    #: the repository it was made from, and the commit it started at
    repo: Path
    base: str


def default_name() -> str:
    return time.strftime("session-%Y%m%d-%H%M%S")


def _git(cwd: Path, *args: str) -> str:
    try:
        return git_run.run(cwd, *args).decode("utf-8", "replace").strip()
    except git_run.GitError as exc:
        raise WorktreeError(str(exc)) from None


def create(cwd: Path, name: str | None = None) -> Worktree:
    """Make `../<repo>-<name>` on a new branch `name` and say where the session runs."""
    from agent_tui.permissions.git_config import project_programs

    name = name or default_name()
    if not _NAME.fullmatch(name) or ".." in name or name.endswith((".lock", ".")):
        raise WorktreeError(f"--worktree {name!r}: a name is letters, digits, '.', '_' or '-'")
    if not git_run.available():
        raise WorktreeError("--worktree needs git, which isn't installed")
    try:
        top = Path(git_run.run(cwd, "rev-parse", "--show-toplevel").decode().strip())
    except git_run.GitError:
        raise WorktreeError(f"--worktree: {cwd} is not in a git repository") from None
    why = project_programs(top)
    if why:
        raise WorktreeError(f"--worktree: this repository's git config runs a program ({why})")
    path = top.parent / f"{top.name}-{name}"
    if path.exists():
        raise WorktreeError(f"--worktree: {path} exists already")
    if _git(top, "branch", "--list", name):
        raise WorktreeError(f"--worktree: a branch {name} exists already")
    base = _git(top, "rev-parse", "HEAD")
    _git(top, "worktree", "add", "--quiet", "-b", name, str(path), base)
    try:
        inside = path / cwd.resolve().relative_to(top.resolve())
    except ValueError:  # reached through a link git resolved differently
        inside = path
    return Worktree(path, inside if inside.is_dir() else path, name, top, base)


def changed(wt: Worktree) -> bool:
    """The worktree has changes not committed (or files git doesn't know)."""
    return bool(_git(wt.path, "status", "--porcelain"))


def remove(wt: Worktree, *, force: bool = False) -> str:
    """Remove the worktree (and its branch when nothing was committed on it); what was done."""
    _git(wt.repo, "worktree", "remove", *(["--force"] if force else []), str(wt.path))
    if _git(wt.repo, "rev-parse", wt.branch) == wt.base:
        _git(wt.repo, "branch", "-D", wt.branch)
        return f"removed {wt.path} and its branch {wt.branch} (nothing was committed on it)"
    return f"removed {wt.path}; its branch {wt.branch} keeps what was committed on it"


def branch_of(folder: str | Path) -> str | None:
    """The branch checked out in `folder`'s work tree (a worktree's too), read from git's own
    files without running git; None outside git or on a detached HEAD."""
    here = Path(folder)
    for place in (here, *here.parents):
        dot = place / ".git"
        try:
            if dot.is_file():  # a worktree: "gitdir: /repo/.git/worktrees/NAME"
                text = dot.read_text(encoding="utf-8").strip()
                git_dir = Path(text.removeprefix("gitdir:").strip())
                dot = git_dir if git_dir.is_absolute() else place / git_dir
            if dot.is_dir():
                head = (dot / "HEAD").read_text(encoding="utf-8").strip()
                ref = head.removeprefix("ref:").strip()
                return ref.removeprefix("refs/heads/") if head.startswith("ref:") else None
        except OSError:
            return None
    return None


def leave(wt: Worktree, answer: str) -> str:
    """What leaving does with the person's answer ("k" keep, "r" remove, "f" remove even with
    changes): the line to print."""
    if answer not in ("r", "f"):
        return f"Kept the worktree {wt.path} (branch {wt.branch})."
    if answer == "r" and changed(wt):
        return f"Kept the worktree {wt.path}: it has changes not committed."
    try:
        done = remove(wt, force=answer == "f")
    except WorktreeError as exc:
        return f"Kept the worktree {wt.path}: {exc}"
    return done[0].upper() + done[1:] + "."


def offer_on_leave(wt: Worktree, *, interactive: bool) -> str:
    """Leaving: ask the person (at a terminal) to keep or remove the worktree; what was done.
    Without a terminal it is kept, and how to remove it is said."""
    if not interactive:
        return (
            f"The worktree stays: {wt.path} (branch {wt.branch}); "
            f"`git worktree remove {wt.path}` removes it."
        )
    try:
        answer = input(f"Keep the worktree {wt.path} (branch {wt.branch})? [K]eep / [r]emove: ")
        answer = answer.strip().lower()[:1]
        if answer == "r" and changed(wt):
            again = input("It has changes not committed: remove them too? [y/N]: ")
            answer = "f" if again.strip().lower().startswith("y") else "k"
    except (EOFError, KeyboardInterrupt, WorktreeError):
        answer = "k"
    return leave(wt, answer)
