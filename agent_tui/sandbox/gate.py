"""The commit gate: which changes of a sandboxed command's change set land in the project unasked.

Judged by what the command wrote, at any depth and for names it created as well as changed;
the rules for ordinary files are in `gate_files.py`, those inside git directories in
`gate_git.py`. A repository's own files are one unit: they land together or not at all, so a
commit made in the sandbox is all there or not there. A file the person changed while the command
ran is a conflict (never overwritten unasked); fifos, sockets and devices are never carried over,
nor are byte-code caches. The verdict is a value: nothing here writes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_tui.sandbox.changes import Change
from agent_tui.sandbox.gate_files import Files, is_byte_code
from agent_tui.sandbox.gate_git import Repository
from agent_tui.sandbox.links import protected_entry

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
    #: the environment (`.venv`, `node_modules`) the unit is the programs and start-up code of
    environment: str = ""


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


def _git_folder(parts: list[str], known: dict[str, bool], root: Path) -> int | None:
    """How many leading parts name the git directory `parts` is in (or is), if any: a `.git`
    (in any spelling a file system takes for it), or an existing folder git takes as one."""
    from agent_tui.permissions.git_config import is_git_dir

    for n, part in enumerate(parts, 1):
        bare = part.casefold().rstrip(". ")
        if bare == ".git" or bare.endswith(".git") or bare == "git~1":
            return n
        if n < len(parts):
            folder = "/".join(parts[:n])
            if folder not in known:
                known[folder] = is_git_dir(root / folder)
            if known[folder]:
                return n
    return None


def _repository_title(folder: str, changes: list[Change]) -> str:
    own = sum(1 for c in changes if c.rel.startswith(folder + "/") or c.rel == folder)
    title = f"{folder}/ (git's own files: {own} changed"
    if own < len(changes):
        title += f"; with {len(changes) - own} in its work tree that git's command changed"
    return title + ")"


def _listed(place: str, changes: list[Change]) -> str:
    """The first few of an environment's changes, by their names inside it."""
    inner = [c.rel.removeprefix(place + "/") if place != "." else c.rel for c in changes]
    more = f" and {len(inner) - 3} more" if len(inner) > 3 else ""
    return ", ".join(inner[:3]) + more


@dataclass
class _Repo:
    repository: Repository
    changes: list[Change]
    reasons: list[str]


def judge(
    changes: list[Change],
    root: Path,
    upper: Path,
    *,
    home_root: bool = False,
    visible: Callable[[Path], bool] | None = None,
    hook_folders: tuple[str, ...] = (),
) -> Verdict:
    """The gate's verdict on `changes` (read from `upper` over the project `root`).
    `home_root`: the project is the home directory (shell start-up files there run);
    `visible`: what the sandbox shows of the host (a link there hands nothing new);
    `hook_folders`: project folders git runs hooks from (the person's core.hooksPath)."""
    from agent_tui.permissions.git_config import is_git_dir

    files = Files(
        root,
        upper,
        {c.rel: c for c in changes},
        home_root=home_root,
        visible=visible,
        hook_folders=hook_folders,
    )
    free: list[Change] = []
    protected: list[Unit] = []
    conflicts: list[Unit] = []
    skipped: list[tuple[Change, str]] = []
    unchanged: list[Change] = []
    repos: dict[str, _Repo] = {}
    places: dict[str, list[tuple[Change, str]]] = {}
    known: dict[str, bool] = {}
    for change in changes:
        if change.same:
            unchanged.append(change)
            continue
        if change.kind == "special":
            skipped.append((change, "a fifo, socket or device: never carried into the project"))
            continue
        if is_byte_code(change.rel) and change.kind != "delete":
            unchanged.append(change)  # Python makes it again; never a stand-in for the source
            continue
        if change.kind == "dir" and not change.opaque and change.below == "dir":
            continue
        parts = change.rel.split("/")
        n = _git_folder(parts, known, root)
        if n is not None:
            folder = "/".join(parts[:n])
            if folder not in repos:
                existing = is_git_dir(root / folder)
                repos[folder] = _Repo(Repository(root, upper, folder, existing), [], [])
            repo = repos[folder]
            repo.changes.append(change)
            inner = parts[n:]
            why = (
                _the_entry(change, folder, repo.repository.existing)
                if not inner
                else repo.repository.why(change, inner)
            )
            if why is not None:
                repo.reasons.append(why)
            continue
        why = files.why(change)
        installed = files.installed(change)
        if installed is not None:
            places.setdefault(installed[0], []).append((change, why or installed[1]))
        elif why is not None:
            protected.append(Unit((change,), why, change.rel))
        elif change.conflict:
            conflicts.append(Unit((change,), CONFLICT_WHY, change.rel))
        else:
            free.append(change)
    free = _environments(places, free, protected)
    free = _repositories(repos, free, protected, conflicts)
    free.sort(key=lambda c: c.rel.split("/"))
    return Verdict(
        tuple(free), tuple(protected), tuple(conflicts), tuple(skipped), tuple(unchanged)
    )


def _environments(
    places: dict[str, list[tuple[Change, str]]], free: list[Change], protected: list[Unit]
) -> list[Change]:
    """Each environment the command installed into (`.venv`, `node_modules`) held as one unit
    (added to `protected`); what is left free."""
    for place, held in places.items():
        # an environment's programs and start-up code land together or not at all; the rest
        # of what the command installed there lands
        unit = [c for c, _ in held]
        if any(c.rel == place for c in unit):  # the environment itself replaced: all of it
            unit += [c for c in free if c.rel.startswith(place + "/")]
            free = [c for c in free if not c.rel.startswith(place + "/")]
        unit.sort(key=lambda c: c.rel.split("/"))
        why = "; ".join(dict.fromkeys(w for _, w in held))
        title = f"{place}/ (its programs and start-up code: {_listed(place, unit)})"
        protected.append(Unit(tuple(unit), why, title, environment=place))
    return free


def _repositories(
    repos: dict[str, _Repo], free: list[Change], protected: list[Unit], conflicts: list[Unit]
) -> list[Change]:
    """Each repository's changes held whole (with what git's command did to its work tree) when
    any of them is protected or conflicts, else landed; innermost first. What is left free."""
    for folder, repo in sorted(repos.items(), key=lambda kv: -len(kv[0])):
        repo.reasons += repo.repository.reasons(repo.changes, protected_entry)
        held_repo = bool(repo.reasons) or any(c.conflict for c in repo.changes)
        if held_repo:  # what git's command did to the work tree is held with it (a stash's)
            with_git = repo.repository.work_tree_part(free)
            taken = {c.rel for c in with_git}
            free = [c for c in free if c.rel not in taken]
            repo.changes += with_git
        title = _repository_title(folder, repo.changes)
        if repo.reasons:
            why = "; ".join(dict.fromkeys(repo.reasons))
            protected.append(Unit(tuple(repo.changes), why, title, folder))
        elif held_repo:
            conflicts.append(Unit(tuple(repo.changes), CONFLICT_WHY, title, folder))
        else:
            free.extend(repo.changes)
    return free


def _the_entry(change: Change, folder: str, existing: bool) -> str | None:
    """The git directory's own entry (`.git` itself) changed."""
    if change.kind == "delete":
        return f"it deletes the repository {folder}/ (its history)" if existing else None
    if change.kind != "dir":
        return f"a {folder} file or link points git at another repository"
    if change.opaque and existing:
        return f"it makes {folder}/ anew (the repository's history and configuration)"
    return None
