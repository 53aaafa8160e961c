"""The boundary of a sandboxed command that runs as a transaction: what it sees and where its
writes go. Denies by default:

- the project comes through the command's overlay (its writes are its change set, judged and
  applied when it ends: `transaction.py`); nothing of the project is read-only inside and no
  placeholder is ever made in it — protection is the commit gate's, on what was written;
- HOME is the session's own, with only what toolchains need shown read-only (`home.py`);
  other homes, `/mnt`, `/media` are empty; `/tmp` and `/var/tmp` are the session's;
- hidden on top: the app's own config and data, `denyRead` paths and `Read(...)` deny rules'
  matches, and credentials wherever a shown folder would hold them;
- `/run` is empty (docker, dbus and agent sockets live there) but for `allowUnixSockets`;
- writable besides: the person's `allowWrite` paths (bound as they are: those writes are not
  part of the change set).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from agent_tui.sandbox.home import CACHES, TOOLCHAINS, plan_home
from agent_tui.sandbox.layout import SECRETS, Layout, hideable
from agent_tui.sandbox.scan import read_deny_paths, scan_names

#: where the session's own folders are bound
PRIVATE_TMP = (Path("/tmp"), Path("/var/tmp"))


def _abs(raw: str, cwd: Path, home: Path) -> Path:
    if raw == "~" or raw.startswith("~/"):
        return home / raw[2:]
    p = Path(raw)
    return p if p.is_absolute() else cwd / p


def unlisted_home_entries(home: Path) -> list[Path]:
    """When the project is the home folder: every hidden entry of it (a dot-name) that no
    toolchain or cache of `home.py` lists, down to the listed one where a folder holds one
    (`.config` shows `.config/git`, nothing else of it)."""
    listed = [Path(p) for p in (*TOOLCHAINS, *CACHES)]
    out: list[Path] = []

    def look(folder: Path, depth: int) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            rel = Path(entry.path).relative_to(home)
            if depth == 0 and not entry.name.startswith("."):
                continue  # the project's own files
            if any(p == rel or p.is_relative_to(rel) for p in listed):
                if not any(p == rel for p in listed) and entry.is_dir(follow_symlinks=False):
                    look(Path(entry.path), depth + 1)
                continue
            out.append(Path(entry.path))

    look(home, 0)
    return out


def plan_boundary(
    cwd: Path,
    session: Path,
    cache_layers: Path,
    *,
    home: Path,
    environ: Mapping[str, str],
    app_dirs: Iterable[Path] = (),
    allow_write: Iterable[str] = (),
    allow_read: Iterable[str] = (),
    deny_read: Iterable[str] = (),
    read_deny_globs: Iterable[str] = (),
    sockets: Iterable[str] = (),
    keep_visible: Iterable[Path] = (),
) -> Layout:
    """`session`: the session's sandbox folder (its `tmp`, `vartmp` and `home` live there);
    `cache_layers`: the session's cache layers (an overlay-capable file system)."""
    cwd = cwd.resolve()
    notes: list[str] = []
    writable: list[Path] = []
    for raw in allow_write:
        p = _abs(raw, cwd, home)
        if not p.exists():
            notes.append(f"allowWrite {raw}: does not exist")
        elif p.resolve().is_relative_to(cwd):
            notes.append(f"allowWrite {raw}: inside the project (its writes are the change set)")
        else:
            writable.append(p.resolve())
    secrets = [home / s for s in SECRETS]
    home_layout = plan_home(
        home,
        session / "home",
        cache_layers,
        environ=environ,
        allow_read=[_abs(r, cwd, home) for r in allow_read],
        keep_visible=list(keep_visible),
        secrets=secrets,
    )
    notes += home_layout.notes
    candidates = [*app_dirs, *(_abs(raw, cwd, home) for raw in deny_read)]
    # credentials where something shown holds them (the project is the home folder, a listed
    # path, a folder on PATH)
    shown = [cwd, *writable, *home_layout.read]
    candidates += [s for s in secrets if any(s.is_relative_to(p) for p in shown)]
    if cwd == home.resolve():  # the project is the home folder: its dot-folders by allow-list
        candidates += unlisted_home_entries(home)
    globs = list(read_deny_globs)
    if globs:
        found, more = read_deny_paths(globs, cwd, home, [Path(p) for p in scan_names(cwd)])
        candidates += found
        notes += more
    hidden = hideable(candidates, cwd, notes)
    sockets_shown = [Path(p).expanduser() for p in sockets if Path(p).expanduser().exists()]
    return Layout(
        cwd=cwd,
        tmp=session / "tmp",
        writable=tuple(dict.fromkeys(writable)),
        read_only=(),
        placeholders=(),
        hidden=tuple(dict.fromkeys(hidden)),
        sockets=tuple(sockets_shown),
        notes=tuple(notes),
        home=home_layout,
        overlay=True,
        var_tmp=session / "vartmp",
    )
