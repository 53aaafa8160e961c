"""A held change set applied from the command line (`agent-tui changes apply`) is recorded in the
project's latest session, as the TUI's `/changes` records it: its files' old and new contents
kept and one checkpoint naming them, so the next `agent-tui --continue` can `/undo` it. A session
another agent-tui records in now is left alone (the command says to apply from that app's
`/changes` instead); with no session of the project there is nothing to record in."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_tui.checkpoints.attribution import join
from agent_tui.protocol.events import FilesChanged
from agent_tui.sessions.records import StoreUnavailable
from agent_tui.sessions.session_lock import SessionInUse, SessionLock
from agent_tui.sessions.store import SessionStore


class SessionBlobs:
    """One session's kept contents, as the apply's blob store."""

    def __init__(self, store: SessionStore, session_id: str) -> None:
        self.store, self.session_id = store, session_id

    def put_blob(self, data: bytes) -> str:
        return self.store.checkpoints.put_blob(self.session_id, data)

    def get_blob(self, blob: str) -> bytes | None:
        return self.store.checkpoints.get_blob(blob)


class OutsideRecord:
    """Where an apply outside the app is recorded: a session of the project, locked."""

    def __init__(self, store: SessionStore, session_id: str) -> None:
        self.store, self.session_id = store, session_id
        self.blobs = SessionBlobs(store, session_id)

    def files_changed(self, subject: str, files: list[dict[str, Any]]) -> int:
        """Record `files` as a checkpoint of its own; its number."""
        done = self.store.events.load_kinds(self.session_id, ("files_changed",))
        number = 1 + max((e.checkpoint for e in done if isinstance(e, FilesChanged)), default=0)
        messages = len(self.store.messages.load(self.session_id))
        event = FilesChanged(
            checkpoint=number, message_index=messages, prompt=subject[:80], files=join(files)
        )
        self.store.events.append(self.session_id, event)
        return number


@contextlib.contextmanager
def outside_record(project: Path) -> Iterator[OutsideRecord | str]:
    """The project's latest session to record in, or why there is none (one line)."""
    try:
        store = SessionStore.open_default()
    except StoreUnavailable as exc:  # said, not fatal: the apply still happens
        yield str(exc)
        return
    with store:
        latest = store.sessions.latest(project)
        if latest is None:
            yield "no session of this project to record it in"
            return
        try:
            lock = SessionLock.take(store.path, latest.id)
        except SessionInUse as exc:
            yield f"{exc}: apply it from that app's /changes to record it there"
            return
        try:
            yield OutsideRecord(store, latest.id)
        finally:
            if lock is not None:
                lock.release()
