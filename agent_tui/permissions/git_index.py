"""The paths a git index holds, as git itself reads them (`git ls-files --stage`, with the
index file named and `git_run`'s neutral settings): the commit gate compares a command's new
`.git/index` with the project's, so an index that now holds `.claude/settings.json` (which the
person's next `git checkout -- .` would write) is seen before it lands. Never a reader of our
own: a parser that differs from git's by one byte is a way past the gate. git itself can
differ from itself (an entry whose recorded name length disagrees with its NUL-ended name:
`ls-files` lists `.envrcX`, checkout writes `.envrc`), so the index is also read as git rewrites
it (copies written anew at index versions 3 and 4, where each name is written by its length):
readings that disagree make the index ambiguous, never taken as holding nothing.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

Entries = dict[str, tuple[str, str]]


class IndexUnreadable(ValueError):
    """git can't read the index (then it holds whatever it might)."""


class IndexAmbiguous(IndexUnreadable):
    """git reads the index one way and writes (checks out) it another."""


def read_index(index: Path, git_dir: Path) -> Entries:
    """path -> (mode, object name) for every entry of the index file `index` of the repository
    `git_dir` ({} when there is none), the same however git reads it (else IndexAmbiguous)."""
    from agent_tui import git_run

    if not index.exists():
        return {}
    if not git_run.available():
        raise IndexUnreadable("no git")
    entries = _listed(index, git_dir)
    with tempfile.TemporaryDirectory(prefix="agent-tui-index-") as tmp:
        for version in ("3", "4"):
            copy = Path(tmp) / f"index.v{version}"
            shutil.copyfile(index, copy)
            _git(git_dir, copy, "update-index", "--index-version", version)
            if _listed(copy, git_dir) != entries:
                raise IndexAmbiguous("git lists the index's names one way and writes them another")
    return entries


def _git(git_dir: Path, index: Path, *args: str) -> bytes:
    from agent_tui import git_run

    env = {"GIT_DIR": str(git_dir), "GIT_INDEX_FILE": str(index), "GIT_CONFIG_NOSYSTEM": "1"}
    try:
        return git_run.run(Path("/"), *args, env=env, check=True)
    except git_run.GitError as exc:
        raise IndexUnreadable(str(exc)) from None


def _listed(index: Path, git_dir: Path) -> Entries:
    out = _git(git_dir, index, "ls-files", "--stage", "-z")
    entries: Entries = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        fields = meta.split()
        if len(fields) != 3:
            raise IndexUnreadable(f"git said {record[:80]!r}")
        entries[path.decode("utf-8", "surrogateescape")] = (fields[0].decode(), fields[1].decode())
    return entries


def added(old: Entries, new: Entries) -> list[str]:
    """The paths `new` holds that `old` doesn't, or holds with other content or mode."""
    return sorted(p for p, entry in new.items() if old.get(p) != entry)
