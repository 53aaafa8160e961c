"""The submodules `git status` and `git diff` descend into: the gitlinks of a repository's index
(entries of mode 160000) whose folder in the work tree holds a `.git` (a folder, or a file naming
one under `.git/modules/`). git runs `status` inside each of them, at any depth, and so runs what
each one's own configuration and hooks name (core.fsmonitor, a post-index-change hook, filters).

The index is read by git itself (`permissions/git_index.py`: `git ls-files --stage` with git_run's
neutral settings, as the commit gate reads it; every version, object format and a split index's
shared part as git reads them), and only once the repository's own configuration and hooks were
read and run nothing (`git_config.programs`), so the reading runs nothing either. Cheap on big
trees: most indexes hold no gitlink, and the mode's four bytes (00 00 e0 00) being in none of the
index's files says so without starting git; a reading is cached by the files' sizes and times.
An index git can't read is reported as such (the caller asks).
"""

from __future__ import annotations

import os
import struct
from functools import lru_cache
from pathlib import Path

from agent_tui import git_run
from agent_tui.permissions.git_index import IndexUnreadable, read_index

__all__ = ["IndexUnreadable", "gitlinks", "populated"]

_GITLINK = f"{0o160000:o}"
_GITLINK_BYTES = struct.pack(">I", 0o160000)


def gitlinks(git_dir: Path) -> list[str]:
    """The paths of the gitlinks in `git_dir`'s index (a split index's shared part included);
    [] without an index. Raises IndexUnreadable for an index git can't read."""
    files = [git_dir / "index"]
    try:
        # a split index keeps most entries in a shared file beside it (core.splitIndex)
        files += sorted(git_dir / p for p in os.listdir(git_dir) if p.startswith("sharedindex."))
    except OSError:
        return []
    stats: list[tuple[str, int, int, int]] = []
    for f in files:
        try:
            st = f.stat()
        except OSError:
            continue
        stats.append((str(f), st.st_mtime_ns, st.st_size, st.st_ino))
    if not stats or not git_run.available():
        return []  # no index, or no git to descend into anything
    return list(_read(str(git_dir), tuple(stats)))


@lru_cache(maxsize=256)
def _read(git_dir: str, stats: tuple[tuple[str, int, int, int], ...]) -> tuple[str, ...]:
    if not any(_may_hold_gitlinks(path) for path, *_ in stats):
        return ()  # no entry can have the gitlink mode
    entries = read_index(Path(git_dir) / "index", Path(git_dir))
    return tuple(sorted(p for p, (mode, _) in entries.items() if mode == _GITLINK))


def _may_hold_gitlinks(path: str) -> bool:
    try:
        return _GITLINK_BYTES in Path(path).read_bytes()
    except OSError as e:
        raise IndexUnreadable(f"{path}: {e.strerror}") from None


def populated(worktree: Path, path: str) -> Path | None:
    """The `.git` of a gitlink's folder in the work tree, if it is checked out there."""
    dot = worktree / path / ".git"
    return dot if os.path.lexists(dot) else None
