"""Which paths are protected through a link or an index entry: a symbolic link with a protected
name makes its target protected (a write there is a write to it), and an index entry for a
protected path is a file the person's next checkout writes."""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.permissions.protected import HOME_ONLY, protected_reason


def protected_entry(path: str) -> bool:
    parts = path.split("/")
    if any(p.casefold().rstrip(". ") in (".git", "git~1") for p in parts):
        return True
    return protected_reason(path) is not None and parts[-1].casefold() not in HOME_ONLY


_LINKS_CACHE: dict[tuple[str, int, int, int], list[tuple[str, str]]] = {}


def _link_target(root: Path, rel: str) -> str | None:
    """Where the symbolic link `rel` points, relative to the project (None: outside it)."""
    try:
        raw = os.readlink(root / rel)
    except OSError:
        return None
    target = Path(os.path.normpath((root / rel).parent / raw))
    if not target.is_relative_to(root):
        return None
    return target.relative_to(root).as_posix()


def _tracked_links(root: Path) -> list[tuple[str, str]]:
    """The symbolic links the project's git index holds, with where they point (cached by the
    index's identity: parsed again only when it changes)."""
    from agent_tui.permissions.git_index import read_index

    index = root / ".git" / "index"
    try:
        st = index.stat()
    except OSError:
        return []
    key = (str(root), st.st_ino, st.st_size, st.st_mtime_ns)
    if key not in _LINKS_CACHE:
        try:
            entries = read_index(index, root / ".git")
        except (OSError, ValueError):
            entries = {}
        found = []
        for path, (mode, _) in entries.items():
            if mode == "120000" and protected_entry(path):
                target = _link_target(root, path)
                if target is not None:
                    found.append((path, target))
        _LINKS_CACHE.clear()
        _LINKS_CACHE[key] = found
    return _LINKS_CACHE[key]


def protected_links(root: Path) -> list[tuple[str, str, str]]:
    """(link, what it points to, why) for each symbolic link with a protected name: a write to
    its target is a write to it. Those the index tracks (a cloned repository's), those at the
    project's top, and a repository's config, hooks and info."""
    found: dict[str, str] = dict(_tracked_links(root))
    try:
        top = [e.name for e in os.scandir(root) if e.is_symlink()]
    except OSError:
        top = []
    for name in top:
        if protected_entry(name):
            target = _link_target(root, name)
            if target is not None:
                found[name] = target
    for name in ("config", "hooks", "info"):
        rel = f".git/{name}"
        if (root / rel).is_symlink():
            target = _link_target(root, rel)
            if target is not None:
                found[rel] = target
    out = []
    for link, target in found.items():
        why = protected_reason(link) or "git's internals"
        out.append((link, target, why))
    return out
