"""What one start compiled, kept for the next: the file the code caches share
(`dataclass_code_cache`, `regex_code_cache`, `expression_code_cache`).

A cache maps a key (what was compiled: a dataclass method's source text, a pattern and its flags,
an expression's text) to the marshalled result, each entry marshalled on its own so that a start
unmarshals only what it uses. Nothing that holds a secret is written (an entry whose key or
marshalled result holds what `redact` takes out: an Anthropic key, the value of a `*_API_KEY` /
`*_TOKEN` variable; a pattern built from one, a constant the compiler joined from pieces).
A start that compiled something new writes the file again, numbered one more than the one it
read; an entry no start among the last `KEEP_WRITES` that wrote it used is left out. That bounds
what a key that differs at every start leaves behind: some libraries build a pattern from a set,
whose order changes with each process's hash seed (the standard `tokenize`'s, two a start). The
file is `cache_dir()/NAME`, stamped with the interpreter's version and what else the
result's format depends on (marshal's format is the interpreter's own); missing, unreadable or
from another interpreter, it is ignored and rewritten. It lies in the user's own cache directory,
which only they can write, as with their `__pycache__` folders.
"""

from __future__ import annotations

import builtins
import contextlib
import logging
import marshal
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Self

from agent_tui import patch_guard
from agent_tui.patch_guard import Patch

_ABSENT: Any = object()

#: an entry no start used among this many that wrote the file is left out
KEEP_WRITES = 8

#: where a code cache's replacement goes: `owner.name`, and the replacement. A name the owner
#: doesn't define is added, and taken out again: a module global named as a builtin (`compile`)
#: shadows the builtin for that module's own functions only.
Place = tuple[Any, str, Callable[..., Any]]


def stamp(*extra: object) -> str:
    """What a kept file must have been written by: this interpreter (and `extra`)."""
    return " ".join(str(x) for x in (*extra, sys.implementation.cache_tag, sys.version))


class KeptCode:
    """The entries kept from the last start (`kept`: key -> (the write that last used it,
    marshalled value)) and what this start looked up (`used`) and added (`compiled`)."""

    def __init__(
        self, path: Path, stamp: str, kept: dict[Any, tuple[int, bytes]], written: int = 0
    ) -> None:
        self.path = path
        self.stamp = stamp
        self.kept = kept
        #: the number of the write this start read (0: none)
        self.written = written
        self.compiled: dict[Any, bytes] = {}
        self.used: set[Any] = set()
        self.hits = 0

    @classmethod
    def load(cls, path: Path, stamp: str) -> Self:
        try:
            found, written, kept = marshal.loads(path.read_bytes())
        except Exception:  # missing, truncated, or not ours: compile as usual, rewrite it later
            return cls(path, stamp, {})
        if found != stamp or not isinstance(kept, dict) or not isinstance(written, int):
            return cls(path, stamp, {})
        return cls(path, stamp, kept, written)

    def get(self, key: Any) -> Any | None:
        """The value kept for `key`, or None (not kept, or unreadable)."""
        self.used.add(key)
        entry = self.kept.get(key)
        if entry is None:
            return None
        try:  # (not `contextlib.suppress`: a start looks up hundreds, its context costs as much)
            value = marshal.loads(entry[1])
        except (ValueError, EOFError, TypeError):
            return None
        self.hits += 1
        return value

    def put(self, key: Any, value: Any) -> None:
        """Keep `value` (marshallable) for the next start."""
        self.compiled[key] = marshal.dumps(value)

    def save(self) -> None:
        """Write what was kept and what this start added (only when it added something); a
        failed write costs the next start only the compiling."""
        compiled = dict(self.compiled)
        if not compiled:
            return
        written = self.written + 1
        kept = {
            key: (written if key in self.used else last, blob)
            for key, (last, blob) in self.kept.items()
            if key in self.used or written - last < KEEP_WRITES
        }
        kept.update((key, (written, blob)) for key, blob in compiled.items())
        from agent_tui.redact import secret_values  # installed before it: loaded when saving

        secrets = secret_values()
        kept = {
            key: (last, blob)
            for key, (last, blob) in kept.items()
            if not _holds_secret(key, secrets) and not _holds_secret(blob, secrets)
        }
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            blob = marshal.dumps((self.stamp, written, kept))
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(blob)
            os.replace(temporary, self.path)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)


class CodeCachePatch:
    """A code cache's patch of standard-library functions (each of `places`: `owner.name`
    replaced by a function that takes its entries from `cache`): installed once a process with
    the entries kept in a cache folder, unless a function it was written for isn't that source
    (`patch_guard`: one log line, and it compiles as usual); taken out by `save_and_stop`, which
    keeps what this start compiled for the next."""

    def __init__(
        self,
        patch: Patch,
        places: Sequence[Place],
        file_name: str,
        stamp: str,
        log: logging.Logger,
    ) -> None:
        self.patch = patch
        self.places = tuple(places)
        self.file_name = file_name
        self.verdicts: dict[str, bool] = {}
        #: the cache while installed
        self.cache: KeptCode | None = None
        #: the cache as `save_and_stop` left it (its counts, for `stats`)
        self.last: KeptCode | None = None
        #: what each place held (set at `install`; kept after `save_and_stop` for a thread that
        #: was inside a replacement as it was taken out); for a name the owner didn't define,
        #: the builtin of that name
        self.originals: tuple[Any, ...] = ()
        self._added: tuple[bool, ...] = ()
        self._stamp, self._log = stamp, log
        self._lock = threading.Lock()

    @property
    def original(self) -> Any:
        """What the (first) place held: the function a one-place cache replaces; None before
        `install`."""
        return self.originals[0] if self.originals else None

    def install(self, cache_dir: Path) -> bool:
        """Put the replacements in place, with the entries kept in `cache_dir` (compiling what
        isn't there). Once a process; False when the patch stands down."""
        with self._lock:
            if self.cache is not None:
                return True
            if not patch_guard.fits(self.patch, "Python", self.verdicts, self._log):
                return False
            held = [vars(owner).get(name, _ABSENT) for owner, name, _ in self.places]
            self._added = tuple(h is _ABSENT for h in held)
            self.originals = tuple(
                getattr(builtins, name) if h is _ABSENT else h
                for h, (_, name, _) in zip(held, self.places, strict=True)
            )
            self.cache = KeptCode.load(cache_dir / self.file_name, self._stamp)
            for owner, name, replacement in self.places:
                setattr(owner, name, replacement)
            return True

    def stats(self) -> tuple[int, int]:
        """(entries taken from the kept file, entries compiled) since `install`, until now or
        until `save_and_stop`."""
        cache = self.cache or self.last
        return (cache.hits, len(cache.compiled)) if cache is not None else (0, 0)

    def save_and_stop(self) -> None:
        """Keep what this start compiled for the next one (written only when something new was
        compiled) and put back what each place held. From any thread; a failed write costs the
        next start only the compiling."""
        with self._lock:
            cache = self.cache
            if cache is None:
                return
            places = zip(self.places, self.originals, self._added, strict=True)
            for (owner, name, _), original, added in places:
                if added:
                    delattr(owner, name)
                else:
                    setattr(owner, name, original)
            self.cache, self.last = None, cache
        cache.save()


def _text_of(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bytes):
        return key.decode("latin-1")
    if isinstance(key, tuple):
        return "\0".join(_text_of(part) for part in key)
    return ""


def _holds_secret(key: Any, secrets: tuple[str, ...]) -> bool:
    """Whether `key` holds a secret `redact` would take out, as it is or with its backslashes
    taken out (a pattern built with `re.escape`)."""
    from agent_tui.redact import redact

    text = _text_of(key)
    texts = (text, text.replace("\\", "")) if "\\" in text else (text,)
    return any(redact(t, secrets) != t for t in texts)
