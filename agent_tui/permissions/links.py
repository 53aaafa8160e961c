"""Links the engine would otherwise look through: ones a command makes before it writes
(`ln -s /outside d && echo x > d/f`), and hard links that already exist (a project file that is
also `~/.bashrc` under another name: writing one writes the other)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from agent_tui.permissions.analysis import Analysis, Word

#: commands that can put a link (or a copied symlink) at the path they write; git checks out
#: the symlinks another tree holds (`git checkout BRANCH -- d`)
LINKERS = frozenset({"ln", "link", "cp", "mv", "install", "rsync", "git"})


def made_links(a: Analysis, linkers: frozenset[str] = LINKERS) -> list[Word]:
    """Paths the command's own `ln`/`cp`/`mv`/`git checkout`/… write: a later write or read
    may pass through."""
    return [w for w, _ in _made(a, linkers)]


def _made(a: Analysis, linkers: frozenset[str]) -> list[tuple[Word, str]]:
    texts = {
        p.text for p in a.parts if p.argv and p.argv[0] and os.path.basename(p.argv[0]) in linkers
    }
    return [(w, text) for w, text in a.operand_writes if text in texts]


def through_made_link(
    a: Analysis, lexical: Callable[[str], Path], targets: list[tuple[Word, str]]
) -> str | None:
    """Why a write (target, text of the part that writes it) may go through a link the same
    command makes, or None."""
    links = _made(a, LINKERS)
    if not links:
        return None
    if any(w is None for w, _ in links):
        return "the command makes links whose names aren't known statically"
    # a write to the very path `ln` made writes its target (`ln /outside/f h && echo >> h`)
    linked = {lexical(w) for w, _ in _made(a, frozenset({"ln", "link"})) if w is not None}
    for target, text in targets:
        if target is None:
            continue
        path = lexical(target)
        for shown, maker in links:
            link = lexical(shown or "")
            if maker == text and path == link:
                continue  # the link itself, written by the part that makes it
            if (path == link and link in linked) or (path != link and path.is_relative_to(link)):
                return f"writes {target} through {shown}, which the same command makes"
    return None


def hard_linked(path: Path | None) -> str | None:
    """Why writing this existing file may change a file elsewhere (it has other hard links)."""
    if path is None:
        return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        return f"{path} has {st.st_nlink - 1} other hard link(s), possibly outside the project"
    return None
