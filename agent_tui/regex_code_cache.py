"""Regular expressions made at start-up without parsing and compiling them again: a code cache.

Python compiles a pattern (`re.compile`, or a module-level `re.match`…) in two steps written in
Python, parsing it (`re._parser.parse`) and generating the matcher's code (`re._compiler._code`),
then hands that code to the C engine (`_sre.compile`). Every start did both again for each pattern
the modules it imports compile at import: ~100 patterns on the way to a ready prompt, ~150 to a
resumed session's history (Textual's stylesheet tokenizer alone 4 ms), 11-15 ms of CPU in all
(BENCHMARKS.md, issue 34). What the two steps produce depends only on the pattern and its flags,
so one start's results are kept (`kept_code`) and the next start gives the C engine the same
arguments: the same pattern objects. The C engine checks the code it is given (`_sre` validates
it), so even a damaged entry can't make a wrong matcher; it would fail to compile, and a failure
compiles as usual.

It patches the standard library's private `re._compiler.compile`, guarded as the dataclass code
cache is (`patch_guard`): written for CPython 3.11's source, it stands down (patterns compile as
usual, one log line) on a Python whose `compile` differs. Only patterns given as text are kept;
`re.DEBUG` and patterns a `re.Scanner` builds compile as usual. `code_caches` installs it with the
dataclass code cache, before the modules are imported, and takes it out once the agent is ready.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # the C engine: no stubs
import logging
import re
import threading
from pathlib import Path
from typing import Any

from agent_tui import __version__, patch_guard
from agent_tui.kept_code import KeptCode, stamp
from agent_tui.patch_guard import Patch

log = logging.getLogger(__name__)

PATCH = Patch(
    name="regex_code_cache",
    version="3.11",
    fixes="each start parses and compiles every regular expression its modules make again",
    targets={"re._compiler:compile": 1599832772},
)
FILE_NAME = "regex-code.marshal"
#: bumped when what the file holds changes shape
FORMAT = 2

_verdicts: dict[str, bool] = {}
_cache: KeptCode | None = None
#: the cache as `save_and_stop` left it (its counts, for `stats`)
_last: KeptCode | None = None
_original: Any = None
_lock = threading.Lock()


def _compile(p: Any, flags: int = 0) -> Any:
    """`re._compiler.compile` of CPython 3.11, but for where the engine's arguments of a pattern
    given as text come from (kept, or worked out as `compile` does and kept)."""
    cache = _cache
    if cache is None or not isinstance(p, str | bytes) or flags & re.DEBUG:
        return _original(p, flags)
    key = (p, int(flags))
    kept = cache.get(key)
    if kept is not None:
        try:
            return _sre.compile(p, *kept)
        except Exception:  # damaged: not the code `compile` makes, so made anew below
            log.debug("kept code for pattern %r refused", p, exc_info=True)
    parsed = re._parser.parse(p, flags)  # type: ignore[attr-defined]
    code = re._compiler._code(parsed, flags)  # type: ignore[attr-defined]
    groupindex = parsed.state.groupdict
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    # The opcodes are named int constants: kept (and given to the engine) as the ints they are.
    arguments = (
        int(flags | parsed.state.flags),
        [int(op) for op in code],
        parsed.state.groups - 1,
        dict(groupindex),
        tuple(indexgroup),
    )
    compiled = _sre.compile(p, *arguments)
    try:
        cache.put(key, arguments)
    except ValueError:  # not marshallable (a pattern `marshal` can't hold): made anew each start
        log.debug("pattern %r not kept", p, exc_info=True)
    return compiled


def _stamp() -> str:
    return stamp(FORMAT, __version__, _sre.MAGIC, _sre.CODESIZE)


def install(cache_dir: Path) -> bool:
    """Make this process's patterns from the code kept in `cache_dir` (compiling what isn't
    there). Once a process; False when the patch stands down (another Python's `compile`)."""
    global _cache, _original
    with _lock:
        if _cache is not None:
            return True
        if not patch_guard.fits(PATCH, "Python", _verdicts, log):
            return False
        _original = re._compiler.compile  # type: ignore[attr-defined]
        _cache = KeptCode.load(cache_dir / FILE_NAME, _stamp())
        re._compiler.compile = _compile  # type: ignore[attr-defined]
        return True


def stats() -> tuple[int, int]:
    """(patterns made from kept code, patterns compiled and kept) since `install`, until now or
    until `save_and_stop`."""
    cache = _cache or _last
    return (cache.hits, len(cache.compiled)) if cache is not None else (0, 0)


def save_and_stop() -> None:
    """Keep what this start compiled for the next one (written only when something new was
    compiled) and give `re` its own `compile` back. From any thread."""
    global _cache, _last
    with _lock:
        cache = _cache
        if cache is None:
            return
        re._compiler.compile = _original  # type: ignore[attr-defined]
        _cache, _last = None, cache
    cache.save()
