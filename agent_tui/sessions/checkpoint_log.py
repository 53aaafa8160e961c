"""The store's side of checkpoints (`store.checkpoints`): the file contents they keep, and a
session's checkpoints as they stand after its undos (`agent_tui.checkpoints`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.checkpoints.blobs import blob_id
from agent_tui.redact import secret_values
from agent_tui.sessions.database import Database
from agent_tui.sessions.event_log import EventLog

if TYPE_CHECKING:
    from agent_tui.protocol.events import ChangeRecorded, ChangeStarted, FilesChanged, FilesRestored

#: the recorded events checkpoints are made of (`checkpoints.attribution.rebuild`)
FILE_KINDS = ("change_started", "change_recorded", "files_changed", "files_restored")
#: a file bigger than this is not kept (a restore says so; in git the repository still has it)
MAX_BLOB_BYTES = 20 * 1024 * 1024


class CheckpointLog:
    """`store.checkpoints`: the `blobs` table, and checkpoints rebuilt from recorded events."""

    def __init__(self, db: Database, events: EventLog) -> None:
        self._db, self._events = db, events

    def put_blob(self, session_id: str, data: bytes) -> str:
        """Keep a file's content for `session_id`; returns its id. Content holding a secret
        (the API key) or too big is not kept, so it can't be restored from here."""
        key = blob_id(data)
        if len(data) > MAX_BLOB_BYTES or any(v.encode() in data for v in secret_values()):
            return key
        with self._db.tx() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO blobs (session_id, id, data) VALUES (?, ?, ?)",
                (session_id, key, data),
            )
        return key

    def get_blob(self, blob: str) -> bytes | None:
        with self._db.lock:
            row = self._db.conn.execute(
                "SELECT data FROM blobs WHERE id = ? LIMIT 1", (blob,)
            ).fetchone()
        return None if row is None else bytes(row[0])

    def copy_blobs(self, source: str, target: str) -> None:
        """Give session `target` the kept contents of `source` (a rewound conversation's copy)."""
        with self._db.tx() as conn:
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
        from agent_tui.protocol.events import (
            ChangeRecorded,
            ChangeStarted,
            FilesChanged,
            FilesRestored,
        )

        found = self._events.load_kinds(session_id, FILE_KINDS)
        kinds = ChangeStarted | ChangeRecorded | FilesChanged | FilesRestored
        return [e for e in found if isinstance(e, kinds)]

    def load(self, session_id: str) -> tuple[list[FilesChanged], int]:
        """The session's checkpoints still in effect (oldest first) and the next number (past
        every number a call was recorded under, so none is given twice)."""
        from agent_tui.checkpoints.attribution import rebuild
        from agent_tui.protocol.events import FilesChanged, FilesRestored

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
