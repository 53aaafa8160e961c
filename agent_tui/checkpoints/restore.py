"""Undo and rewind: a plan that puts files back as they were before a checkpoint, checked against
the disk, and carrying it out.

A file is a conflict when what is on disk now is not what the agent last left there, or when it
was changed between two of the agent's turns: someone else (the person, their editor) changed it,
and that work is never overwritten unless the person says so for this restore.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.checkpoints.blobs import EXECUTABLE, SYMLINK, blob_id, read_file
from agent_tui.checkpoints.git_tree import GitWorkTree
from agent_tui.protocol.events import FilesChanged
from agent_tui.tools.diffs import unified_diff
from agent_tui.tools.text_files import atomic_write

BlobReader = Callable[[str], bytes | None]


@dataclass(frozen=True, slots=True)
class FileRestore:
    path: Path
    #: the content to put back (None: the file did not exist, so it is removed)
    target: bytes | None
    target_mode: str
    current: bytes | None
    #: why the file is a conflict ("" when it is not)
    conflict: str = ""

    @property
    def needed(self) -> bool:
        return self.current != self.target

    @property
    def action(self) -> str:
        if not self.needed:
            return "unchanged"
        if self.target is None:
            return "delete"
        return "create" if self.current is None else "restore"


@dataclass
class RestorePlan:
    #: the checkpoint restored to (its turn's start), and the turns undone
    to: int
    checkpoints: list[FilesChanged]
    files: list[FileRestore] = field(default_factory=list)
    #: calls whose changes could not be captured (outside git): listed, not restored
    unrestorable: list[str] = field(default_factory=list)
    #: files whose earlier content is gone (a pruned git object)
    missing: list[str] = field(default_factory=list)

    @property
    def conflicts(self) -> list[FileRestore]:
        return [f for f in self.files if f.conflict and f.needed]

    @property
    def changes(self) -> list[FileRestore]:
        return [f for f in self.files if f.needed]


def plan_restore(history: Iterable[FilesChanged], to: int, read_blob: BlobReader) -> RestorePlan:
    """What restoring to the start of checkpoint `to` would do (reads the disk, writes nothing)."""
    undone = [c for c in history if c.checkpoint >= to]
    plan = RestorePlan(to, undone)
    entries: dict[str, list[dict[str, object]]] = {}
    for checkpoint in undone:
        for entry in checkpoint.files:
            entries.setdefault(str(entry["path"]), []).append(entry)
        plan.unrestorable.extend(c for c in checkpoint.unrestorable if c not in plan.unrestorable)
    for name, changes in entries.items():
        path = Path(name)
        first, last = changes[0], changes[-1]
        before = first.get("before")
        target = None if before is None else read_blob(str(before))
        if before is not None and target is None:
            plan.missing.append(name)
            continue
        try:
            found = read_file(path)
        except OSError as exc:
            plan.missing.append(f"{name} ({exc.strerror or exc})")
            continue
        current = None if found is None else found[0]
        plan.files.append(
            FileRestore(
                path,
                target,
                str(first.get("before_mode") or ""),
                current,
                _conflict(changes, None if current is None else blob_id(current), last),
            )
        )
    plan.files.sort(key=lambda f: str(f.path))
    return plan


def _conflict(
    changes: list[dict[str, object]], current: str | None, last: dict[str, object]
) -> str:
    if current != last.get("after"):
        return "changed since the agent's last change to it"
    for earlier, later in itertools.pairwise(changes):
        if later.get("before") != earlier.get("after"):
            return "changed between two of the agent's turns"
    return ""


def apply_restore(plan: RestorePlan, *, overwrite: bool = False) -> tuple[list[str], list[str]]:
    """Carry out `plan`; conflicts only with `overwrite`. Returns (restored, kept) paths.

    A file that fails to be written is kept (and named in the second list with the reason)."""
    restored: list[str] = []
    kept: list[str] = []
    for f in plan.changes:
        if f.conflict and not overwrite:
            kept.append(str(f.path))
            continue
        try:
            _put(f)
        except OSError as exc:
            kept.append(f"{f.path} ({exc.strerror or exc})")
            continue
        restored.append(str(f.path))
    return restored, kept


def _put(f: FileRestore) -> None:
    path = f.path
    if f.target is None:
        if path.is_symlink() or path.is_file():
            path.unlink()
        return
    if f.target_mode == SYMLINK:
        if path.is_symlink() or path.exists():
            path.unlink()
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(os.fsdecode(f.target), path)
        return
    if path.is_symlink():
        path.unlink()
    atomic_write(path, f.target)
    if f.target_mode == EXECUTABLE:
        mode = path.stat().st_mode
        path.chmod(mode | (mode & 0o444) >> 2)


def file_diff(old: bytes | None, new: bytes | None, shown: str) -> str:
    """A unified diff between two versions of a file (either may be absent), for reading."""
    if old is not None and new is not None and (_binary(old) or _binary(new)):
        return f"(binary file {shown}: {len(old):,} → {len(new):,} bytes)"
    if (old is not None and _binary(old)) or (new is not None and _binary(new)):
        data = old if new is None else new
        how = "removed" if new is None else "added"
        return f"(binary file {shown}, {len(data or b''):,} bytes, {how})"
    before = None if old is None else old.decode("utf-8", "replace")
    if new is None:
        diff = unified_diff(before or "", "", shown)
        return diff.replace(f"+++ b/{shown}", "+++ /dev/null", 1)
    return unified_diff(before, new.decode("utf-8", "replace"), shown)


def _binary(data: bytes) -> bool:
    return b"\0" in data[:8192]


def blob_reader(
    blobs: Callable[[str], bytes | None], find_git: Callable[[], GitWorkTree | None]
) -> BlobReader:
    """Read a blob from the session's saved contents, else from the repository (looked for
    only when a blob is not among the saved ones)."""
    git: list[GitWorkTree | None] = []

    def read(blob: str) -> bytes | None:
        found = blobs(blob)
        if found is None:
            if not git:
                git.append(find_git())
            found = git[0].blob(blob) if git[0] is not None else None
        return found

    return read
