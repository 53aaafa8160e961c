"""File contents kept for undo, written to the recorder's session through its backlog."""

from __future__ import annotations

import threading
from collections.abc import Callable

from agent_tui.checkpoints.blobs import blob_id
from agent_tui.sessions.backlog import Backlog
from agent_tui.sessions.faults import STORE_ERRORS
from agent_tui.sessions.store import SessionStore


class RecordedBlobs:
    """A `BlobStore` for one recorder: file contents kept for undo go to its session (created
    when first needed), through the recorder's backlog; while they wait, they are read from
    memory, so undo works in this run whatever the store does."""

    def __init__(self, store: SessionStore, session: Callable[[], str], backlog: Backlog) -> None:
        self._store, self._session, self._backlog = store, session, backlog
        self._waiting: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def put_blob(self, data: bytes) -> str:
        key = blob_id(data)
        with self._lock:
            self._waiting[key] = data

        def write() -> None:
            self._store.checkpoints.put_blob(self._session(), data)
            with self._lock:
                self._waiting.pop(key, None)

        self._backlog.run(write)
        return key

    def get_blob(self, blob: str) -> bytes | None:
        with self._lock:
            waiting = self._waiting.get(blob)
        if waiting is not None:
            return waiting
        try:
            return self._store.checkpoints.get_blob(blob)
        except STORE_ERRORS:
            return None
