"""The agent's side of checkpoints: each call that may change files is recorded as it happens —
what it may change before it runs (`ChangeStarted`), what it did change as soon as it finished
(`ChangeRecorded`) — and a turn's calls are summed up in one `FilesChanged` at its end.

A Write or Edit records the one file it replaces. A shell command or an MCP tool, whose effects
are unknown, gets a snapshot of the git work tree before and after *that call*: what the person
changes between the agent's calls is never the agent's. What the app itself writes meanwhile
(`own_writes`) is taken out.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.checkpoints.attribution import OwnWrite, entry, join, without_own_writes
from agent_tui.checkpoints.blobs import BlobStore, MemoryBlobs, read_file
from agent_tui.checkpoints.git_tree import GitError, GitWorkTree, project_programs
from agent_tui.checkpoints.scratch import Scratch
from agent_tui.paths import data_dir
from agent_tui.protocol.events import (
    ChangeRecorded,
    ChangeStarted,
    Event,
    FilesChanged,
    FilesRestored,
    Notice,
)

if TYPE_CHECKING:  # undo's planning and diffs load with the first undo, not at start-up
    from agent_tui.checkpoints.restore import RestorePlan

#: how much of a turn's prompt a checkpoint keeps, to be recognised in a list
PROMPT_CHARS = 200
#: why a file a shell command made (outside the sandbox's change sets) isn't ticked for undo
MAYBE_YOURS = "made while the command ran — maybe yours (no change set: not ticked)"


@dataclass
class _Turn:
    """The turn in progress's checkpoint: its calls' changes, the snapshots taken and the calls that
    could not be captured, summed up by `end_turn`."""

    checkpoint: int
    #: every call's changes, in the order they were recorded
    records: list[dict[str, Any]] = field(default_factory=list)
    trees: list[str] = field(default_factory=list)
    unrestorable: list[str] = field(default_factory=list)


@dataclass
class Call:
    """One call between `before` and `after`."""

    started: ChangeStarted
    #: how many of the app's own writes had been made when it started
    own_from: int


class Checkpointer:
    def __init__(self, cwd: Path, emit: Callable[[Event], None]) -> None:
        self.cwd = cwd
        self.emit = emit
        #: where file contents go (the session store, once a recorder is attached)
        self.blobs: BlobStore = MemoryBlobs()
        #: this session's checkpoints that are still in effect (undone ones are dropped)
        self.history: list[FilesChanged] = []
        self.enabled = True
        #: the next checkpoint's number (numbers are never reused, even after an undo)
        self.next_id = 0
        #: this process's temporary files (the private index, a restore's content before its
        #: rename), under the data dir: never in the project, cleaned after a kill
        self.scratch = Scratch(data_dir())
        self._index_name = f"index-{os.urandom(4).hex()}"
        self._git: GitWorkTree | None = None
        self._git_known = False
        self._message_index = 0
        self._prompt = ""
        self._turn: _Turn | None = None
        #: one snapshot at a time (they share the private index); parallel sub-agents share this
        self._lock = asyncio.Lock()
        self._own: list[OwnWrite] = []
        self._running = 0
        #: outside git, snapshots go to a repository of our own (`shadow.py`); why not, if not
        self.shadow = True
        self.shadow_refused = ""
        self._refusal_said = False
        self._failure_said = False

    @property
    def git(self) -> GitWorkTree | None:
        """The git work tree snapshots are taken in: the project's, else (outside git) a shadow
        repository under the data dir; None when neither can be had (`shadow_refused` says
        why)."""
        if not self._git_known:
            self._git = GitWorkTree.find(self.cwd)
            if self._git is None and self.shadow:
                from agent_tui.checkpoints.shadow import shadow_work_tree

                # a repository whose config or hooks run a program: git isn't run in it
                why = project_programs(self.cwd) or ""
                try:
                    self._git = shadow_work_tree(self.cwd, data_dir(), why)
                except (GitError, OSError) as exc:
                    self.shadow_refused = str(exc)
            self._git_known = True
        return self._git

    def _failed(self, exc: Exception) -> None:
        """A snapshot, diff or anchor failed: said once a session, in plain words (a full disk
        is said by the session store too; repeating it for every call helps no one)."""
        if self._failure_said:
            return
        self._failure_said = True
        text = str(exc)
        if "No space left" in text or "Disk quota" in text:
            why = "the disk is full"
        else:
            why = text.splitlines()[-1][-200:] if text else type(exc).__name__
        self.emit(
            Notice(
                "warning",
                "Undo: a snapshot of the work tree could not be taken, so what some commands "
                f"change can't be undone ({why}).",
            )
        )

    def _say_refused(self) -> None:
        if self.shadow_refused and not self._refusal_said:
            self._refusal_said = True
            self.emit(Notice("warning", f"Undo: {self.shadow_refused}"))

    def begin_turn(self, message_index: int, prompt: str) -> None:
        self._message_index, self._prompt = message_index, prompt[:PROMPT_CHARS]

    async def before(
        self,
        subject: str,
        tool: str,
        path: Path | None,
        call_id: str = "",
        *,
        exact: bool = False,
    ) -> Call | None:
        """Called just before a call that may change files runs: `path` is the file a Write or
        Edit replaces (None for a shell command or an MCP tool, whose effects are unknown);
        `exact`: the call reports its exact change set (a sandboxed command), so nothing is
        snapshotted. Pass what it returns to `after` once the call is over, however it ended."""
        if not self.enabled:
            return None
        async with self._lock:
            if self._turn is None:
                self._turn = _Turn(self.next_id)
                self.next_id += 1
            turn = self._turn
            tree, before, mode = "", None, ""
            if path is not None:
                before, mode = await asyncio.to_thread(self._keep, path)
            elif exact:
                pass
            elif await asyncio.to_thread(lambda: self.git) is not None:
                tree = await self._snapshot() or ""
            else:
                self._say_refused()
            if path is None and not tree and not exact and subject not in turn.unrestorable:
                turn.unrestorable.append(subject)
            if tree:
                turn.trees.append(tree)
            self._running += 1
        started = ChangeStarted(
            turn.checkpoint,
            self._message_index,
            self._prompt,
            call_id or os.urandom(6).hex(),
            tool,
            subject,
            "" if path is None else str(path),
            before,
            mode,
            tree,
            exact,
        )
        self.emit(started)  # written at once: a kill from here on still knows the call ran
        return Call(started, len(self._own))

    async def after(
        self,
        call: Call | None,
        changes: list[dict[str, Any]] | None = None,
        not_kept: list[str] | None = None,
    ) -> None:
        """Record what the call `before` announced changed (call it however the call ended);
        for an exact call, `changes` is its applied change set and `not_kept` what it changed
        that could not be kept for undo."""
        if call is None:
            return
        s = call.started
        files: list[dict[str, Any]] = []
        tree = ""
        try:
            if s.exact:
                files = list(changes or [])
                if not_kept and self._turn is not None:
                    what = f"{s.subject} (not kept for undo: {', '.join(not_kept[:5])})"
                    self._turn.unrestorable.append(what)
            elif s.path:
                path = Path(s.path)
                now, mode = await asyncio.to_thread(self._keep, path)
                if now != s.before:
                    files = [entry(path, s.before, now, s.before_mode, mode, s.tool)]
            elif s.tree:
                async with self._lock:
                    tree = await self._snapshot() or ""
                    if (
                        not tree
                        and self._turn is not None
                        and s.subject not in self._turn.unrestorable
                    ):
                        self._turn.unrestorable.append(s.subject)  # said by `_snapshot`
                files = await self._changes(s.tree, tree, s.tool)
                # snapshots before and after can't tell who made a file while the call ran:
                # undo never ticks such a file for deletion (the person's, maybe)
                files = [{**f, "maybe_yours": MAYBE_YOURS} if not f["before"] else f for f in files]
        finally:
            async with self._lock:
                self._running -= 1
                if not s.exact:  # a change set holds nothing but the command's own writes
                    files = without_own_writes(files, self._own[call.own_from :])
                if not self._running:
                    self._own.clear()
                if self._turn is not None and self._turn.checkpoint == s.checkpoint:
                    self._turn.records.extend(files)
                    if tree:
                        self._turn.trees.append(tree)
        self.emit(ChangeRecorded(s.checkpoint, s.tool_use_id, s.tool, files, tree))

    async def _changes(self, old: str, new: str, tool: str) -> list[dict[str, Any]]:
        git = self.git
        if git is None or not new:
            return []
        try:
            changes = await asyncio.to_thread(git.changes, old, new)
        except GitError as exc:
            self._failed(exc)
            return []
        return [entry(c.path, c.old, c.new, c.old_mode, c.new_mode, tool) for c in changes]

    @contextmanager
    def own_writes(self, paths: Iterable[Path]) -> Iterator[None]:
        """Wrap a write of the app's own (settings, `.gitignore`): a call running meanwhile
        does not count it as its change."""
        if not self._running:
            yield
            return
        watched = list(paths)
        before = [self._keep(p)[0] for p in watched]
        try:
            yield
        finally:
            for path, was in zip(watched, before, strict=True):
                now = self._keep(path)[0]  # kept: a restore may need to put the app's part back
                if now != was:
                    self._own.append(OwnWrite(path.resolve(), was, now))

    def _keep(self, path: Path) -> tuple[str | None, str]:
        """Keep `path`'s content as it is now: its blob id and mode (None, "": absent or
        unreadable)."""
        try:
            current = read_file(path)
        except OSError:
            current = None
        if current is None:
            return None, ""
        return self.blobs.put_blob(current[0]), current[1]

    async def _snapshot(self) -> str | None:
        """A snapshot of the work tree (hold `_lock`: snapshots share the private index)."""
        git = self.git
        if git is None:
            return None
        try:
            return await asyncio.to_thread(git.snapshot, self.scratch.path(self._index_name))
        except (GitError, OSError) as exc:
            self._failed(exc)
            return None

    async def end_turn(self) -> FilesChanged | None:
        """Sum up what the turn's calls changed (nothing when they changed nothing)."""
        async with self._lock:
            turn, self._turn = self._turn, None
        if turn is None:
            return None
        git = self.git
        if turn.trees and git is not None:
            try:
                await asyncio.to_thread(git.anchor, turn.trees, f"agent-tui: {self._prompt[:60]}")
            except GitError as exc:
                self._failed(exc)
            if git.git_dir is not None:  # a shadow repository: the next session starts warm
                async with self._lock:
                    await asyncio.to_thread(git.keep_index, self.scratch.path(self._index_name))
        files = join(turn.records)
        if not files and not turn.unrestorable:
            return None
        event = FilesChanged(
            checkpoint=turn.checkpoint,
            message_index=self._message_index,
            prompt=self._prompt,
            files=files,
            trees=list(dict.fromkeys(turn.trees)),
            unrestorable=turn.unrestorable,
        )
        self.history.append(event)
        self.emit(event)
        return event

    def record_background(self, shell: str, subject: str, files: list[dict[str, Any]]) -> None:
        """A background shell's synced changes: part of the turn running now (its checkpoint),
        else a checkpoint of their own."""
        if not self.enabled or not files:
            return
        turn = self._turn
        if turn is None:
            self.record_applied(f"{shell}: {subject}", files)
            return
        turn.records.extend(files)
        self.emit(ChangeRecorded(turn.checkpoint, f"{shell}-{os.urandom(3).hex()}", "Bash", files))

    def record_applied(self, subject: str, files: list[dict[str, Any]]) -> FilesChanged | None:
        """Changes applied outside a tool call (a held change set the person applied): a
        checkpoint of their own, so undo can take them back."""
        if not self.enabled or not files:
            return None
        event = FilesChanged(
            checkpoint=self.next_id,
            message_index=self._message_index,
            prompt=subject[:PROMPT_CHARS],
            files=join(files),
        )
        self.next_id += 1
        self.history.append(event)
        self.emit(event)
        return event

    # --- undo and rewind (blocking file and git work: call from a thread) ---

    @property
    def root(self) -> Path:
        """The project: the git work tree's top, else the working directory (resolved)."""
        git = self.git
        return (git.top if git is not None else self.cwd).resolve()

    def plan(self, to: int | None = None) -> RestorePlan | None:
        """What restoring to the start of checkpoint `to` (default: the last one) would do."""
        if not self.history:
            return None
        from agent_tui.checkpoints.restore import blob_reader, plan_restore

        to = self.history[-1].checkpoint if to is None else to
        read = blob_reader(self.blobs.get_blob, lambda: self.git)
        return plan_restore(self.history, to, read, self.root, self._changed_since)

    def _changed_since(self, tree: str) -> list[Any]:
        """What differs now from snapshot `tree` (a call the app was killed in), in a thread."""
        git = self.git
        if git is None:
            return []
        try:
            return git.changes(tree, git.snapshot(self.scratch.path(self._index_name)))
        except (GitError, OSError):
            return []

    def restore(self, plan: RestorePlan, chosen: Collection[Path] | None = None) -> FilesRestored:
        """Restore the files `chosen` from `plan` (None: every change but the conflicts); the
        checkpoints it undid are dropped, so the next undo goes one turn further back."""
        from agent_tui.checkpoints.restore import apply_restore

        restored, kept = apply_restore(plan, chosen, self.scratch)
        self.history = [c for c in self.history if c.checkpoint < plan.to]
        event = FilesRestored(plan.to, restored, kept)
        self.emit(event)
        return event

    def forget_after(self, message_index: int) -> None:
        """The conversation was rewound to before `message_index`: later turns' checkpoints go."""
        self.history = [c for c in self.history if c.message_index < message_index]
