"""A sandboxed command as a transaction: the project seen through an overlay whose writes land in
an upper directory of the app's own, outside the project, and are read back as the command's
change set when it ends (`changes.py`), judged (`gate.py`) and applied (`commit.py`).

Each transaction is a folder under `<data dir>/changes/` (or `/var/tmp/agent-tui-<uid>/changes`
when the data dir is inside the project: overlayfs refuses an upper directory inside its lower
one): `upper/` and `work/` for the overlay, `stamp` (its ctime is the command's start on the file
system's own clock) and `manifest.json` (the project, the command, the app's process, the state).

A transaction whose command was stopped, or whose app was killed, or whose changes were refused
for want of someone to ask, is *held*: nothing of it reaches the project until the person looks
at it (`agent-tui changes`, `/changes`, or the offer at the next start). Nothing is ever applied
silently from a held one.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.sandbox.changes import Change, read_changes

RUNNING, HELD = "running", "held"


def changes_dir(data_dir: Path, project: Path) -> Path:
    """Where the transactions of commands run in `project` live (never inside it)."""
    base = data_dir / "changes"
    try:
        inside = base.resolve().is_relative_to(project.resolve())
    except OSError:
        inside = False
    if inside:
        return Path("/var/tmp") / f"agent-tui-{os.getuid()}" / "changes"
    return base


def _start_time(pid: int) -> str | None:
    from agent_tui.sandbox.reaper import start_time

    return start_time(pid)


@dataclass
class Transaction:
    folder: Path
    #: the project root the overlay covers (resolved)
    lower: Path
    command: str
    started_ns: int = 0

    @property
    def upper(self) -> Path:
        return self.folder / "upper"

    @property
    def work(self) -> Path:
        return self.folder / "work"

    @property
    def id(self) -> str:
        return self.folder.name

    @classmethod
    def begin(cls, base: Path, lower: Path, command: str, *, label: str = "") -> Transaction:
        """A new transaction's folder, manifest and start stamp (raises OSError)."""
        base.mkdir(parents=True, exist_ok=True, mode=0o700)
        name = time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}-{os.urandom(3).hex()}"
        folder = base / name
        folder.mkdir(mode=0o700)
        txn = cls(folder, lower.resolve(), command)
        txn.upper.mkdir()
        txn.work.mkdir()
        stamp = folder / "stamp"
        stamp.touch()
        txn.started_ns = stamp.stat().st_ctime_ns
        txn._write(RUNNING, label=label)
        return txn

    def arguments(self) -> list[str]:
        """bwrap's arguments that mount the project as this transaction's overlay."""
        low = str(self.lower)
        return ["--overlay-src", low, "--overlay", str(self.upper), str(self.work), low]

    def changes(self) -> list[Change]:
        """The change set so far (read after the command's processes are gone)."""
        return read_changes(self.upper, self.lower, self.started_ns)

    # --- the manifest ---

    def _write(self, state: str, **extra: Any) -> None:
        me = os.getpid()
        manifest = {
            "version": 1,
            "project": str(self.lower),
            "command": self.command,
            "state": state,
            "app_pid": me,
            "app_start": _start_time(me),
            "created": time.time(),
            "started_ns": self.started_ns,
            **extra,
        }
        path = self.folder / "manifest.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(manifest), "utf-8")
        tmp.replace(path)

    def hold(self, reason: str) -> None:
        """Keep what is left of the change set for the person (best effort)."""
        with contextlib.suppress(OSError):
            self._write(HELD, reason=reason)

    def forget(self, rels: list[str]) -> None:
        """Take applied (or discarded) paths out of the upper directory, so what is left is
        exactly what was not applied. Each folder on the way is opened without following a
        link (what the command left there is its own: a link in it leads anywhere)."""
        from agent_tui.checkpoints import confined

        for rel in sorted(rels, key=lambda r: r.count("/"), reverse=True):
            path = self.upper / rel
            with (
                contextlib.suppress(OSError),
                confined.open_parent(self.upper, path, create=False) as fd,
            ):
                st = os.stat(path.name, dir_fd=fd, follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    os.rmdir(path.name, dir_fd=fd)  # a folder still holding held entries stays
                else:
                    os.unlink(path.name, dir_fd=fd)

    def discard(self) -> None:
        remove_folder(self.folder)

    def empty(self) -> bool:
        try:
            return not any(self.upper.iterdir())
        except OSError:
            return True


def remove_folder(folder: Path) -> None:
    """Remove a transaction's folder (or the session's layers), whatever a command left in it:
    overlayfs leaves `work/work` without permissions, and a command can leave a read-only
    folder holding a link to a file of the person's. What rmtree can't remove is made the
    app's again through descriptors opened without following a link — the folder that holds it
    and, for a folder, the entry itself; never what a link points to — and tried once more."""
    tried: set[str] = set()

    def unlock(_func: Any, path: str, _exc: Any) -> None:
        if path in tried:
            return  # made writable once already: it stays (an immutable file, a mount)
        tried.add(path)
        with contextlib.suppress(OSError):
            if _unlock(os.path.dirname(path), os.path.basename(path)):
                shutil.rmtree(path, onerror=unlock)

    shutil.rmtree(folder, onerror=unlock)


_PATH_ONLY = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC


def _unlock(parent: str, name: str) -> bool:
    """Make the folder `parent` writable and remove `name` from it if it isn't a folder, by
    descriptors (a link is removed, its target untouched); True when `name` is a folder, made
    the app's too, for rmtree to go into."""
    folder = os.open(parent, _PATH_ONLY | os.O_DIRECTORY)
    try:
        os.chmod(f"/proc/self/fd/{folder}", stat.S_IRWXU)  # the folder itself, not followed
        entry = os.open(name, _PATH_ONLY, dir_fd=folder)
        try:
            if not stat.S_ISDIR(os.fstat(entry).st_mode):
                os.unlink(name, dir_fd=folder)
                return False
            os.chmod(f"/proc/self/fd/{entry}", stat.S_IRWXU)
            return True
        finally:
            os.close(entry)
    finally:
        os.close(folder)


@dataclass(frozen=True, slots=True)
class HeldSet:
    """A change set waiting for the person: its folder and manifest."""

    folder: Path
    project: Path
    command: str
    reason: str
    created: float

    def transaction(self, started_ns: int = 0) -> Transaction:
        return Transaction(self.folder, self.project, self.command, started_ns)

    @property
    def id(self) -> str:
        return self.folder.name


def _dead(manifest: dict[str, Any]) -> bool:
    from agent_tui.sandbox.reaper import alive

    try:
        pid = int(manifest.get("app_pid", 0))
    except (TypeError, ValueError):
        return True
    return pid != os.getpid() and not alive(pid, manifest.get("app_start"))


def _stopped(folder: Path) -> str:
    """Why a set whose app is gone waits: it stopped while the command ran, or half way through
    applying (what landed is recorded with the rest, for one undo, once the rest is applied)."""
    try:
        with open(folder / "applied" / "entries.jsonl", "rb") as journal:
            landed = sum(1 for _ in journal)
    except OSError:
        return "the app stopped while the command ran"
    return (
        f"the app stopped while applying it ({landed} of its files landed; applying the rest "
        "records them all for undo)"
    )


def held_sets(base: Path, project: Path | None = None) -> list[HeldSet]:
    """The change sets waiting for the person (held, or running in an app that is gone), oldest
    first; only those of `project` when given. Empty leftovers are removed on the way."""
    out: list[HeldSet] = []
    try:
        folders = sorted(p for p in base.iterdir() if p.is_dir())
    except OSError:
        return out
    for folder in folders:
        try:
            manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
        except (OSError, ValueError):
            continue
        state = manifest.get("state")
        if state == RUNNING and not _dead(manifest):
            continue  # a command running now, in this app or another
        where = Path(str(manifest.get("project", "")))
        txn = Transaction(folder, where, str(manifest.get("command", "")))
        if txn.empty():
            remove_folder(folder)
            continue
        if project is not None and where != project.resolve():
            continue
        reason = str(manifest.get("reason") or _stopped(folder))
        out.append(HeldSet(folder, where, txn.command, reason, float(manifest.get("created", 0))))
    return out
