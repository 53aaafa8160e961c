"""The paths a git index holds, as git itself reads them (`git ls-files --stage`, with the
index file named and `git_run`'s neutral settings): the commit gate compares a command's new
`.git/index` with the project's, so an index that now holds `.claude/settings.json` (which the
person's next `git checkout -- .` would write) is seen before it lands. Never a reader of our
own: a parser that differs from git's by one byte is a way past the gate.
"""

from __future__ import annotations

from pathlib import Path

Entries = dict[str, tuple[str, str]]


class IndexUnreadable(ValueError):
    """git can't read the index (then it holds whatever it might)."""


def read_index(index: Path, git_dir: Path) -> Entries:
    """path -> (mode, object name) for every entry of the index file `index` of the repository
    `git_dir` ({} when there is none)."""
    from agent_tui import git_run

    if not index.exists():
        return {}
    if not git_run.available():
        raise IndexUnreadable("no git")
    env = {"GIT_DIR": str(git_dir), "GIT_INDEX_FILE": str(index), "GIT_CONFIG_NOSYSTEM": "1"}
    try:
        out = git_run.run(Path("/"), "ls-files", "--stage", "-z", env=env, check=True)
    except git_run.GitError as exc:
        raise IndexUnreadable(str(exc)) from None
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
