"""Undo and rewind: a plan that puts files back as they were before a checkpoint, checked against
the disk, and carrying it out.

A file is a conflict when what is on disk now is not what the agent last left there, when it was
changed between two of the agent's changes, or when a change to it could not be told apart from
the person's (a call the app was killed in): someone else may have changed it, and that work is
never overwritten unless the person chooses that file for this restore. A file whose folders no
longer lead where they did (a symbolic link planted since) is refused outright.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.checkpoints import confined
from agent_tui.checkpoints.attribution import UNRECORDED
from agent_tui.checkpoints.blobs import EXECUTABLE, SYMLINK, blob_id, read_file
from agent_tui.checkpoints.confined import Journal, Refused, refusal
from agent_tui.checkpoints.git_tree import GitWorkTree, TreeChange
from agent_tui.diffs import unified_diff
from agent_tui.protocol.events import FilesChanged

BlobReader = Callable[[str], bytes | None]


@dataclass(frozen=True, slots=True)
class FileRestore:
    path: Path
    #: the content to put back (None: the file did not exist, so it is removed)
    target: bytes | None
    target_mode: str
    current: bytes | None
    #: why the file is a conflict ("" when it is not): kept unless the person chooses it
    conflict: str = ""
    #: why the file can't be touched at all ("" when it can): a folder on its way is now a link
    refused: str = ""

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
    #: the project root: every path is reached from it without following a symbolic link
    root: Path = field(default_factory=lambda: Path("/"))
    files: list[FileRestore] = field(default_factory=list)
    #: calls whose changes could not be captured (outside git): listed, not restored
    unrestorable: list[str] = field(default_factory=list)
    #: files whose earlier content is gone (a pruned git object)
    missing: list[str] = field(default_factory=list)
    #: calls that ran after the last record (the app was killed): what they may have changed
    #: is among the conflicts
    interrupted: list[str] = field(default_factory=list)

    @property
    def conflicts(self) -> list[FileRestore]:
        return [f for f in self.changes if f.conflict]

    @property
    def changes(self) -> list[FileRestore]:
        """The files the person may choose to restore."""
        return [f for f in self.files if f.needed and not f.refused]

    @property
    def refused(self) -> list[FileRestore]:
        return [f for f in self.files if f.refused]

    @property
    def safe(self) -> frozenset[Path]:
        """What is restored unless the person chooses otherwise: every change but conflicts."""
        return frozenset(f.path for f in self.changes if not f.conflict)


def plan_restore(
    history: Iterable[FilesChanged],
    to: int,
    read_blob: BlobReader,
    root: Path | None = None,
    changed_since: Callable[[str], list[TreeChange]] | None = None,
) -> RestorePlan:
    """What restoring to the start of checkpoint `to` would do (reads the disk, writes nothing).
    `root`: the project; a path whose folders no longer lead where they did is refused.
    `changed_since(tree)`: what differs now from a snapshot, for a call the app was killed in."""
    undone = [c for c in history if c.checkpoint >= to]
    plan = RestorePlan(to, undone, root or Path("/"))
    entries: dict[str, list[dict[str, object]]] = {}
    for checkpoint in undone:
        for entry in checkpoint.files:
            entries.setdefault(str(entry["path"]), []).append(entry)
        for entry in _unrecorded(checkpoint, plan, changed_since):
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
        mode = str(first.get("before_mode") or "")
        refused = refusal(plan.root, path)
        if refused:  # not even read: it would be read from wherever the link points
            plan.files.append(FileRestore(path, target, mode, None, refused=refused))
            continue
        try:
            found = read_file(path)
        except OSError as exc:
            plan.missing.append(f"{name} ({exc.strerror or exc})")
            continue
        current = None if found is None else found[0]
        conflict = _conflict(changes, None if current is None else blob_id(current), last)
        plan.files.append(FileRestore(path, target, mode, current, conflict))
    plan.files.sort(key=lambda f: str(f.path))
    return plan


def _unrecorded(
    checkpoint: FilesChanged,
    plan: RestorePlan,
    changed_since: Callable[[str], list[TreeChange]] | None,
) -> list[dict[str, object]]:
    """What the calls a kill cut short may have changed, as changes no one can vouch for."""
    found: list[dict[str, object]] = []
    for call in checkpoint.interrupted:
        subject = f"{call.get('tool', '')}: {call.get('subject', '')}"
        plan.interrupted.append(subject)
        why = UNRECORDED.format(tool=call.get("tool", "a call"), subject=call.get("subject", ""))
        if call.get("path"):
            found.append(
                {
                    "path": call["path"],
                    "before": call.get("before"),
                    "before_mode": call.get("before_mode", ""),
                    "unattributed": why,
                }
            )
        elif call.get("tree") and changed_since is not None:
            for c in changed_since(str(call["tree"])):
                found.append(
                    {
                        "path": str(c.path),
                        "before": c.old,
                        "before_mode": c.old_mode if c.old else "",
                        "after": c.new,
                        "unattributed": why,
                    }
                )
        elif not call.get("tree"):
            plan.unrestorable.append(str(call.get("subject", "")))
    return found


def _conflict(
    changes: list[dict[str, object]], current: str | None, last: dict[str, object]
) -> str:
    for change in changes:
        if change.get("unattributed"):
            return str(change["unattributed"])
        if change.get("maybe_yours") and current is not None and current == last.get("after"):
            return str(change["maybe_yours"])
    if current != last.get("after"):
        return "changed since the agent's last change to it"
    for earlier, later in itertools.pairwise(changes):
        if later.get("before") != earlier.get("after"):
            return "changed between two of the agent's changes to it"
    return ""


def apply_restore(
    plan: RestorePlan, chosen: Collection[Path] | None, scratch: Journal
) -> tuple[list[str], list[str]]:
    """Restore the files in `chosen` (None: `plan.safe`, every change but the conflicts).
    Returns (restored, kept) paths; a file that fails to be written or is refused is kept, and
    named in the second list with the reason."""
    chosen = plan.safe if chosen is None else frozenset(chosen)
    restored: list[str] = []
    kept: list[str] = []
    for f in plan.files:
        if f.refused:  # never read, so never known to be as it should
            kept.append(f"{f.path} (refused: {f.refused})")
            continue
        if not f.needed:
            continue
        if f.path not in chosen:
            kept.append(str(f.path))
            continue
        try:
            _put(plan.root, f, scratch)
        except Refused as exc:
            kept.append(f"{f.path} (refused: {exc.strerror or exc})")
            continue
        except OSError as exc:
            kept.append(f"{f.path} ({exc.strerror or exc})")
            continue
        restored.append(str(f.path))
    return restored, kept


def _put(root: Path, f: FileRestore, scratch: Journal) -> None:
    if f.target is None:
        confined.delete(root, f.path)
    elif f.target_mode == SYMLINK:
        confined.symlink(root, f.path, os.fsdecode(f.target), scratch=scratch)
    else:
        confined.write(
            root, f.path, f.target, executable=f.target_mode == EXECUTABLE, scratch=scratch
        )


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
