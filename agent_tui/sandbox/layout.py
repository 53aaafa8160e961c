"""What a sandboxed command sees: which paths it may write, which stay read-only inside them, and
which are hidden. Worked out afresh for every command (a `git init` or a new `.envrc` changes it).

- Writable: the working directory, the person's `allowWrite` paths, and a private `/tmp`.
- Read-only inside them: everything `permissions/protected.py` names (the same list the analyser
  asks about), so no later command — the person's, the app's own git or MCP start — runs code the
  sandboxed one planted. Inside `.git` only `config`, `hooks/`, `info/` (and a submodule's) are
  kept: commits must still work. A protected name that doesn't exist at the top of the project is
  covered by an empty read-only placeholder: bubblewrap creates the mount point (an empty file,
  which also keeps a directory of that name from being made) in the project, which is how
  creating it is refused; the runner removes the
  placeholders it made once the command's processes are gone (and the next start, after a crash).
- Hidden: credentials (`~/.ssh`, `~/.aws`, ...), the app's own config and data, `/run` (docker,
  dbus and agent sockets live there), `denyRead` paths and `Read(...)` deny rules — a directory
  becomes an empty tmpfs, a file reads as empty.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from agent_tui.permissions.git_config import is_git_dir
from agent_tui.permissions.protected import (
    HOME_ONLY,
    PROTECTED_DIRS,
    PROTECTED_FILES,
    protected_reason,
)

#: credentials and keys, relative to the home directory
SECRETS = (
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gcloud",
    ".netrc",
    ".docker/config.json",
    ".git-credentials",
    ".config/gh",
    ".kube",
    ".azure",
    ".pypirc",
    ".npmrc",
)
#: inside a `.git` directory: what makes git run programs
GIT_PROTECTED = ("config", "hooks", "info")
#: directories the scan for nested protected names doesn't enter (big, and not where hooks live)
_SKIP = frozenset({"node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache"})
_GLOB_CHARS = frozenset("*?[")
SCAN_DEPTH = 3
#: entries looked at per command (a few ms in a usual project; ~70 ms for 5,000 on a busy machine)
SCAN_LIMIT = 5_000


@dataclass(frozen=True, slots=True)
class Layout:
    cwd: Path
    #: the host directory bound as /tmp
    tmp: Path
    writable: tuple[Path, ...]
    read_only: tuple[Path, ...]
    #: missing protected paths covered by an empty read-only file (a file also keeps a directory
    #: of that name from being made, and removing it after is fast): (path, "file")
    placeholders: tuple[tuple[Path, str], ...]
    hidden: tuple[Path, ...]
    #: Unix sockets under a hidden directory that the person made visible (`allowUnixSockets`)
    sockets: tuple[Path, ...] = ()
    #: bound read-only before the writable binds (a lasting process: the project's top level)
    read_only_roots: tuple[Path, ...] = ()
    #: what could not be applied, said in `/sandbox`
    notes: tuple[str, ...] = field(default_factory=tuple)

    def is_writable(self, path: Path) -> bool:
        if any(path.is_relative_to(p) for p in self.hidden):
            return False
        if any(path.is_relative_to(p) for p in self.read_only):
            return False
        if any(path == p for p, _ in self.placeholders) or any(
            path.is_relative_to(p) for p, _ in self.placeholders
        ):
            return False
        return path.is_relative_to(Path("/tmp")) or any(
            path.is_relative_to(w) for w in self.writable
        )

    def is_placeholder(self, path: Path) -> bool:
        """At or under a protected path that didn't exist (it can't be made)."""
        return any(path.is_relative_to(p) for p, _ in self.placeholders)

    def is_hidden(self, path: Path) -> bool:
        return any(path.is_relative_to(p) for p in self.hidden)


def plan_layout(
    cwd: Path,
    tmp: Path,
    *,
    home: Path,
    app_dirs: Iterable[Path] = (),
    allow_write: Iterable[str] = (),
    deny_write: Iterable[str] = (),
    deny_read: Iterable[str] = (),
    read_deny_globs: Iterable[str] = (),
    sockets: Iterable[str] = (),
    lasting: bool = False,
) -> Layout:
    """`lasting`: for a process that runs all session (an MCP server), where placeholders would
    sit in the project the whole time: the project's top level is read-only instead, and each
    entry in it that isn't protected is writable (the server can't make new top-level files)."""
    cwd = cwd.resolve()
    notes: list[str] = []
    writable = [cwd]
    roots: list[Path] = []
    if lasting:
        roots = [cwd]
        writable = [
            p
            for p in sorted(cwd.iterdir())
            if not p.is_symlink() and p.name not in PROTECTED_DIRS and p.name not in PROTECTED_FILES
        ]
    for raw in allow_write:
        p = _abs(raw, cwd, home)
        if p.exists():
            writable.append(p.resolve())
        else:
            notes.append(f"allowWrite {raw}: does not exist")
    read_only: list[Path] = []
    placeholders: list[tuple[Path, str]] = []
    scanned = list(_scan(cwd))
    if len(scanned) >= SCAN_LIMIT:
        notes.append(
            f"the search for nested protected files stopped at {SCAN_LIMIT:,} entries; "
            "protected files deeper in the tree rely on the analyser"
        )
    for root in [] if lasting else writable:
        _protect_root(root, read_only, placeholders, home=root == home.resolve())
    for entry in scanned:  # the analyser's own test of what is protected
        if entry.git:  # its config, hooks and info; commits still work
            _protect_git(Path(entry.path), read_only, placeholders, create=False)
        elif entry.protected:
            read_only.append(Path(entry.path))
    for raw in deny_write:
        p = _abs(raw, cwd, home)
        if p.exists():
            read_only.append(p.resolve())
    read_only, placeholders = _through_links(read_only, placeholders, writable)
    roots += _own_install(writable + roots)
    hidden: list[Path] = []
    candidates = [home / s for s in SECRETS] + [Path(d) for d in app_dirs]
    candidates += [_abs(raw, cwd, home) for raw in deny_read]
    paths = [Path(e.path) for e in scanned] if read_deny_globs else []
    for pattern in read_deny_globs:
        found, note = _read_deny(pattern, cwd, home, paths)
        candidates += found
        if note:
            notes.append(note)
    for p in candidates:
        if not p.exists() and not p.is_symlink():
            continue
        real = p.resolve()
        if cwd.is_relative_to(real):
            notes.append(f"{p} holds the working directory: not hidden")
            continue
        if _unseen(real, writable + roots):
            continue  # under the private /tmp or /run: not visible anyway
        hidden.append(real)
    shown = []
    for raw in sockets:
        p = Path(os.path.expanduser(raw))
        if p.exists():
            shown.append(p)
    return Layout(
        cwd=cwd,
        tmp=tmp,
        writable=tuple(dict.fromkeys(writable)),
        read_only=tuple(dict.fromkeys(p for p in read_only if not _unseen(p, writable + roots))),
        placeholders=tuple(dict.fromkeys(placeholders)),
        hidden=tuple(dict.fromkeys(hidden)),
        sockets=tuple(shown),
        notes=tuple(notes),
        read_only_roots=tuple(roots),
    )


def _own_install(visible: list[Path]) -> list[Path]:
    """The app's own Python and code, read-only, where the private /tmp or the empty /run would
    hide them (a virtual environment or a checkout under /tmp): the bridge falls back to this
    interpreter where there is no perl, and a project's MCP server may be started with it."""
    import sys

    import agent_tui

    places = (sys.prefix, sys.base_prefix, Path(agent_tui.__file__).resolve().parents[1])
    return [p for p in dict.fromkeys(Path(x).resolve() for x in places) if _unseen(p, visible)]


def _abs(raw: str, cwd: Path, home: Path) -> Path:
    if raw == "~" or raw.startswith("~/"):
        return home / raw[2:]
    p = Path(raw)
    return p if p.is_absolute() else cwd / p


def _unseen(p: Path, writable: list[Path]) -> bool:
    """Under the private /tmp or the hidden /run, and not in a writable bind on top of them."""
    if not (p.is_relative_to("/tmp") or p.is_relative_to("/run")):
        return False
    return not any(p.is_relative_to(w) for w in writable)


def _protect_root(
    root: Path, read_only: list[Path], placeholders: list[tuple[Path, str]], *, home: bool
) -> None:
    for name in sorted(PROTECTED_DIRS | PROTECTED_FILES):
        p = root / name
        if name == ".git" and p.is_dir():
            _protect_git(p.resolve(), read_only, placeholders, create=True)
        elif p.exists() or p.is_symlink():
            read_only.append(p)
        elif name in HOME_ONLY and not home:
            continue  # read only from the home directory: nothing here would run it
        else:
            placeholders.append((p, "file"))


def _protect_git(
    git: Path, read_only: list[Path], placeholders: list[tuple[Path, str]], *, create: bool
) -> None:
    dirs = [git]
    modules = git / "modules"
    if modules.is_dir():  # submodules' own config and hooks
        dirs += [c.parent for c in modules.glob("**/config") if c.parent.name != "info"]
    for d in dirs:
        for name in GIT_PROTECTED:
            p = d / name
            if p.exists() or p.is_symlink():
                read_only.append(p)
            elif create and d == git:
                placeholders.append((p, "file"))
        if (d / "config.worktree").exists():
            read_only.append(d / "config.worktree")


def _through_links(
    read_only: list[Path], placeholders: list[tuple[Path, str]], writable: list[Path]
) -> tuple[list[Path], list[tuple[Path, str]]]:
    """A protected name that is a symlink is protected where it points: the target, when it is
    in a writable place (else nothing can write it anyway); a target that isn't there yet gets
    the placeholder, on its first missing component (a dangling `.envrc -> x` must not let the
    command make `x`, and bwrap can't bind from a dangling link)."""
    kept: list[Path] = []
    shut = list(placeholders)
    for p in read_only:
        if not p.is_symlink():
            kept.append(p)
            continue
        real = p.resolve()
        if not any(real.is_relative_to(w) for w in writable):
            continue
        if real.exists():
            kept.append(real)
            continue
        while not real.parent.exists():
            real = real.parent
        shut.append((real, "file"))
    return kept, shut


#: protected names that don't start with a dot (most don't need the analyser's full test)
_PLAIN = frozenset(n.casefold() for n in PROTECTED_DIRS | PROTECTED_FILES if n[0] != ".")


def _maybe_protected(name: str) -> bool:
    """False for names the analyser's `protected_reason` can't call protected (plain ASCII, no
    leading dot, no `~`, not one of the few protected names without a dot): a fast path only."""
    if not name.isascii() or name.startswith(".") or "~" in name:
        return True
    bare = name.casefold().rstrip(". ")
    return bare in _PLAIN or bare.endswith((".git", ".pth"))


def _protected(path: str, root: Path) -> bool:
    return protected_reason(os.path.relpath(path, root)) is not None


class _Entry(NamedTuple):
    path: str
    is_dir: bool
    #: what the analyser protects: a protected name, or a git directory (by name or contents)
    protected: bool
    git: bool


def _scan(root: Path) -> Iterator[_Entry]:
    """Every entry down to SCAN_DEPTH levels, not following symlinks nor entering protected or
    git directories (read-only whole, or kept apart) or big generated ones; at most SCAN_LIMIT
    entries. Names are tested with the analyser's `protected_reason`, git directories with
    `is_git_dir` only where there is a HEAD (one stat), so a large tree stays cheap."""
    seen = 0
    stack = [(str(root), 1)]
    while stack:
        d, depth = stack.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            seen += 1
            if seen > SCAN_LIMIT:
                return
            try:
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            git = is_dir and (
                e.name.casefold().rstrip(". ").endswith(".git")
                or (os.path.isfile(os.path.join(e.path, "HEAD")) and is_git_dir(Path(e.path)))
            )
            protected = git or (_maybe_protected(e.name) and _protected(e.path, root))
            yield _Entry(e.path, is_dir, protected, git)
            if is_dir and depth < SCAN_DEPTH and not protected and e.name not in _SKIP:
                stack.append((e.path, depth + 1))


def _read_deny(
    pattern: str, cwd: Path, home: Path, scanned: list[Path]
) -> tuple[list[Path], str | None]:
    """The existing paths a `Read(...)` deny rule's glob names (and a note when the sandbox can
    only look for them to a limited depth)."""
    from agent_tui.permissions.rules import RuleError, match_path, parse_rule

    body = pattern[:-1] if pattern.endswith("/") else pattern
    if body.endswith("/**"):
        body = body[:-3]
    if not any(c in _GLOB_CHARS for c in body):
        if "/" not in body and not body.startswith("~"):
            # a bare name matches at any depth: look in the scanned tree
            return [p for p in scanned if p.name == body], _depth_note(pattern)
        return [_abs(body.removeprefix("./"), cwd, home)], None
    try:
        rule = parse_rule(f"Read({pattern})")
    except RuleError:
        return [], None
    found = [p for p in scanned if match_path(rule, p, cwd)]
    return found, _depth_note(pattern)


def _depth_note(pattern: str) -> str:
    return (
        f"Read({pattern}): hidden where found within {SCAN_DEPTH} levels of the working "
        "directory (deeper matches rely on the analyser)"
    )
