"""The commit gate inside git directories: what of a repository's change is data git's everyday
commands write (free) and what is configuration, code or a way to change what git checks out.

In an existing repository, free: new objects that are what their names say (a loose object is
hashed, a new pack verified by git), refs and reflogs (what they newly reach is read by
`git_refs.brought`), the index (what it holds is read by git: `git_index`), HEAD and the state
files of a merge or a bisect. Not free: changing an existing object (objects never change),
its config, hooks, info/, commondir, gitdir, worktrees, modules, alternates, replace refs, an
interactive rebase's or cherry-pick's todo (its `exec` lines run), the commit-graph or
multi-pack index that git verify doesn't accept — and deleting anything but the state files git
itself removes (objects, refs, reflogs, config, hooks: history and safeguards).

A new repository (a clone, `git init`) is free when its config sets nothing that runs a program,
it has no hook, no commondir, gitdir, worktrees or alternates, and neither its index nor
anything its refs reach holds a protected path.
"""

from __future__ import annotations

import hashlib
import os
import stat
import zlib
from collections.abc import Callable
from pathlib import Path

from agent_tui.sandbox.changes import Change

GIT_STATE_DIRS = frozenset({"objects", "refs", "logs", "rr-cache", "lost-found", "lfs"})
GIT_STATE_FILES = frozenset(
    {"HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "MERGE_RR"}
    | {"AUTO_MERGE", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "COMMIT_EDITMSG"}
    | {"TAG_EDITMSG", "SQUASH_MSG", "NOTES_EDITMSG", "packed-refs", "index", "description"}
    | {"shallow", "gc.log", "gc.pid", "gitk.cache", "BISECT_LOG", "BISECT_START"}
    | {"BISECT_TERMS", "BISECT_EXPECTED_REV", "BISECT_ANCESTORS_OK", "BISECT_NAMES", "BISECT_RUN"}
)
#: what git itself deletes in the course of its work: deleting it is free
_DELETABLE = GIT_STATE_FILES - {"HEAD", "packed-refs", "index", "description", "shallow"}
_ALTERNATES = (("objects", "info", "alternates"), ("objects", "info", "http-alternates"))
#: derived files git can check itself (`git … verify`)
_VERIFIABLE: dict[tuple[str, ...], tuple[str, str]] = {
    ("objects", "info", "commit-graph"): ("commit-graph", "verify"),
    ("objects", "pack", "multi-pack-index"): ("multi-pack-index", "verify"),
}


def _shown(found: list[str]) -> str:
    return ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")


def loose_object_problem(path: Path, name: str) -> str | None:
    """Why the loose object file `path` isn't the object `name` (its content's hash), or None."""
    try:
        data = zlib.decompress(path.read_bytes())
    except (OSError, zlib.error):
        return "a loose object git can't read"
    algo = hashlib.sha256 if len(name) == 64 else hashlib.sha1
    if algo(data).hexdigest() != name.lower():
        return "an object whose name isn't its content's (it would change what git checks out)"
    return None


def _git(args: list[str], git_dir: Path, objects: Path, alternates: Path | None) -> bool:
    """git `args` over the command's objects (and the project's): whether it succeeded."""
    from agent_tui import git_run

    env = {"GIT_DIR": str(git_dir), "GIT_OBJECT_DIRECTORY": str(objects)}
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    if alternates is not None:
        env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = str(alternates)
    try:
        git_run.run(Path("/"), *args, env=env, check=True)
    except git_run.GitError:
        return False
    return True


class Repository:
    """One git directory of the project whose files the change set touches."""

    def __init__(self, root: Path, upper: Path, folder: str, existing: bool) -> None:
        self.root, self.upper, self.folder, self.existing = root, upper, folder, existing
        self.lower_dir = root / folder
        self.upper_dir = upper / folder
        self._packs: dict[str, bool] = {}
        self._new_objects: set[str] | None = None

    def _packed_away(self, inner: list[str]) -> bool:
        """A deletion `git gc` makes: a loose object (or a folder of them), or an old pack, whose
        objects are all in the command's new packs; a loose ref now in its new packed-refs (its
        value, if it moved, is read with the other moved refs)."""
        from agent_tui.sandbox.git_refs import packed_value

        if inner[:1] == ["refs"] and len(inner) > 2:
            name = "/".join(inner)
            return packed_value(self.upper_dir / "packed-refs", name) is not None
        if inner[:1] == ["objects"] and len(inner) == 2 and len(inner[1]) == 2:
            try:
                names = [
                    inner[1] + e.name for e in os.scandir(self.lower_dir / "objects" / inner[1])
                ]
            except OSError:
                return False
            return {n.lower() for n in names} <= self._new_packed()
        if inner[:1] != ["objects"] or len(inner) != 3:
            return False
        if inner[1] == "pack":
            if not inner[2].endswith(".idx"):  # its .pack, .rev …: with the .idx
                stem = inner[2].rsplit(".", 1)[0]
                return self._packed_away(["objects", "pack", f"{stem}.idx"])
            old = _pack_objects(self.lower_dir / "objects" / "pack" / inner[2])
            return old is not None and old <= self._new_packed()
        if len(inner[1]) == 2:
            return (inner[1] + inner[2]).lower() in self._new_packed()
        return False

    def _new_packed(self) -> set[str]:
        """Every object the command's new packs hold."""
        if self._new_objects is None:
            self._new_objects = set()
            pack_dir = self.upper_dir / "objects" / "pack"
            for idx in pack_dir.glob("*.idx") if pack_dir.is_dir() else ():
                if self._pack(idx.name, str(idx)) is None:  # only a pack git verifies counts
                    self._new_objects |= _pack_objects(idx) or set()
        return self._new_objects

    def _verified(self, args: list[str]) -> bool:
        alternates = self.lower_dir / "objects" if self.existing else None
        git_dir = self.lower_dir if self.existing else self.upper_dir
        return _git(args, git_dir, self.upper_dir / "objects", alternates)

    def why(self, change: Change, inner: list[str]) -> str | None:
        """Why `change` (at `inner` inside the git directory) needs the person, or None."""
        name = "/".join(inner)
        where = f"{self.folder}/{name}"
        head = inner[0] if inner else ""
        if not self.existing:  # judged as a whole (`reasons`); its objects one by one
            return self._object(change, inner, where) if head == "objects" else None
        if change.kind == "delete":
            if len(inner) == 1 and (head in _DELETABLE or head.endswith(".lock")):
                return None
            if self._packed_away(inner):
                return None
            return f"it deletes {where} (git's history, configuration or safeguards)"
        if tuple(inner[:3]) in _ALTERNATES:
            return f"{where}: git would read objects from elsewhere"
        if inner[:2] == ["refs", "replace"]:
            return f"{where}: a replace ref changes what git checks out for an object"
        if head == "objects":
            return self._object(change, inner, where)
        if (head in ("refs", "logs") and len(inner) > 1) or head in GIT_STATE_DIRS:
            return None
        if inner == ["info", "refs"]:
            return None  # the refs list `git gc` (update-server-info) writes for dumb transports
        if len(inner) == 1 and (head in GIT_STATE_FILES or head.endswith(".lock")):
            return None  # the index is read apart (`index_adds`), HEAD's target with the refs
        return f"git's internals ({where}): git reads them as configuration or runs them"

    def _object(self, change: Change, inner: list[str], where: str) -> str | None:
        if change.kind == "dir":
            return None
        if change.below != "none":
            return f"it changes an existing git object ({where}): objects never change"
        if change.kind != "file" or change.upper is None:
            return f"{where} is not a file: git's objects are"
        verify = _VERIFIABLE.get(tuple(inner))
        if verify is not None:
            return None if self._verified([*verify]) else f"{where} doesn't verify"
        if len(inner) == 3 and len(inner[1]) == 2 and inner[1] != "pack" and inner[1] != "info":
            return loose_object_problem(change.upper, inner[1] + inner[2])
        if len(inner) == 3 and inner[1] == "pack":
            return self._pack(inner[2], where)
        return None  # objects/info/packs and the like: lists, rebuilt by git

    def _pack(self, name: str, where: str) -> str | None:
        base = name.rsplit(".", 1)[0]
        if base not in self._packs:
            idx = self.upper_dir / "objects" / "pack" / f"{base}.idx"
            self._packs[base] = idx.exists() and self._verified(["verify-pack", str(idx)])
        return None if self._packs[base] else f"{where}: a pack git doesn't verify"

    def index_adds(self, protected: Callable[[str], bool]) -> list[str]:
        """Protected paths the command's new index adds (all of a new repository's)."""
        from agent_tui.permissions.git_index import (
            IndexAmbiguous,
            IndexUnreadable,
            added,
            read_index,
        )

        new_index = self.upper_dir / "index"
        if not new_index.exists():
            return []
        git_dir = self.lower_dir if self.existing else self.upper_dir
        try:
            old = read_index(self.lower_dir / "index", self.lower_dir) if self.existing else {}
            new = read_index(new_index, git_dir)
        except IndexAmbiguous:
            return ["(names git lists one way and checks out another)"]
        except (OSError, IndexUnreadable):
            return ["(git can't read the new index)"]
        found = []
        for path in added(old, new):
            followed = self._followed(path)
            if followed is None:
                found.append(f"{path} (through a link out of the project)")
            elif protected(path) or protected(followed):
                found.append(path if followed == self._in_tree(path) else f"{path} ({followed})")
        return found

    def _in_tree(self, path: str) -> str:
        """`path` (in the work tree) relative to the project."""
        tree = self.folder.rsplit("/", 1)[0] if "/" in self.folder else ""
        return os.path.normpath(f"{tree}/{path}" if tree else path)

    def _followed(self, path: str) -> str | None:
        """Where an index entry lands, relative to the project: `path` in the work tree with
        every folder on the way that is (after the change set) a symbolic link replaced by
        where it points; None when that is outside the project."""
        todo = self._in_tree(path).split("/")
        name = todo.pop()
        done: list[str] = []
        hops = 0
        while todo:
            part = todo.pop(0)
            if part in ("", "."):
                continue
            if part == "..":
                if not done:
                    return None
                done.pop()
                continue
            done.append(part)
            target = self._link_at("/".join(done))
            if target is None:
                continue
            hops += 1
            if hops > 40:
                return None
            done.pop()
            if target.startswith("/"):
                if not Path(target).is_relative_to(self.root):
                    return None
                done = []
                target = Path(target).relative_to(self.root).as_posix()
            todo = target.split("/") + todo
        return "/".join([*done, name])

    def _link_at(self, rel: str) -> str | None:
        """What the symbolic link at `rel` points to after the change set (None: no link)."""
        for base in (self.upper, self.root):
            try:
                st = os.lstat(base / rel)
            except OSError:
                continue
            return os.readlink(base / rel) if stat.S_ISLNK(st.st_mode) else None
        return None

    def work_tree_part(self, changes: list[Change]) -> list[Change]:
        """Of `changes` (outside git directories), those in this repository's work tree that a
        git command of the change set made, so they land with its state or not at all: every
        deletion (`git stash -u` takes untracked files away into the stash), and every file whose
        content before or after is an object git holds (a stash or reset put the person's version
        away, or a checkout wrote one). A repository that is no `.git` folder has none."""
        parts = self.folder.split("/")
        if parts[-1] != ".git":
            return []
        tree = "/".join(parts[:-1])
        mine = [c for c in changes if not tree or c.rel.startswith(tree + "/")]
        out = [c for c in mine if c.kind == "delete"]
        files: list[tuple[Change, Path]] = []
        for change in mine:
            if change.kind == "file" and change.upper is not None:
                files.append((change, change.upper))
            if change.kind != "delete" and change.below == "file":
                files.append((change, self.root / change.rel))
        known = self._known_blobs([p for _, p in files])
        out += list({c.rel: c for (c, _), k in zip(files, known, strict=True) if k}.values())
        return out

    def _known_blobs(self, paths: list[Path]) -> list[bool]:
        """For each regular file of `paths`: whether its content is an object of the repository
        (its own objects or the command's new ones)."""
        from agent_tui import git_run

        regular = [p for p in paths if _regular(p)]
        if not regular or not git_run.available():
            return [False] * len(paths)
        env = {"GIT_DIR": str(self.lower_dir if self.existing else self.upper_dir)}
        env |= {"GIT_OBJECT_DIRECTORY": str(self.upper_dir / "objects")}
        env |= {"GIT_CONFIG_NOSYSTEM": "1"}
        if self.existing:
            env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = str(self.lower_dir / "objects")
        listing = "".join(f"{p}\n" for p in regular).encode("utf-8", "surrogateescape")
        try:
            names = git_run.run(
                Path("/"), "hash-object", "--no-filters", "--stdin-paths", stdin=listing, env=env
            )
            found = git_run.run(Path("/"), "cat-file", "--batch-check", stdin=names, env=env)
        except git_run.GitError:
            return [False] * len(paths)  # no repository git can open: no git command made them
        lines = found.splitlines()
        if len(lines) != len(regular):
            return [True] * len(paths)
        there = dict(zip(regular, (not ln.endswith(b" missing") for ln in lines), strict=True))
        return [there.get(p, False) for p in paths]

    def reasons(self, changes: list[Change], protected: Callable[[str], bool]) -> list[str]:
        """What the repository's changes as a whole would bring: its index, what its refs and
        reflogs newly reach (and, new, its configuration)."""
        from agent_tui.sandbox.git_refs import brought, is_ref

        out: list[str] = []
        if not self.existing:
            problem = new_repo_problem(self.upper_dir)
            if problem:
                out.append(f"a new repository {self.folder}/: {problem}")
        if any(c.rel == f"{self.folder}/index" for c in changes):
            found = self.index_adds(protected)
            if found:
                out.append(
                    f"{self.folder}/index now holds {_shown(found)} (git checkout would write it)"
                )
        n = len(self.folder.split("/"))
        refs = [
            "/".join(c.rel.split("/")[n:])
            for c in changes
            if c.kind != "delete" and is_ref(c.rel.split("/")[n:])
        ]
        if refs:
            found = brought(
                self.lower_dir, self.upper_dir, refs, protected, new_repository=not self.existing
            )
            if found:
                out.append(
                    f"its new commits hold {_shown(found)} (git checkout, reset or stash pop "
                    "would write it)"
                )
        return out


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode) and "\n" not in str(path)
    except OSError:
        return False


def _pack_objects(idx: Path) -> set[str] | None:
    """The objects a pack index lists (`git show-index`), or None when git can't read it."""
    from agent_tui import git_run

    try:
        data = idx.read_bytes()
        out = git_run.run(Path("/"), "show-index", stdin=data, check=True)
    except (OSError, git_run.GitError):
        return None
    return {line.split()[1].lower() for line in out.decode().splitlines() if len(line.split()) > 1}


def new_repo_problem(git_dir: Path) -> str | None:
    """Why a repository the command created would run a program, or None."""
    from agent_tui.permissions.git_config import programs

    for name in ("commondir", "gitdir"):
        if (git_dir / name).exists():
            return f"it has a {name} file (git would read another repository's config)"
    for name in ("worktrees", "rebase-merge", "rebase-apply", "sequencer"):
        if (git_dir / name).exists():
            return f"it has {name}/ (its files point elsewhere or name commands)"
    if (git_dir / "refs" / "replace").exists():
        return "it has replace refs (they change what git checks out)"
    for alternates in _ALTERNATES:
        if git_dir.joinpath(*alternates).exists():
            return "it reads objects from elsewhere (alternates)"
    return programs([git_dir])
