"""A small LRU cache with a TTL and a byte budget, for fetched pages.

Entries are keyed by the final URL; other keys (the URL as requested, before redirects) can be
aliases of an entry. hishel would cache raw HTTP responses, but what is worth keeping here is the
converted page, and the cache needs a size bound in bytes, so a few dozen lines do it.

All operations are synchronous and short and take a lock, so the cache is safe to share between
concurrent fetches on the event loop and conversion threads alike.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

V = TypeVar("V")

DEFAULT_TTL = 15 * 60.0
DEFAULT_MAX_BYTES = 50 * 1024 * 1024


@dataclass(slots=True)
class _Entry(Generic[V]):
    value: V
    size: int
    stored_at: float
    aliases: frozenset[str]


class LruTtlCache(Generic[V]):
    def __init__(
        self,
        *,
        ttl: float = DEFAULT_TTL,
        max_bytes: int = DEFAULT_MAX_BYTES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.max_bytes = max_bytes
        self.clock = clock
        self._entries: OrderedDict[str, _Entry[V]] = OrderedDict()
        self._aliases: dict[str, str] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def total_bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str, *, now: float | None = None) -> tuple[V, float] | None:
        """The value under `key` (or an alias of it) and its age in seconds, if fresh."""
        now = self.clock() if now is None else now
        with self._lock:
            primary = key if key in self._entries else self._aliases.get(key)
            entry = self._entries.get(primary) if primary is not None else None
            if entry is None or primary is None:
                return None
            age = now - entry.stored_at
            if age >= self.ttl or age < 0:
                self._drop(primary)
                return None
            self._entries.move_to_end(primary)
            return entry.value, age

    def put(
        self,
        key: str,
        value: V,
        size: int,
        *,
        aliases: Iterable[str] = (),
        now: float | None = None,
    ) -> bool:
        """Store `value` under `key`; returns False if it is larger than the whole cache."""
        now = self.clock() if now is None else now
        extra = frozenset(a for a in aliases if a != key)
        with self._lock:
            if key in self._entries:
                self._drop(key)
            for alias in extra:
                if alias in self._entries:
                    self._drop(alias)
            if size > self.max_bytes:
                return False
            while self._entries and self._bytes + size > self.max_bytes:
                self._drop(next(iter(self._entries)))
            self._entries[key] = _Entry(value, size, now, extra)
            self._bytes += size
            for alias in extra:
                self._aliases[alias] = key
            return True

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._aliases.clear()
            self._bytes = 0

    def _drop(self, key: str) -> None:
        entry = self._entries.pop(key)
        self._bytes -= entry.size
        for alias in entry.aliases:
            if self._aliases.get(alias) == key:
                del self._aliases[alias]
