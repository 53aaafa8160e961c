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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.permissions.protected import (
    HOME_ONLY,
    PROTECTED_DIRS,
    PROTECTED_FILES,
)
from agent_tui.sandbox.home import HomeLayout, plan_home
from agent_tui.sandbox.scan import SCAN_LIMIT, read_deny_paths, scan

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
    ".claude/.credentials.json",
    ".claude.json",
    ".codex",
    ".config/git/credentials",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".gem/credentials",
    ".terraform.d/credentials.tfrc.json",
    ".pgpass",
    ".my.cnf",
    ".local/share/keyrings",
    ".password-store",
    ".config/op",
    ".config/hub",
    ".config/anthropic",
    ".cache/huggingface/token",
    ".vault-token",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    ".node_repl_history",
    ".lesshst",
    ".viminfo",
)
#: inside a `.git` directory: what makes git run programs
GIT_PROTECTED = ("config", "hooks", "info")


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
    #: HOME by allow-list (`home.py`); None: the host's home as it is, secrets hidden
    home: HomeLayout | None = None
    #: the project comes through the command's overlay: its writes are the change set
    overlay: bool = False
    #: the host folder bound as /var/tmp (None: the host's)
    var_tmp: Path | None = None

    def is_writable(self, path: Path) -> bool:
        if any(path.is_relative_to(p) for p in self.hidden):
            return False
        if any(path.is_relative_to(p) for p in self.read_only):
            return False
        if any(path == p for p, _ in self.placeholders) or any(
            path.is_relative_to(p) for p, _ in self.placeholders
        ):
            return False
        if self.overlay and path.is_relative_to(self.cwd):
            return True
        if self.home is not None and any(path.is_relative_to(p) for p in self.home.read):
            return False
        if self.home is not None and path.is_relative_to(self.home.home):
            return True  # the session's own home: writable, never the person's
        private = [Path("/tmp")] + ([Path("/var/tmp")] if self.var_tmp is not None else [])
        return any(path.is_relative_to(p) for p in private) or any(
            path.is_relative_to(w) for w in self.writable
        )

    def is_visible(self, path: Path) -> bool:
        """Whether the host's `path` is there inside (the session's own /tmp, home and emptied
        folders replace what the host has under them)."""
        if self.is_hidden(path):
            return False
        shown = [self.cwd, *self.writable, *self.read_only_roots]
        if self.home is not None:
            shown += self.home.read
        if any(path.is_relative_to(p) for p in shown):
            return True
        replaced = [Path("/tmp"), Path("/run")]
        if self.var_tmp is not None:
            replaced.append(Path("/var/tmp"))
        if self.home is not None:
            replaced += [self.home.home, *self.home.masked]
        return not any(path.is_relative_to(r) for r in replaced)

    def is_placeholder(self, path: Path) -> bool:
        """At or under a protected path that didn't exist (it can't be made)."""
        return any(path.is_relative_to(p) for p, _ in self.placeholders)

    def is_hidden(self, path: Path) -> bool:
        return any(path.is_relative_to(p) for p in self.hidden)


def _writable(
    cwd: Path, home: Path, allow_write: Iterable[str], notes: list[str], *, lasting: bool
) -> tuple[list[Path], list[Path]]:
    """What the command may write (the project, or for a `lasting` process each unprotected
    entry at its top, the top itself then a read-only root), with `allowWrite`'s folders that
    exist (one that doesn't is a note); and the read-only roots."""
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
    return writable, roots


def _to_hide(
    candidates: Iterable[Path],
    cwd: Path,
    visible: list[Path],
    home_layout: HomeLayout | None,
    notes: list[str],
) -> list[Path]:
    """Of what should be hidden, what is there and would be seen (`hideable`): nothing under the
    private /tmp or /run, nothing the session's own home replaces."""
    hidden = []
    for real in hideable(candidates, cwd, notes):
        if _unseen(real, visible):
            continue  # under the private /tmp or /run: not visible anyway
        if home_layout is not None and _replaced(real, home_layout, visible):
            continue  # the session's own home, or an emptied folder: not there anyway
        hidden.append(real)
    return hidden


def hideable(candidates: Iterable[Path], cwd: Path, notes: list[str]) -> list[Path]:
    """Of what should be hidden, what is there, resolved: never a folder that holds the working
    directory (a note says so)."""
    found = []
    for p in candidates:
        if not p.exists() and not p.is_symlink():
            continue
        real = p.resolve()
        if cwd.is_relative_to(real):
            notes.append(f"{p} holds the working directory: not hidden")
            continue
        found.append(real)
    return found


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
    private: tuple[Path, Path, Mapping[str, str]] | None = None,
    allow_read: Iterable[Path] = (),
) -> Layout:
    """`lasting`: for a process that runs all session (an MCP server), where placeholders would
    sit in the project the whole time: the project's top level is read-only instead, and each
    entry in it that isn't protected is writable (the server can't make new top-level files).
    `private`: (the session's sandbox folder, its cache layers, the environment): HOME, other
    homes and /var/tmp by allow-list (`home.py`), as for a transaction; None: the host's home
    with its credentials hidden."""
    cwd = cwd.resolve()
    notes: list[str] = []
    writable, roots = _writable(cwd, home, allow_write, notes, lasting=lasting)
    read_only: list[Path] = []
    placeholders: list[tuple[Path, str]] = []
    scanned = list(scan(cwd))
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
    found, more = read_deny_paths(read_deny_globs, cwd, home, paths)
    candidates += found
    notes += more
    home_layout = None
    if private is not None:
        session, layers, environ = private
        home_layout = plan_home(
            home,
            session / "home",
            layers,
            environ=environ,
            allow_read=allow_read,
            keep_visible=[*writable, *roots, *own_install()],
            secrets=[home / s for s in SECRETS],
        )
        notes += home_layout.notes
    visible = writable + roots + (list(home_layout.read) if home_layout is not None else [])
    hidden += _to_hide(candidates, cwd, visible, home_layout, notes)
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
        home=home_layout,
        var_tmp=private[0] / "vartmp" if private is not None else None,
    )


def _replaced(p: Path, home: HomeLayout, visible: list[Path]) -> bool:
    """Under the session's own home or an emptied folder, and not shown from the host."""
    if any(p.is_relative_to(v) for v in visible):
        return False
    return p.is_relative_to(home.home) or any(p.is_relative_to(m) for m in home.masked)


def own_install() -> list[Path]:
    """The app's own Python and code: the bridge falls back to this interpreter where there is
    no perl, and a project's MCP server may be started with it."""
    import sys

    import agent_tui

    places = (sys.prefix, sys.base_prefix, Path(agent_tui.__file__).resolve().parents[1])
    return list(dict.fromkeys(Path(x).resolve() for x in places))


def _own_install(visible: list[Path]) -> list[Path]:
    """The app's own Python and code, read-only, where the private /tmp or the empty /run would
    hide them (a virtual environment or a checkout under /tmp)."""
    return [p for p in own_install() if _unseen(p, visible)]


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
