"""The commit gate outside git directories: which of a command's changes to ordinary files would
let code run outside the sandbox later, or lose what can't be brought back.

- a protected name (`permissions/protected.py`), at any depth, created or changed; a shell
  start-up file only where the project is the home folder;
- a file a protected name links to;
- a symbolic link out of the project (to a secret, `/proc/self/environ`, …): the sandbox couldn't
  reach there, but the app (reading CLAUDE.md) and the person could — unless its target is one
  the sandbox itself shows (a virtual environment's `python` → the system's);
- a folder that becomes a git directory (git's own test, after the change set);
- a new `pyvenv.cfg` unless its `home` is a Python outside the project (a new virtual
  environment lands);
- in an environment the project held before the command (a virtual environment, node_modules,
  …): its programs and start-up code (`gate_envs.py`), held as one unit per environment;
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
from agent_tui.sandbox.gate_envs import Environments
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

    @cached_property
    def environments(self) -> Environments:
        return Environments(self.root, self.by_rel, home_root=self.home_root)

    def installed(self, change: Change) -> tuple[str, str] | None:
        """(the environment, why) when `change` is a program or start-up code of an environment
        that was there before the command: held with the rest of what it holds there."""
        return self.environments.held(change)

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
        for check in (self._linked, self._link_out, self._named, self._git_dir):
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
        if parts[-1] == "pyvenv.cfg" and change.created and self._plain_venv(change):
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

    def _plain_venv(self, change: Change) -> bool:
        """A new pyvenv.cfg whose `home` is a Python installation outside the project."""
        if change.upper is None:
            return False
        try:
            text = change.upper.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            return False
        values = {
            k.strip().lower(): v.strip()
            for k, _, v in (ln.partition("=") for ln in text.splitlines())
        }
        home = Path(values.get("home", ""))
        if not home.is_absolute() or home.resolve().is_relative_to(self.root):
            return False
        return any(os.access(home / name, os.X_OK) for name in ("python3", "python"))
