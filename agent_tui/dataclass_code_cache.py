"""Dataclasses made at start-up without compiling their methods again: a code cache.

Each dataclass compiles the methods it generates (`__init__`, `__repr__`, `__eq__`, a frozen
class's `__setattr__`, …) from source text when its module is imported: ~0.3 ms a class on Python
3.11. The ~130 classes on the way to a ready agent (ours, Textual's, Rich's) took ~45 ms of CPU,
more than half of it `compile` (BENCHMARKS.md, issue 34). That text depends only on the class's
fields and options, and compiling it is pure, so the code objects one start compiled are kept
(marshalled, as Python keeps a module's bytecode in its `.pyc`) and the next start executes them
instead: the same functions, made by the same `exec` in the same namespaces. What is kept is keyed
by the whole source text, so a changed class simply compiles anew.

It patches the standard library's private `dataclasses._create_fn`, guarded as the Textual patches
are (`patch_guard`): written for CPython 3.11's source, it stands down (dataclasses compile as
usual, one log line) on a Python whose `_create_fn` differs. The entry point installs it before
the UI is imported (`install`) and the boot worker saves what was compiled and takes it out again
once the agent is ready (`save_and_stop`): later imports compile as usual.

The file is `cache_dir()/dataclass-code.marshal`, tagged with the interpreter's version (marshal's
format is the interpreter's own); missing, unreadable or from another interpreter it is ignored and
rewritten. Like the parsed stylesheets beside it, it lies in the user's own cache directory, which
only they can write, as with their `__pycache__` folders.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import marshal
import os
import sys
import threading
from pathlib import Path
from typing import Any

from agent_tui import patch_guard
from agent_tui.patch_guard import Patch

log = logging.getLogger(__name__)

PATCH = Patch(
    name="dataclass_code_cache",
    version="3.11",
    fixes="each start compiles every dataclass's generated methods again",
    targets={"dataclasses:_create_fn": 3222192895},
)
FILE_NAME = "dataclass-code.marshal"
#: bumped when what the file holds changes shape
FORMAT = 1
#: more entries than this and only those this start used are kept (an upgrade's leftovers go)
MAX_ENTRIES = 4000

_verdicts: dict[str, bool] = {}
_MISSING: Any = dataclasses.MISSING


class _Cache:
    """The code kept from the last start (`kept`: source text -> marshalled code) and what this
    start looked up and compiled."""

    def __init__(self, path: Path, kept: dict[str, bytes]) -> None:
        self.path = path
        self.kept = kept
        self.compiled: dict[str, bytes] = {}
        self.used: set[str] = set()
        self.hits = 0

    def code(self, text: str) -> Any:
        self.used.add(text)
        blob = self.kept.get(text)
        if blob is not None:
            with contextlib.suppress(ValueError, EOFError, TypeError):
                code = marshal.loads(blob)
                self.hits += 1
                return code
        # As `exec(text)` in `dataclasses` compiles it: no `__future__` flags of this module.
        code = compile(text, "<string>", "exec", dont_inherit=True)
        self.compiled[text] = marshal.dumps(code)
        return code


_cache: _Cache | None = None
#: the cache as `save_and_stop` left it (its counts, for `stats`)
_last: _Cache | None = None
_original: Any = None
_lock = threading.Lock()


def _create_fn(
    name: str,
    args: list[str],
    body: list[str],
    *,
    globals: dict[str, Any] | None = None,
    locals: dict[str, Any] | None = None,
    return_type: Any = _MISSING,
) -> Any:
    """`dataclasses._create_fn` of CPython 3.11, line for line, but for where the code of the
    text comes from (`_Cache.code`)."""
    cache = _cache
    if cache is None:  # stopped while another thread was making a class
        return _original(name, args, body, globals=globals, locals=locals, return_type=return_type)
    if locals is None:
        locals = {}
    return_annotation = ""
    if return_type is not _MISSING:
        locals["_return_type"] = return_type
        return_annotation = "->_return_type"
    joined_args = ",".join(args)
    joined_body = "\n".join(f"  {b}" for b in body)
    txt = f" def {name}({joined_args}){return_annotation}:\n{joined_body}"
    local_vars = ", ".join(locals.keys())
    txt = f"def __create_fn__({local_vars}):\n{txt}\n return {name}"
    ns: dict[str, Any] = {}
    exec(cache.code(txt), globals, ns)
    return ns["__create_fn__"](**locals)


def _stamp() -> str:
    return f"{FORMAT} {sys.implementation.cache_tag} {sys.version}"


def _load(path: Path) -> dict[str, bytes]:
    try:
        stamp, kept = marshal.loads(path.read_bytes())
    except Exception:  # missing, truncated, or not ours: compile as usual, rewrite it later
        return {}
    if stamp != _stamp() or not isinstance(kept, dict):
        return {}
    return kept


def install(cache_dir: Path) -> bool:
    """Make this process's dataclasses from the code kept in `cache_dir` (compiling what isn't
    there). Once a process; False when the patch stands down (another Python's `_create_fn`)."""
    global _cache, _original
    with _lock:
        if _cache is not None:
            return True
        if not patch_guard.fits(PATCH, "Python", _verdicts, log):
            return False
        path = cache_dir / FILE_NAME
        _original = dataclasses._create_fn  # type: ignore[attr-defined]
        _cache = _Cache(path, _load(path))
        dataclasses._create_fn = _create_fn  # type: ignore[attr-defined]
        return True


def stats() -> tuple[int, int]:
    """(functions made from the kept code, functions compiled) since `install`, until now or
    until `save_and_stop`."""
    cache = _cache or _last
    return (cache.hits, len(cache.compiled)) if cache is not None else (0, 0)


def save_and_stop() -> None:
    """Keep what this start compiled for the next one (written only when something new was
    compiled) and give `dataclasses` its own `_create_fn` back. From any thread; a failed write
    costs the next start only the compiling."""
    global _cache, _last
    with _lock:
        cache = _cache
        if cache is None:
            return
        dataclasses._create_fn = _original  # type: ignore[attr-defined]
        _cache, _last = None, cache
    compiled = dict(cache.compiled)
    if not compiled:
        return
    kept = {**cache.kept, **compiled}
    if len(kept) > MAX_ENTRIES:
        kept = {text: blob for text, blob in kept.items() if text in cache.used}
    path = cache.path
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        blob = marshal.dumps((_stamp(), kept))
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(blob)
        os.replace(temporary, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
