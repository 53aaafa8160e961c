"""A background shell's transaction, kept live while it runs.

A server or watcher started with `run_in_background` writes to its overlay like any sandboxed
command, but it runs for long: its writes are *synced* into the project as it goes — every second
or two while the agent works, when the model reads its output or stops it, at each turn's end and
when it ends — through the same commit gate (protected files and files changed by someone else
meanwhile are held, never applied, and offered once it ends). An overlay does not see a file
replaced underneath it (nor does a file watcher in it hear of one), so what the agent changes in
the project while the shell runs — a command's change set, a Write or Edit, an undo — is
*mirrored* into the shell's view through its bridge (`inside.py --mirror`): the dev server serves
the new file, the watcher rebuilds.

What the person changes with their own editor meanwhile is not mirrored (the app does not watch
the project): the shell sees it once restarted.

Each path's state is remembered (the upper file as last synced or mirrored, the project's file
as last written by us), so a sync takes only what the shell changed since, and a change the
shell made to a file someone else changed since is a conflict.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent_tui.sandbox.apply_journal import ApplyJournal
from agent_tui.sandbox.changes import Change, read_changes
from agent_tui.sandbox.commit import apply_changes
from agent_tui.sandbox.gate import judge
from agent_tui.sandbox.snapshot import Frozen, freeze
from agent_tui.sandbox.transaction import Transaction

#: a file larger than this is not mirrored (the shell sees it when restarted)
MIRROR_LIMIT = 64 * 1024 * 1024


@dataclass
class Synced:
    """What one sync did."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)
    #: newly held: rel -> why
    held: dict[str, str] = field(default_factory=dict)


def _state(path: Path) -> tuple[int, int, int, int] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode)


def _ctime(path: Path) -> int:
    try:
        return os.lstat(path).st_ctime_ns
    except OSError:
        return 0


class LiveTransaction:
    def __init__(self, txn: Transaction, *, by: str) -> None:
        self.txn = txn
        #: the app's socket the shell's bridge connects to (bound into the sandbox read-only)
        self.socket = Path()
        self.by = by
        self._server: asyncio.AbstractServer | None = None
        self._bridge: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self._connected = asyncio.Event()
        #: what the sandbox shows of the host, and the hook folders, for the gate
        self.visible: Callable[[Path], bool] | None = None
        self.hook_folders: tuple[str, ...] = ()
        #: rel -> the upper entry's state as we last saw it settled (synced, mirrored or held)
        self._seen: dict[str, tuple[int, int, int, int] | None] = {}
        #: rel -> the project's file's ctime after we last wrote or mirrored it
        self._lower: dict[str, int] = {}
        #: what is held (a protected change, a conflict): rel -> why
        self.held: dict[str, str] = {}
        self._lock = asyncio.Lock()
        self._syncs = 0

    # --- the project's changes into the shell's view ---

    async def listen(self, path: Path) -> None:
        """The socket the shell's bridge connects to, once (the app's: nothing inside the
        sandbox can re-point it, nor connect to it — no Unix sockets there)."""
        self.socket = path

        async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if self._bridge is not None:  # only the bridge, once
                writer.close()
                return
            self._bridge = (reader, writer)
            self._connected.set()

        self._server = await asyncio.start_unix_server(accepted, path=str(path))
        os.chmod(path, 0o600)

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        if self._bridge is not None:
            self._bridge[1].close()
            self._bridge = None
        with contextlib.suppress(OSError):
            self.socket.unlink()

    def _pending(self, rel: str) -> bool:
        """The shell changed `rel` since we last settled it (its change wins the sync)."""
        now = _state(self.txn.upper / rel)
        return now is not None and now != self._seen.get(rel, None)

    def _entry(self, rel: str) -> tuple[dict[str, Any], bytes] | None:
        path = self.txn.lower / rel
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return {"rel": rel, "kind": "absent", "size": 0}, b""
        except OSError:
            return None
        if stat.S_ISLNK(st.st_mode):
            target = os.fsencode(os.readlink(path))
            return {"rel": rel, "kind": "link", "size": len(target)}, target
        if stat.S_ISDIR(st.st_mode):
            return {"rel": rel, "kind": "dir", "size": 0}, b""
        if not stat.S_ISREG(st.st_mode) or st.st_size > MIRROR_LIMIT:
            return None
        data = path.read_bytes()
        return {"rel": rel, "kind": "file", "mode": st.st_mode & 0o777, "size": len(data)}, data

    async def mirror(self, rels: list[str]) -> int:
        """Write `rels` (as they are in the project now) through the shell's overlay; the number
        written. Best effort: a shell that is gone, or a bridge that doesn't answer, is left."""
        async with self._lock:
            chosen = [r for r in dict.fromkeys(rels) if not self._pending(r)]
            if not chosen:
                return 0
            try:
                await asyncio.wait_for(self._connected.wait(), 5)
            except TimeoutError:
                return 0
            if self._bridge is None:
                return 0
            reader, writer = self._bridge
            made = await asyncio.to_thread(lambda: [self._entry(r) for r in chosen])
            sent: list[str] = []
            batch = b""
            for rel, entry in zip(chosen, made, strict=True):
                if entry is None:
                    continue
                head, data = entry
                batch += json.dumps(head).encode() + b"\n" + data
                sent.append(rel)
            try:
                writer.write(f"{len(batch)}\n".encode() + batch)
                await writer.drain()
                answer = await asyncio.wait_for(reader.readline(), 30)
            except (OSError, TimeoutError):
                return 0
            for rel in sent:
                self._seen[rel] = _state(self.txn.upper / rel)
                self._lower[rel] = _ctime(self.txn.lower / rel)
            parts = answer.split()
            return int(parts[1]) if len(parts) == 2 and parts[1].isdigit() else 0

    # --- the shell's changes into the project ---

    def _new(self) -> list[Change]:
        """What the shell changed since the last sync, with conflicts against what we know."""
        out: list[Change] = []
        for change in read_changes(self.txn.upper, self.txn.lower, self.txn.started_ns):
            upper = self.txn.upper / change.rel
            now = _state(upper)
            if change.rel in self._seen and self._seen[change.rel] == now:
                continue
            since = self._lower.get(change.rel, self.txn.started_ns)
            conflict = change.below != "none" and _ctime(self.txn.lower / change.rel) > since
            if change.rel not in self._lower:
                conflict = change.conflict
            out.append(replace(change, conflict=conflict and not change.same))
        return out

    async def sync(self, *, blobs: Any = None, scratch: Any = None, ended: bool = False) -> Synced:
        """Apply what the shell changed since the last sync (what needs no one), hold the rest.
        `ended`: the shell's processes are gone (its upper directory can't change any more)."""
        async with self._lock:
            return await asyncio.to_thread(self._sync, blobs, scratch, ended)

    def _sync(self, blobs: Any, scratch: Any, ended: bool = False) -> Synced:
        out = Synced()
        new = self._new()
        if not new:
            return out
        self._syncs += 1
        staging = self.txn.folder / f"sync-{self._syncs}"
        try:
            if ended:  # nothing runs in it: judged and applied as it is, like a command's
                frozen = Frozen(changes=new)
                return self._judge_and_apply(frozen, self.txn.upper, blobs, scratch, out)
            # the shell still runs: what is judged and applied is a copy it can't change
            frozen = freeze(new, self.txn.upper, self.txn.lower, staging)
            return self._judge_and_apply(frozen, staging, blobs, scratch, out)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def _judge_and_apply(
        self, frozen: Frozen, staging: Path, blobs: Any, scratch: Any, out: Synced
    ) -> Synced:
        verdict = judge(
            frozen.changes,
            self.txn.lower,
            staging,
            visible=self.visible,
            hook_folders=self.hook_folders,
        )
        if scratch is None:
            from agent_tui.checkpoints.scratch import Scratch
            from agent_tui.paths import data_dir

            scratch = Scratch(data_dir())
        journal = ApplyJournal(self.txn.folder, staging, self.txn.lower)
        applied = apply_changes(
            self.txn.lower,
            list(verdict.free),
            blobs=blobs,
            by=self.by,
            scratch=scratch,
            journal=journal,
            source=staging,
        )
        out.entries, out.applied = applied.entries, applied.applied

        def settled(rel: str) -> None:
            self._seen[rel] = frozen.states.get(rel) or _state(self.txn.upper / rel)

        for rel in applied.applied:
            settled(rel)
            self._lower[rel] = _ctime(self.txn.lower / rel)
        for change in verdict.unchanged:
            settled(change.rel)
        held = [(u.changes, u.why) for u in (*verdict.protected, *verdict.conflicts)]
        held += [((c,), why) for c, why in verdict.skipped]
        for changes, why in held:
            for change in changes:
                settled(change.rel)
                if change.rel not in self.held:
                    out.held[change.rel] = why
                self.held[change.rel] = why
        for rel, why in applied.failed:
            out.held[rel] = self.held[rel] = f"could not be applied: {why}"
        return out

    async def finish(self, *, blobs: Any = None) -> Synced:
        """The shell ended: a last sync; what is held stays in the transaction's folder (offered
        with /changes), everything else of it goes."""
        last = await self.sync(blobs=blobs, ended=True)
        self.close()
        async with self._lock:
            await asyncio.to_thread(self._keep_only_held)
        return last

    def _keep_only_held(self) -> None:
        if not self.held:
            self.txn.discard()
            return
        everything = [c.rel for c in read_changes(self.txn.upper, self.txn.lower, 0)]
        keep = {rel for rel in self.held}
        parents = {
            "/".join(rel.split("/")[:n]) for rel in keep for n in range(1, rel.count("/") + 1)
        }
        self.txn.forget([r for r in everything if r not in keep and r not in parents])
        with contextlib.suppress(OSError):
            self.txn.hold("; ".join(f"{r}: {w}" for r, w in list(self.held.items())[:3]))
