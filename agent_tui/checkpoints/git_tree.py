"""Snapshots of a git work tree that touch neither the person's index nor any branch.

A snapshot is `git add -A` into a private index (a copy of the person's at first, kept in the
process's scratch folder under the data dir), then `git write-tree`, as `git stash create`
does: the tree holds every file git does not ignore, staged or not. The trees
are kept alive (safe from `git gc`) by a chain of commits under `refs/agent-tui/checkpoints`, a
ref no branch, tag or `git log` without `--all` shows.

Git runs through `agent_tui.git_run` (settings that run nothing), and never in a repository whose
own configuration or hooks would run a program (a project that arrived with its `.git`): `find`
passes such a repository by, so its snapshots go to a shadow repository (`shadow.py`), and a
repository that starts running one mid-session gets no more snapshots.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui import git_run
from agent_tui.git_run import GitError
from agent_tui.permissions.git_config import project_programs

ANCHOR_REF = "refs/agent-tui/checkpoints"
#: commits that anchor the snapshots need an identity, whatever the person's git config says
_IDENTITY = {
    "GIT_AUTHOR_NAME": "agent-tui",
    "GIT_AUTHOR_EMAIL": "agent-tui@localhost",
    "GIT_COMMITTER_NAME": "agent-tui",
    "GIT_COMMITTER_EMAIL": "agent-tui@localhost",
}


__all__ = ["ANCHOR_REF", "GitError", "GitWorkTree", "TreeChange", "project_programs"]


@dataclass(frozen=True, slots=True)
class TreeChange:
    """One file that differs between two trees (`GitWorkTree.changes`)."""

    path: Path
    #: blob ids and modes; None: the file is absent on that side
    old: str | None
    new: str | None
    old_mode: str
    new_mode: str


class GitWorkTree:
    def __init__(self, top: Path, index: Path, git_dir: Path | None = None) -> None:
        self.top = top
        self.index = index
        #: a repository of our own for a folder outside git (`shadow.py`), else None
        self.git_dir = git_dir

    def _run(self, *args: str, **kwargs: Any) -> bytes:
        where = [] if self.git_dir is None else [f"--git-dir={self.git_dir}", "--work-tree=."]
        return git_run.run(self.top, *where, *args, **kwargs)

    @classmethod
    def find(cls, cwd: Path) -> GitWorkTree | None:
        """The work tree `cwd` is in, or None (not a repository, a bare one, no git, or one
        whose configuration or hooks would make git run a program: `project_programs`)."""
        if not git_run.available() or project_programs(cwd):
            return None
        try:
            out = git_run.run(cwd, "rev-parse", "--show-toplevel", "--git-path", "index")
        except GitError:
            return None
        lines = out.decode(errors="surrogateescape").splitlines()
        if len(lines) != 2 or not lines[0]:
            return None
        return cls(Path(lines[0]), cwd / lines[1])

    def snapshot(self, index: Path) -> str:
        """The id of a tree holding the work tree as it is now, built in `index` (a private
        index file, kept between snapshots: its stat data makes `add -A` skip unchanged files;
        the first one starts as a copy of the person's)."""
        if not index.exists() and self.index.is_file():
            shutil.copyfile(self.index, index)
        if self.git_dir is None:  # the project's own repository: is it still safe to run?
            why = project_programs(self.top)
            if why:
                raise GitError(f"{why}; the app won't run git in this repository")
        env = {"GIT_INDEX_FILE": str(index)}
        self._run("add", "-A", "--", ".", env=env)
        return self._run("write-tree", env=env).decode().strip()

    def keep_index(self, index: Path) -> None:
        """A shadow repository's: keep the private index as its own, so the next session's first
        snapshot skips the files it has seen (their stat data), not hashes them all again."""
        if self.git_dir is None or not index.is_file():
            return
        kept = self.git_dir / f"index.{os.getpid()}.tmp"
        try:
            shutil.copyfile(index, kept)
            os.replace(kept, self.index)
        except OSError:
            with contextlib.suppress(OSError):
                kept.unlink()

    def anchor(self, trees: list[str], message: str) -> None:
        """Keep `trees` from garbage collection: one commit on top of the anchor ref, whose tree
        holds them all (as folders 0, 1, …)."""
        unique = list(dict.fromkeys(trees))
        if not unique:
            return
        tree = unique[0]
        if len(unique) > 1:
            listing = "".join(f"040000 tree {t}\t{n}\n" for n, t in enumerate(unique))
            tree = self._run("mktree", stdin=listing.encode()).decode().strip()
        parent = self._run("rev-parse", "-q", "--verify", ANCHOR_REF, check=False)
        head = parent.decode().strip()
        args = ["commit-tree", tree, "-m", message] + (["-p", head] if head else [])
        head = self._run(*args, env=_IDENTITY).decode().strip()
        self._run("update-ref", ANCHOR_REF, head)

    def changes(self, old: str, new: str) -> list[TreeChange]:
        """The files that differ between two trees."""
        out = self._run("diff-tree", "-r", "-z", "--no-renames", old, new)
        fields = out.split(b"\0")
        found: list[TreeChange] = []
        for meta, raw_path in zip(fields[0::2], fields[1::2], strict=False):
            if not meta.startswith(b":"):
                continue
            old_mode, new_mode, old_id, new_id, _status = meta[1:].decode().split(" ")
            found.append(
                TreeChange(
                    self.top / os.fsdecode(raw_path),
                    None if set(old_id) == {"0"} else old_id,
                    None if set(new_id) == {"0"} else new_id,
                    old_mode,
                    new_mode,
                )
            )
        return found

    def blob(self, blob: str) -> bytes | None:
        """A blob's content, or None if the repository no longer has it."""
        try:
            return self._run("cat-file", "blob", blob)
        except GitError:
            return None
