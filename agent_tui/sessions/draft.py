"""The text of the answer streaming now, kept in bounded pieces (issue 27.8): a process killed
mid-answer loses at most the last second of it, not the whole answer.

Blocks are recorded when they finish; a long answer is one text block, so until it finishes only
the replay events in memory hold it. `Draft` gathers the block's text as it streams and says when
it is due to be written (`store.messages.put_draft`): at its first piece, then once a second has
passed or `DRAFT_CHARS` more characters came, whichever is first, and a second after the last piece
if the stream goes quiet. The finished block replaces it in the store.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

#: at most this long between writes of the streaming text (what a kill can lose)
DRAFT_EVERY_S = 1.0
#: ... or this many characters, whichever comes first
DRAFT_CHARS = 16_000


class Draft:
    def __init__(self, save: Callable[[str], None]) -> None:
        self._save = save
        self._index: int | None = None
        self._parts: list[str] = []
        self._unsaved = 0
        self._saved_at = 0.0
        self._timer: asyncio.TimerHandle | None = None

    def add(self, index: int, text: str) -> None:
        """A streamed piece of text block `index`; written now if due, else within a second."""
        if index != self._index:  # a new block: the last one finished (or was dropped)
            self.clear()
            self._index = index
        self._parts.append(text)
        self._unsaved += len(text)
        wait = DRAFT_EVERY_S - (time.monotonic() - self._saved_at)
        if wait <= 0 or self._unsaved >= DRAFT_CHARS:
            self.save()
        elif self._timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no event loop (a synchronous caller): the next piece saves
                return
            self._timer = loop.call_later(wait, self.save)

    def save(self) -> None:
        """Write what streamed so far (nothing when it's only blanks: the API refuses those)."""
        self._cancel_timer()
        if not self._unsaved:
            return
        self._unsaved = 0
        self._saved_at = time.monotonic()
        text = "".join(self._parts)
        if text.strip():
            self._save(text)

    def finished(self, index: int) -> None:
        """Block `index` finished: it is recorded whole, its draft is done with."""
        if index == self._index:
            self.clear()

    def clear(self) -> None:
        self._cancel_timer()
        self._index, self._parts, self._unsaved = None, [], 0

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
