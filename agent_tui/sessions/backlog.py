"""The recorder's writes while the store fails: kept in order, in memory, and written when it
works again (DESIGN: "the store fails soft").

Every write the recorder makes goes through `Backlog.run`. The first one that fails (a full disk,
a damaged database, a file that went away) is said once, through `on_failed`, and from then on
writes wait in memory, in the order they were made, so the conversation goes on unrecorded and
nothing the person typed is lost. `retry` (at each new turn, and now and then as writes come) tries
the oldest waiting write again; when the store takes it, everything that waited is written,
`on_resumed` says so, and writes go straight through again. A failed write is one rolled-back
transaction, so writing it again later leaves the store as if it had never failed.

Replay events come per token; past `MAX_EVENTS` waiting events the newest are dropped (counted,
and said when recording resumes): messages, tool runs and turns are always kept.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from agent_tui.sessions.faults import STORE_ERRORS, describe

T = TypeVar("T")

#: replay events kept in memory while the store fails (a long answer is ~10,000 of them)
MAX_EVENTS = 50_000
#: while failing, a new write retries the store at most this often (a new turn always does)
RETRY_EVERY_S = 10.0


class Ref(Generic[T]):
    """A value a waiting write produces for a later one (a message's seq, a tool run's id)."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: T | None = None

    def get(self) -> T:
        if self.value is None:  # writes run in order: the one that sets it ran first
            raise RuntimeError("a session write ran before the one it depends on")
        return self.value


@dataclass(slots=True)
class _Write:
    """A write waiting in the backlog, kept in the order it was made."""

    op: Callable[[], object]
    event: bool  # a replay event: may be dropped past MAX_EVENTS


class Backlog:
    def __init__(
        self,
        on_failed: Callable[[str], None],
        on_resumed: Callable[[int, int], None],
    ) -> None:
        self._on_failed = on_failed
        self._on_resumed = on_resumed
        self._waiting: deque[_Write] = deque()
        self._events = 0
        self._dropped = 0
        self._last_try = 0.0
        self._running = False
        self._lock = threading.RLock()  # file contents for undo are kept from worker threads
        #: notices met away from the event loop's thread, for the recorder to say from there
        self.held: list[Any] = []
        #: why the store fails, while it does (None: writes go straight through)
        self.failure: str | None = None
        #: failures said so far (one per outage)
        self.outages = 0

    @property
    def failing(self) -> bool:
        return self.failure is not None

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def run(self, op: Callable[[], object], *, event: bool = False) -> None:
        """Write now, or keep the write for later while the store fails."""
        with self._lock:
            self._run(op, event)

    def _run(self, op: Callable[[], object], event: bool) -> None:
        if self.failure is None and not self._running:
            try:
                op()
                return
            except STORE_ERRORS as exc:
                # kept first, said after: what saying it records waits behind this write
                self._keep(_Write(op, event))
                self._fail(exc)
                return
        self._keep(_Write(op, event))
        if not self._running and time.monotonic() - self._last_try >= RETRY_EVERY_S:
            self._retry()

    def retry(self) -> bool:
        """Write what waits, oldest first; True when nothing waits any more."""
        with self._lock:
            return self._retry()

    def _retry(self) -> bool:
        if self.failure is None or self._running:
            return self.failure is None
        self._last_try = time.monotonic()
        self._running = True  # a write that records something itself waits behind the rest
        written = 0
        try:
            while self._waiting:
                write = self._waiting[0]
                try:
                    write.op()
                except STORE_ERRORS:
                    return False
                self._waiting.popleft()
                self._events -= write.event
                written += 1
        finally:
            self._running = False
        dropped, self._dropped = self._dropped, 0
        self.failure = None
        self._on_resumed(written, dropped)
        return True

    def _fail(self, exc: BaseException) -> None:
        self.failure = describe(exc)
        self._last_try = time.monotonic()
        self.outages += 1
        self._on_failed(self.failure)

    def _keep(self, write: _Write) -> None:
        if write.event:
            if self._events >= MAX_EVENTS:
                self._dropped += 1
                return
            self._events += 1
        self._waiting.append(write)
