"""Regular expressions made at start-up without parsing and compiling them again: a code cache.

Python compiles a pattern (`re.compile`, or a module-level `re.match`…) in two steps written in
Python, parsing it (`re._parser.parse`) and generating the matcher's code (`re._compiler._code`),
then hands that code to the C engine (`_sre.compile`). Every start did both again for each pattern
the modules it imports compile at import: ~100 patterns on the way to a ready prompt, ~150 to a
resumed session's history (Textual's stylesheet tokenizer alone 4 ms), 11-15 ms of CPU in all
(BENCHMARKS.md, issue 34). What the two steps produce depends only on the pattern and its flags,
so one start's results are kept (`kept_code`) and the next start gives the C engine the same
arguments: the same pattern objects. The C engine checks the structure of the code it is given
(`_sre` validates it): an entry damaged out of shape is refused and the pattern compiled as usual.
An entry rewritten into another valid program would match otherwise; the file is as much the
person's own as their `__pycache__`, whose bytecode is trusted the same way.

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
from typing import Any

from agent_tui import __version__
from agent_tui.kept_code import CodeCachePatch, stamp
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


def _compile(p: Any, flags: int = 0) -> Any:
    """`re._compiler.compile` of CPython 3.11, but for where the engine's arguments of a pattern
    given as text come from (kept, or worked out as `compile` does and kept)."""
    cache = CACHE.cache
    if cache is None or not isinstance(p, str | bytes) or flags & re.DEBUG:
        return CACHE.original(p, flags)
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


#: install, stats and save_and_stop (through `code_caches`, as the dataclass code cache)
CACHE = CodeCachePatch(
    PATCH,
    [(re._compiler, "compile", _compile)],  # type: ignore[attr-defined]
    FILE_NAME,
    stamp(FORMAT, __version__, _sre.MAGIC, _sre.CODESIZE),
    log,
)
