"""The durable session store: SQLite (stdlib `sqlite3`, WAL) at `data_dir()/sessions.db`.

A `SessionStore` is the `Database` (connection, lock, transactions: `database.py`) with one part
per kind of record, each owning its tables' SQL:

- `sessions` (`catalog.py`): create, find (`get`, `resolve`, `recent`, `latest`, `search`),
  title, delete.
- `messages` (`message_log.py`): API messages exactly as sent/received. An assistant message is
  recorded block by block as each block finishes (`begin` + `append_block`), a user message of
  tool results result by result, anything else whole (`add`). Every such call is its own
  committed transaction, so `kill -9` mid-turn loses at most the block in flight.
- `events` (`event_log.py`): domain events for replay. They come per token, so they are buffered
  and written in the same transaction as the next block / tool result / decision, when a boundary
  event (a finished block, tool result, decision, turn end, …) arrives, when the buffer is large,
  or on `flush()` / `close()`. A crash loses the buffered events of the block in flight only.
- `runs` and `turns` (`run_log.py`): tool runs (decision, deciding rule, result summary, exit
  code, timing) and per-turn usage/cost.
- `checkpoints` (`checkpoint_log.py`): file contents kept for undo, the session's checkpoints.

Everything written passes through `agent_tui.redact` first: secret env values, `sk-ant-…` keys and
`Authorization` / `x-api-key` header values never reach the file.

Threads: one `SessionStore` may be shared by any number of threads. It holds one connection
(`check_same_thread=False`) and every part's call takes the database's re-entrant lock, so calls
are serialized. Writes are small transactions (well under a millisecond to a few ms), so calling
them from the UI's event loop is acceptable; `sessions.search`, `messages.load` of a big session
and exports are better run in a worker thread. Several processes may share the file (WAL, 5 s
busy timeout).

Durability: `synchronous=NORMAL` in WAL mode keeps every committed transaction across a process
crash (`kill -9`); only an OS crash or power loss can drop the last few commits.
"""

from __future__ import annotations

import os
import sqlite3

from agent_tui.sessions.catalog import SessionCatalog
from agent_tui.sessions.checkpoint_log import CheckpointLog
from agent_tui.sessions.database import Database
from agent_tui.sessions.event_log import EventLog
from agent_tui.sessions.message_log import MessageLog
from agent_tui.sessions.records import (
    AmbiguousSessionId,
    SearchHit,
    SessionInfo,
    SessionNotFound,
    StoredEvent,
    StoreUnavailable,
)
from agent_tui.sessions.run_log import RunLog, TurnLog
from agent_tui.sessions.schema import SchemaError

DB_NAME = "sessions.db"


class SessionStore(Database):
    """See the module docstring for what is recorded when, and the threading rule."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(path)
        self.sessions = SessionCatalog(self)
        self.messages = MessageLog(self)
        self.events = EventLog(self)
        self.runs = RunLog(self)
        self.turns = TurnLog(self)
        self.checkpoints = CheckpointLog(self, self.events)

    @classmethod
    def open_default(cls) -> SessionStore:
        """The store at `data_dir()/sessions.db` (honours `AGENT_TUI_HOME`). A file there that
        can't be opened (not a database, a directory, no access, a newer agent-tui's schema)
        raises `StoreUnavailable`, with the path, and is left as it is."""
        from agent_tui.paths import data_dir

        path = data_dir() / DB_NAME
        try:
            return cls(path)
        except (sqlite3.Error, OSError, SchemaError) as exc:
            raise StoreUnavailable(f"cannot open the session database {path}: {exc}") from exc

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = [
    "DB_NAME",
    "AmbiguousSessionId",
    "SearchHit",
    "SessionInfo",
    "SessionNotFound",
    "SessionStore",
    "StoredEvent",
]
