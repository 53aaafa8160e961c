"""The store's side of checkpoints: the file contents they keep, and a session's checkpoints
as they stand after its undos (`agent_tui.checkpoints`)."""

from __future__ import annotations

import json
from collections.abc import Callable

from agent_tui.checkpoints.blobs import blob_id
from agent_tui.protocol.events import (
    ChangeRecorded,
    ChangeStarted,
    FilesChanged,
    FilesRestored,
    event_from_dict,
)
from agent_tui.redact import secret_values
from agent_tui.sessions.store_base import StoreBase

#: a file bigger than this is not kept (a restore says so; in git the repository still has it)
MAX_BLOB_BYTES = 20 * 1024 * 1024


class CheckpointLog(StoreBase):
    def put_blob(self, session_id: str, data: bytes) -> str:
        """Keep a file's content for `session_id`; returns its id. Content holding a secret
        (the API key) or too big is not kept, so it can't be restored from here."""
        key = blob_id(data)
        if len(data) > MAX_BLOB_BYTES or any(v.encode() in data for v in secret_values()):
            return key
        with self._tx() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO blobs (session_id, id, data) VALUES (?, ?, ?)",
                (session_id, key, data),
            )
        return key

    def get_blob(self, blob: str) -> bytes | None:
        with self._lock:
            row = self._c.execute("SELECT data FROM blobs WHERE id = ? LIMIT 1", (blob,)).fetchone()
        return None if row is None else bytes(row[0])

    def copy_blobs(self, source: str, target: str) -> None:
        """Give session `target` the kept contents of `source` (a rewound conversation's copy)."""
        with self._tx() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO blobs (session_id, id, data) "
                "SELECT ?, id, data FROM blobs WHERE session_id = ?",
                (target, source),
            )

    def file_events(self, session_id: str) -> list[FilesChanged | FilesRestored]:
        """Every checkpoint and restore of the session, in order (the Changes view), with the
        checkpoint of a turn that never ended (a killed app) made up from its calls' records."""
        from agent_tui.checkpoints.attribution import rebuild

        return rebuild(self._file_records(session_id))

    def _file_records(
        self, session_id: str
    ) -> list[ChangeStarted | ChangeRecorded | FilesChanged | FilesRestored]:
        self.flush()
        with self._lock:
            rows = self._c.execute(
                "SELECT json FROM events WHERE session_id = ? AND type IN "
                "('change_started', 'change_recorded', 'files_changed', 'files_restored') "
                "ORDER BY seq",
                (session_id,),
            ).fetchall()
        found = [event_from_dict(json.loads(raw)) for (raw,) in rows]
        kinds = ChangeStarted | ChangeRecorded | FilesChanged | FilesRestored
        return [e for e in found if isinstance(e, kinds)]

    def load_checkpoints(self, session_id: str) -> tuple[list[FilesChanged], int]:
        """The session's checkpoints still in effect (oldest first) and the next number (past
        every number a call was recorded under, so none is given twice)."""
        from agent_tui.checkpoints.attribution import rebuild

        records = self._file_records(session_id)
        history: list[FilesChanged] = []
        next_id = max(
            (e.checkpoint + 1 for e in records if not isinstance(e, FilesRestored)), default=0
        )
        for event in rebuild(records):
            if isinstance(event, FilesChanged):
                history.append(event)
            else:
                history = [c for c in history if c.checkpoint < event.to]
                next_id = max(next_id, event.to + 1)
        return history, next_id


class SessionBlobs:
    """A `BlobStore` for one recorder: blobs go to its session (created when first needed)."""

    def __init__(self, log: CheckpointLog, session: Callable[[], str]) -> None:
        self._log = log
        self._session = session

    def put_blob(self, data: bytes) -> str:
        return self._log.put_blob(self._session(), data)

    def get_blob(self, blob: str) -> bytes | None:
        return self._log.get_blob(blob)
