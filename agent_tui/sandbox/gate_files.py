"""The commit gate outside git directories: which of a command's changes to ordinary files would
let code run outside the sandbox later, or lose what can't be brought back.

- a protected name (`permissions/protected.py`), at any depth, created or changed; a shell
  start-up file only where the project is the home folder;
- a file a protected name links to;
- a symbolic link out of the project (to a secret, `/proc/self/environ`, …): the sandbox couldn't
  reach there, but the app (reading CLAUDE.md) and the person could — unless its target is one
  the sandbox itself shows (a virtual environment's `python` → the system's);
- a folder that becomes a git directory (git's own test, after the change set);
- code the person's tools run later, judged by place (`protected.package_place`): anything in a
  `site-packages/` or `node_modules/` at any depth, a virtual environment's `pyvenv.cfg` and
  anything in its `bin/` (a new script as well as its `python`); what an environment's changes
  are held for holds the whole environment (`group`): it lands whole or not at all;
- a folder git runs hooks from (`core.hooksPath` inside the project);
- deleting or replacing a file too large to keep for undo (it would be gone for good).
Byte-code caches (`__pycache__/*.pyc`) are never carried over: Python makes them again, and one
can stand in for an unchanged source file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from functools import cached_property
from pathlib import Path

from agent_tui.permissions.protected import HOME_ONLY, protected_reason
from agent_tui.sandbox.changes import Change
from agent_tui.sandbox.commit import KEEP_LIMIT
from agent_tui.sandbox.links import protected_links

#: a folder's entries that make it a git directory (git's test), or configure one
GIT_DIR_NAMES = frozenset(
    {"HEAD", "objects", "refs", "config", "commondir", "index", "info", "hooks", "packed-refs"}
)


def is_byte_code(rel: str) -> bool:
    parts = rel.split("/")
    return len(parts) > 1 and parts[-2] == "__pycache__" and parts[-1].endswith(".pyc")


class Files:
    def __init__(
        self,
        root: Path,
        upper: Path,
        by_rel: dict[str, Change],
        *,
        home_root: bool,
        visible: Callable[[Path], bool] | None,
        hook_folders: tuple[str, ...],
    ) -> None:
        self.root, self.upper, self.by_rel = root, upper, by_rel
        self.home_root = home_root
        self.visible = visible
        self.hook_folders = hook_folders
        self._venvs: dict[str, bool] = {}

    @cached_property
    def links(self) -> list[tuple[str, str, str]]:
        return protected_links(self.root)

    def why(self, change: Change) -> str | None:
        parts = change.rel.split("/")
        if change.kind == "delete" or change.below == "file":
            lost = self._too_large(change)
            if lost:
                return lost
        if change.kind == "delete":
            return None  # deleting a protected name runs nothing (the analyser asks for `rm`)
        for check in (self._linked, self._link_out, self._named, self._git_dir, self._venv):
            why = check(change, parts)
            if why:
                return why
        for folder in self.hook_folders:
            if change.rel == folder or change.rel.startswith(folder + "/"):
                return f"git runs hooks from {folder}/ (your core.hooksPath)"
        return None

    # --- the checks ---

    def _too_large(self, change: Change) -> str | None:
        try:
            size = os.lstat(self.root / change.rel).st_size
        except OSError:
            return None
        if change.below == "dir" or size <= KEEP_LIMIT:
            return None
        how = "deletes" if change.kind == "delete" else "replaces"
        return f"it {how} {change.rel} ({size / 2**20:,.0f} MB): too large to keep for undo"

    def _linked(self, change: Change, parts: list[str]) -> str | None:
        for link, target, why in self.links:
            if change.rel == target or change.rel.startswith(target + "/"):
                return f"{link} is a link to it ({why})"
        return None

    def _link_out(self, change: Change, parts: list[str]) -> str | None:
        if change.kind != "link" or change.upper is None:
            return None
        try:
            raw = os.readlink(change.upper)
        except OSError:
            return "a link that can't be read"
        target = Path(os.path.normpath((self.root / change.rel).parent / raw))
        if target.is_relative_to(self.root):
            return None
        shown = self.visible is not None and self.visible(target)
        if shown and not target.is_relative_to("/proc") and not target.is_relative_to("/dev"):
            return None  # a path the sandbox shows anyway (a system interpreter, a toolchain)
        return (
            f"a link out of the project (to {raw}): what the sandbox couldn't read, the app and "
            "you would read through it"
        )

    def _named(self, change: Change, parts: list[str]) -> str | None:
        why = protected_reason(change.rel)
        if why is None or (parts[-1].casefold() in HOME_ONLY and not self.home_root):
            return None
        return why

    def _git_dir(self, change: Change, parts: list[str]) -> str | None:
        if parts[-1] not in GIT_DIR_NAMES:
            return None
        folder = "/".join(parts[:-1])
        if not self.becomes_git_dir(folder):
            return None
        where = f"{folder}/" if folder else "the project itself"
        return f"it makes {where} a git directory (git would read its config and hooks)"

    def _venv(self, change: Change, parts: list[str]) -> str | None:
        venv = self._venv_of(parts)
        if venv is None:
            return None
        return f"it puts {change.rel} among the programs of the environment {venv or '.'}/"

    # --- which environment a change belongs to ---

    def group(self, rel: str) -> str | None:
        """The environment (a folder: `.venv`, `node_modules`) `rel` is installed code of, whose
        changes land or are held together; None when it is in none."""
        from agent_tui.permissions.protected import canonical_parts, package_place

        parts = rel.split("/")
        place = package_place(canonical_parts(rel))
        if place is not None:
            return "/".join(parts[: place[0]])
        if parts[-1] == "pyvenv.cfg":
            return "/".join(parts[:-1])
        return self._venv_of(parts)

    def _venv_of(self, parts: list[str]) -> str | None:
        """The virtual environment (or conda environment) whose `bin/` (`Scripts/`) holds
        `parts`, if any: one there already or one the change set makes."""
        for n in range(len(parts) - 2, -1, -1):
            if parts[n] in ("bin", "Scripts") and self._is_venv("/".join(parts[:n])):
                return "/".join(parts[:n])
        return None

    # --- helpers ---

    def merged_kind(self, rel: str) -> str:
        """What the project will hold at `rel` once the change set is applied."""
        change = self.by_rel.get(rel)
        if change is not None:
            return "none" if change.kind == "delete" else change.kind
        try:
            mode = os.lstat(self.root / rel).st_mode
        except OSError:
            return "none"
        return "dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"

    def becomes_git_dir(self, folder: str) -> bool:
        """Whether git would take `folder` as a git directory after the change set and didn't
        before (counted generously: any HEAD, any objects and refs, or a commondir)."""
        from agent_tui.permissions.git_config import is_git_dir

        prefix = f"{folder}/" if folder else ""
        head = self.merged_kind(prefix + "HEAD") != "none"
        store = self.merged_kind(prefix + "objects") != "none" and (
            self.merged_kind(prefix + "refs") != "none"
        )
        after = head and (store or self.merged_kind(prefix + "commondir") != "none")
        return after and not is_git_dir(self.root / folder)

    def _is_venv(self, folder: str) -> bool:
        """A virtual environment (its `pyvenv.cfg`) or a conda one (`conda-meta/`), there
        already or made by the change set."""
        if folder not in self._venvs:
            prefix = f"{folder}/" if folder else ""
            self._venvs[folder] = any(
                self.merged_kind(prefix + marker) != "none"
                for marker in ("pyvenv.cfg", "conda-meta")
            )
        return self._venvs[folder]
