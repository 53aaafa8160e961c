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
the UI is imported (`CACHE.install`) and the boot worker saves what was compiled and takes it
out again once the agent is ready (`CACHE.save_and_stop`): later imports compile as usual.

The file is `cache_dir()/dataclass-code.marshal` (`kept_code`: its format, where it lies, what
becomes of a broken one).
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from agent_tui import __version__
from agent_tui.kept_code import CodeCachePatch, stamp
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
FORMAT = 2

_MISSING: Any = dataclasses.MISSING


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
    text comes from (kept, or compiled and kept)."""
    cache = CACHE.cache
    if cache is None:  # stopped while another thread was making a class
        return CACHE.original(
            name, args, body, globals=globals, locals=locals, return_type=return_type
        )
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
    code = cache.get(txt)
    if code is None:
        # As `exec(text)` in `dataclasses` compiles it: no `__future__` flags of this module.
        code = compile(txt, "<string>", "exec", dont_inherit=True)
        cache.put(txt, code)
    ns: dict[str, Any] = {}
    exec(code, globals, ns)
    return ns["__create_fn__"](**locals)


#: install, stats and save_and_stop: the entry point installs it before the UI is imported (through
#: `code_caches`), the boot worker saves and takes it out once the agent is ready
CACHE = CodeCachePatch(
    PATCH, [(dataclasses, "_create_fn", _create_fn)], FILE_NAME, stamp(FORMAT, __version__), log
)
