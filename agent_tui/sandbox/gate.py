"""The commit gate: which changes of a sandboxed command's change set land in the project unasked.

Judged by what the command wrote, at any depth and for names it created as well as changed:

- the protected names (`permissions/protected.py`, the list the analyser asks about: `.envrc`,
  `.claude/`, `.vscode/`, `.mcp.json`, shell start-up files in the home directory, ...);
- git: inside an existing git directory only what commits, fetches and merges write is free
  (objects, refs, logs, the index, HEAD and the other state files); its config, hooks, info/,
  commondir, gitdir, worktrees/, modules/, alternates — and deleting the repository — are not.
  A `.git` file (it points git elsewhere) is not. A new git directory (a clone, `git init`) is
  free only if its config sets nothing that runs a program and it has no hook installed (the
  analyser's reading, `permissions.git_config`). A folder that becomes a git directory (HEAD,
  objects/ and refs/ appearing in it) is not. An index that now holds a protected path (which the
  person's next `git checkout -- .` would write) is not;
- Python's start-up: `*.pth` under site-packages, `sitecustomize`/`usercustomize` in any form,
  a changed `pyvenv.cfg` (a new one is free when its `home` is a Python installation outside
  the project).

A file the person changed while the command ran is a conflict (never overwritten unasked);
fifos, sockets and devices are never carried over. The verdict is a value: nothing here writes.
"""

from __future__ import annotations

import os
import stat
import struct
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.permissions.protected import HOME_ONLY, protected_reason
from agent_tui.sandbox.changes import Change
from agent_tui.sandbox.links import hash_size, protected_entry, protected_links

#: in an existing git directory: what git's everyday commands write (the first path component)
GIT_STATE_DIRS = frozenset(
    {"objects", "refs", "logs", "rebase-merge", "rebase-apply", "sequencer", "rr-cache"}
    | {"lost-found", "lfs"}
)
GIT_STATE_FILES = frozenset(
    {"HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "MERGE_RR"}
    | {"AUTO_MERGE", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "COMMIT_EDITMSG"}
    | {"TAG_EDITMSG", "SQUASH_MSG", "NOTES_EDITMSG", "packed-refs", "index", "description"}
    | {"shallow", "gc.log", "gc.pid", "gitk.cache", "BISECT_LOG", "BISECT_START"}
    | {"BISECT_TERMS", "BISECT_EXPECTED_REV", "BISECT_ANCESTORS_OK", "BISECT_NAMES", "BISECT_RUN"}
)
#: the parts of a repository whose deletion loses its history: deleting them asks
_GIT_CORE = frozenset({"", "objects", "refs", "HEAD", "packed-refs"})
_ALTERNATES = (("objects", "info", "alternates"), ("objects", "info", "http-alternates"))
CONFLICT_WHY = "you changed it while the command ran (yours is kept unless you tick it)"


@dataclass(frozen=True, slots=True)
class Unit:
    """Changes that land together or not at all: one file, or one repository's state (objects,
    refs, index and config change together, so a repository is never left half applied)."""

    changes: tuple[Change, ...]
    why: str
    #: what the person is shown: the file, or the repository
    title: str
    #: the git directory the unit is the state of ("" for a single change)
    repository: str = ""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The gate's verdict on one change set."""

    #: apply without asking
    free: tuple[Change, ...] = ()
    #: changes that need the person (TUI asks; headless: refused and held), with why
    protected: tuple[Unit, ...] = ()
    #: the person changed it while the command ran: theirs stays, the command's is held
    conflicts: tuple[Unit, ...] = ()
    #: never carried into the project (fifos, sockets, devices), with why
    skipped: tuple[tuple[Change, str], ...] = ()
    #: copied up but not changed: nothing to do
    unchanged: tuple[Change, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.free or self.protected or self.conflicts or self.skipped)


@dataclass
class _Gate:
    root: Path
    upper: Path
    home_root: bool
    changes: list[Change]
    _git_dirs: dict[str, bool] = field(default_factory=dict)
    _new_repos: dict[str, str] = field(default_factory=dict)
    _by_rel: dict[str, Change] = field(default_factory=dict)

    _links: list[tuple[str, str, str]] | None = None

    def __post_init__(self) -> None:
        self._by_rel = {c.rel: c for c in self.changes}

    @property
    def links(self) -> list[tuple[str, str, str]]:
        if self._links is None:
            self._links = protected_links(self.root)
        return self._links

    def why(self, change: Change) -> str | None:
        parts = change.rel.split("/")
        git = self._git_dir_of(parts)
        if git is not None:
            return self._in_git(change, parts, git)
        return self._plain(change, parts)

    # --- outside any git directory ---

    def _plain(self, change: Change, parts: list[str]) -> str | None:
        if change.kind == "delete":
            return None  # deleting a protected name runs nothing (the analyser asks for `rm`)
        for link, target, link_why in self.links:
            if change.rel == target or change.rel.startswith(target + "/"):
                return f"{link} is a link to it ({link_why})"
        why = protected_reason(change.rel)
        if why is not None and not (parts[-1].casefold() in HOME_ONLY and not self.home_root):
            if parts[-1] == "pyvenv.cfg" and change.created and self._plain_venv(change):
                return None
            return why
        if parts[-1] in ("HEAD", "objects", "refs", "config") and len(parts) > 1:
            folder = "/".join(parts[:-1])
            if self._becomes_git_dir(folder):
                return f"it makes {folder}/ a git directory (git would read its config and hooks)"
        elif parts[-1] in ("HEAD", "objects", "refs", "config") and self._becomes_git_dir(""):
            return "it makes the project itself a git directory (git reads its config and hooks)"
        return None

    def _plain_venv(self, change: Change) -> bool:
        """A new pyvenv.cfg whose `home` is a Python installation outside the project."""
        if change.upper is None:
            return False
        try:
            text = change.upper.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            return False
        values = dict(
            (k.strip().lower(), v.strip())
            for k, _, v in (ln.partition("=") for ln in text.splitlines())
        )
        home = Path(values.get("home", ""))
        if not home.is_absolute() or home.resolve().is_relative_to(self.root):
            return False
        return any(os.access(home / name, os.X_OK) for name in ("python3", "python"))

    def _merged_kind(self, rel: str) -> str:
        """What the project will hold at `rel` once the change set is applied."""
        change = self._by_rel.get(rel)
        if change is not None:
            return "none" if change.kind == "delete" else change.kind
        try:
            mode = os.lstat(self.root / rel).st_mode
        except OSError:
            return "none"
        return "dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"

    def _becomes_git_dir(self, folder: str) -> bool:
        prefix = f"{folder}/" if folder else ""
        after = (
            self._merged_kind(prefix + "HEAD") == "file"
            and self._merged_kind(prefix + "objects") == "dir"
            and self._merged_kind(prefix + "refs") == "dir"
        )
        return after and not _is_git_dir(self.root / folder)

    # --- inside a git directory ---

    def _git_dir_of(self, parts: list[str]) -> int | None:
        """How many leading parts name the git directory `parts` is in (or is), if any."""
        for n, part in enumerate(parts, 1):
            bare = part.casefold().rstrip(". ")
            if bare == ".git" or bare.endswith(".git") or bare == "git~1":
                return n
            if n < len(parts):
                folder = "/".join(parts[:n])
                known = self._git_dirs.get(folder)
                if known is None:
                    known = self._git_dirs[folder] = _is_git_dir(self.root / folder)
                if known:
                    return n
        return None

    def _in_git(self, change: Change, parts: list[str], n: int) -> str | None:
        folder = "/".join(parts[:n])
        inner = parts[n:]
        existing = _is_git_dir(self.root / folder)
        if not inner:
            if change.kind == "delete":
                return f"it deletes the repository {folder}/ (its history)" if existing else None
            if change.kind != "dir":
                return f"a {folder} file or link points git at another repository"
        if not existing or (change.opaque and not inner):
            why = self._new_repo(folder)
            return None if why is None else f"a new repository {folder}/: {why}"
        return _existing_repo(change, inner, folder, self)

    def _new_repo(self, folder: str) -> str | None:
        if folder not in self._new_repos:
            self._new_repos[folder] = _new_repo_problem(self.upper / folder) or ""
        return self._new_repos[folder] or None

    def index_adds(self, folder: str) -> list[str]:
        """Protected paths the command's new index (of the repository `folder`) adds."""
        from agent_tui.sandbox.git_index import added, read_index

        size = hash_size(self.root / folder / "config")
        try:
            old = read_index(self.root / folder / "index", size)
            new = read_index(self.upper / folder / "index", size)
        except (OSError, ValueError, struct.error):
            return ["(the new index can't be read)"]
        return [p for p in added(old, new) if protected_entry(p)]


def _existing_repo(change: Change, inner: list[str], folder: str, gate: _Gate) -> str | None:
    head = inner[0] if inner else ""
    if change.kind == "delete":
        if head in _GIT_CORE and len(inner) <= 1:
            return f"it deletes {folder}/{head} (the repository's history)"
        return None
    name = "/".join(inner)
    if tuple(inner[:3]) in _ALTERNATES:
        return f"{folder}/{name}: git would read objects from elsewhere"
    if head in GIT_STATE_DIRS and len(inner) > 1:
        return None
    if inner == ["info", "refs"]:
        return None  # the refs list `git gc` (update-server-info) writes for dumb transports
    if len(inner) == 1 and (head in GIT_STATE_FILES or head.endswith(".lock")):
        if head == "index" and change.kind == "file":
            found = gate.index_adds(folder)
            if found:
                shown = ", ".join(found[:5]) + (
                    f" and {len(found) - 5} more" if len(found) > 5 else ""
                )
                return f"{folder}/index now holds {shown} (git checkout would write it)"
        return None
    if head in GIT_STATE_DIRS and change.kind == "dir":
        return None
    return f"git's internals ({folder}/{name}): git reads them as configuration or runs them"


def _new_repo_problem(git_dir: Path) -> str | None:
    """Why a repository the command created would run a program, or None."""
    from agent_tui.permissions.git_config import programs

    for name in ("commondir", "gitdir"):
        if (git_dir / name).exists():
            return f"it has a {name} file (git would read another repository's config)"
    if (git_dir / "worktrees").exists():
        return "it has worktrees/ (their config points elsewhere)"
    for alternates in _ALTERNATES:
        if git_dir.joinpath(*alternates).exists():
            return "it reads objects from elsewhere (alternates)"
    return programs([git_dir])


def _is_git_dir(path: Path) -> bool:
    try:
        return (
            (path / "HEAD").is_file() and (path / "objects").is_dir() and (path / "refs").is_dir()
        )
    except OSError:
        return False


def _repository_title(folder: str, changes: list[Change]) -> str:
    return f"{folder}/ (git's own files: {len(changes)} changed)"


def judge(changes: list[Change], root: Path, upper: Path, *, home_root: bool = False) -> Verdict:
    """The gate's verdict on `changes` (read from `upper` over the project `root`).
    `home_root`: the project is the home directory (shell start-up files there run)."""
    from agent_tui.sandbox.git_refs import brought, is_ref

    gate = _Gate(root, upper, home_root, changes)
    free: list[Change] = []
    protected: list[Unit] = []
    conflicts: list[Unit] = []
    skipped: list[tuple[Change, str]] = []
    unchanged: list[Change] = []
    #: a repository's changes, the reasons among them, and its refs that moved
    repos: dict[str, tuple[list[Change], list[str], list[str]]] = {}
    for change in changes:
        if change.same:
            unchanged.append(change)
            continue
        if change.kind == "special":
            skipped.append((change, "a fifo, socket or device: never carried into the project"))
            continue
        if change.kind == "dir" and not change.opaque and change.below == "dir":
            continue
        why = gate.why(change)
        parts = change.rel.split("/")
        n = gate._git_dir_of(parts)
        if n is not None:
            folder = "/".join(parts[:n])
            group = repos.setdefault(folder, ([], [], []))
            group[0].append(change)
            if why is not None:
                group[1].append(why)
            if change.kind != "delete" and is_ref(parts[n:]) and _is_git_dir(root / folder):
                group[2].append("/".join(parts[n:]))
        elif why is not None:
            protected.append(Unit((change,), why, change.rel))
        elif change.conflict:
            conflicts.append(Unit((change,), CONFLICT_WHY, change.rel))
        else:
            free.append(change)
    for folder, (members, reasons, refs) in repos.items():
        if refs:
            found = brought(root / folder, upper / folder, refs, protected_entry)
            if found:
                shown = ", ".join(found[:5]) + (
                    f" and {len(found) - 5} more" if len(found) > 5 else ""
                )
                reasons.append(
                    f"its new commits hold {shown} (git checkout or reset would write it)"
                )
        title = _repository_title(folder, members)
        if reasons:
            why = "; ".join(dict.fromkeys(reasons))
            protected.append(Unit(tuple(members), why, title, folder))
        elif any(c.conflict for c in members):
            conflicts.append(Unit(tuple(members), CONFLICT_WHY, title, folder))
        else:
            free.extend(members)
    free.sort(key=lambda c: c.rel.split("/"))
    return Verdict(
        tuple(free), tuple(protected), tuple(conflicts), tuple(skipped), tuple(unchanged)
    )
