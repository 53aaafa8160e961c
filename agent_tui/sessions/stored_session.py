"""A stored session read for resuming (`read_session`): everything `recorder.resume_into` puts
into the agent, read before the agent changes, so a store that fails leaves the agent as it was,
and held under the session's lock. Read apart from the agent, the app can show the conversation
while the agent is still being built: its end first (`read_tail`, what a screen shows, whatever
the session's length), checked against the whole once that is read (`StoredTail.agrees`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_tui.sessions.session_lock import SessionLock

if TYPE_CHECKING:
    from agent_tui.protocol.events import Event
    from agent_tui.runtime import Options
    from agent_tui.sessions.records import SessionInfo
    from agent_tui.sessions.store import SessionStore


@dataclass
class StoredSession:
    """A session read for resuming (`read_session`): what `recorder.resume_into` puts into the
    agent, with the session's lock."""

    session_id: str
    info: SessionInfo | None
    #: the messages as stored, and repaired (`repair.repair_messages`): what the agent will hold
    raw: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    #: the system prompt the session was recorded with (the same bytes keep the cache's prefix)
    system: str | None
    #: its last `message_finished` and `context_compacted` events, if any
    last_finished: Event | None
    last_compacted: Event | None
    #: what its turns changed on disk (undo, rewind), and the next checkpoint's id
    checkpoints: list[Any] = field(default_factory=list)
    next_checkpoint: int = 0
    #: the session's lock (None when forking: the copy is a new session, or nothing to lock with)
    lock: SessionLock | None = None

    def release(self) -> None:
        """Let the session go without resuming it (safe to call twice)."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None


@dataclass
class StoredTail:
    """A conversation's last messages from a prompt on, repaired (`read_tail`), and where they
    start in the whole."""

    messages: list[dict[str, Any]]
    #: the index of the first of them in the whole conversation
    first: int

    def agrees(self, whole: list[dict[str, Any]]) -> bool:
        """Whether `whole` (the repaired conversation) ends with exactly these, from `first` on:
        then what was drawn from them is what the whole would draw."""
        return len(whole) == self.first + len(self.messages) and whole[self.first :] == (
            self.messages
        )


def read_tail(store: SessionStore, session_id: str, count: int) -> StoredTail:
    """About the last `count` messages, from the first prompt among them on (what goes before a
    prompt doesn't change how what follows is repaired, in a valid conversation; one that isn't
    is found out by `agrees`), repaired."""
    from agent_tui.protocol.content import is_prompt
    from agent_tui.sessions.repair import repair_messages

    raw = [m.to_api() for m in store.messages.tail(session_id, count)]
    total = store.messages.count(session_id)
    if len(raw) < total:
        raw = raw[next((n for n, m in enumerate(raw) if is_prompt(m)), len(raw)) :]
    return StoredTail(repair_messages(raw), total - len(raw))


def take_lock(store: SessionStore, session_id: str, *, fork: bool) -> SessionLock | None:
    """The lock of `session_id`, taken for resuming it; None for a fork, which leaves the
    original to whoever records it. Raises `SessionInUse` when another process records it."""
    return None if fork else SessionLock.take(store.path, session_id)


def read_session(store: SessionStore, session_id: str, *, fork: bool = False) -> StoredSession:
    """Read `session_id` for resuming, taking its lock unless `fork`. Raises `SessionInUse` when
    another process records it, and what the store raises (the lock let go)."""
    return read_held(store, session_id, take_lock(store, session_id, fork=fork))


def read_held(store: SessionStore, session_id: str, lock: SessionLock | None) -> StoredSession:
    """Read `session_id` for resuming, its `lock` taken already (None: a fork's original): the
    session read holds it, or it is let go if the read fails."""
    from agent_tui.sessions.repair import repair_messages

    try:
        info = store.sessions.get(session_id)
        raw = store.messages.load(session_id, repair=False)
        history, next_id = store.checkpoints.load(session_id)
        return StoredSession(
            session_id,
            info,
            raw,
            repair_messages(raw),  # what `messages.load` does, without reading it all twice
            store.sessions.system_prompt(session_id),
            store.events.last(session_id, "message_finished"),
            store.events.last(session_id, "context_compacted"),
            history,
            next_id,
            lock,
        )
    except BaseException:
        if lock is not None:
            lock.release()
        raise


def find_session(store: SessionStore, options: Options) -> SessionInfo | None:
    """The session `--continue` / `--resume ID` asks for (None for a new session)."""
    if options.continue_:
        return store.sessions.latest(options.cwd)
    if options.resume:
        return store.sessions.get(store.sessions.resolve(options.resume))
    return None


def stored_runs(store: SessionStore, session_id: str) -> dict[str, Any]:
    """A session's recorded tool runs by tool_use_id (call from a worker thread)."""
    return {run.tool_use_id: run for run in store.runs.load(session_id)}
