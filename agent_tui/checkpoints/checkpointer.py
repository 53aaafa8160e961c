"""The agent's side of checkpoints: what a turn may change is recorded before its first change,
and what it did change is one `FilesChanged` event at its end."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.checkpoints.blobs import BlobStore, MemoryBlobs, read_file
from agent_tui.checkpoints.git_tree import GitError, GitWorkTree
from agent_tui.checkpoints.scratch import Scratch
from agent_tui.paths import data_dir
from agent_tui.protocol.events import Event, FilesChanged, FilesRestored, Notice

if TYPE_CHECKING:  # undo's planning and diffs load with the first undo, not at start-up
    from agent_tui.checkpoints.restore import RestorePlan

#: how much of a turn's prompt a checkpoint keeps, to be recognised in a list
PROMPT_CHARS = 200


@dataclass
class _Turn:
    tree: str | None = None
    #: path -> (blob id or None when absent, mode, the tool that changed it)
    saved: dict[Path, tuple[str | None, str, str]] = field(default_factory=dict)
    unrestorable: list[str] = field(default_factory=list)


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
        self._git: GitWorkTree | None = None
        self._git_known = False
        self._message_index = 0
        self._prompt = ""
        self._turn: _Turn | None = None
        self._lock = asyncio.Lock()
        #: this process's temporary files (index copies, a restore's content before its rename)
        self.scratch = Scratch(data_dir())

    @property
    def git(self) -> GitWorkTree | None:
        if not self._git_known:
            self._git, self._git_known = GitWorkTree.find(self.cwd), True
        return self._git

    def begin_turn(self, message_index: int, prompt: str) -> None:
        self._message_index, self._prompt = message_index, prompt[:PROMPT_CHARS]

    async def before(self, subject: str, tool: str, path: Path | None) -> None:
        """Called before a call that may change files runs: `path` is the file a Write or Edit
        replaces (None for a shell command or an MCP tool, whose effects are unknown)."""
        if not self.enabled:
            return
        async with self._lock:  # parallel sub-agents share one checkpointer
            if self._turn is None:
                self._turn = _Turn()
                if await asyncio.to_thread(lambda: self.git) is not None:
                    self._turn.tree = await self._snapshot()
            turn = self._turn
            if path is not None and path not in turn.saved:
                before, mode = await asyncio.to_thread(self._keep, path)
                turn.saved[path] = (before, mode, tool)
            elif path is None and turn.tree is None and subject not in turn.unrestorable:
                turn.unrestorable.append(subject)

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
        git = self.git
        if git is None:
            return None
        try:
            return await asyncio.to_thread(git.snapshot)
        except GitError as exc:
            self.emit(Notice("warning", f"No git checkpoint for this turn: {exc}"))
            return None

    async def end_turn(self) -> FilesChanged | None:
        """Record what the turn changed (nothing when it changed nothing)."""
        async with self._lock:
            turn, self._turn = self._turn, None
        if turn is None:
            return None
        files: dict[Path, dict[str, Any]] = {}
        trees: list[str] = []
        after_tree = await self._snapshot() if turn.tree is not None else None
        git = self.git
        if turn.tree and after_tree and git is not None:
            trees = [turn.tree, after_tree]
            try:
                changes = await asyncio.to_thread(git.changes, turn.tree, after_tree)
                await asyncio.to_thread(git.anchor, trees, f"agent-tui: {self._prompt[:60]}")
            except GitError as exc:
                self.emit(Notice("warning", f"The git checkpoint is incomplete: {exc}"))
                changes = []
            for c in changes:
                files[c.path] = {
                    "path": str(c.path),
                    "before": c.old,
                    "after": c.new,
                    "before_mode": c.old_mode if c.old else "",
                    "after_mode": c.new_mode if c.new else "",
                    "by": "shell",
                }
        after = await asyncio.to_thread(lambda: {path: self._keep(path) for path in turn.saved})
        for path, (before, before_mode, tool) in turn.saved.items():
            now, now_mode = after[path]
            if now == before and path not in files:
                continue
            entry = files.setdefault(path, {"path": str(path)})
            # the content before Write/Edit touched it, unless git saw the turn's whole start
            entry.setdefault("before", before)
            entry.setdefault("before_mode", before_mode)
            entry.update(after=now, after_mode=now_mode, by=tool)
        if not files and not turn.unrestorable:
            return None
        event = FilesChanged(
            checkpoint=self.next_id,
            message_index=self._message_index,
            prompt=self._prompt,
            files=sorted(files.values(), key=lambda f: f["path"]),
            trees=trees,
            unrestorable=turn.unrestorable,
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
        return plan_restore(self.history, to, read, self.root)

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
