"""Forward references and named tuples made at start-up without compiling their text again: a
code cache.

Two pieces of the standard library compile a small expression each time they are used, and the
modules on the way to a ready prompt use them at import: `typing.ForwardRef` compiles the text of
every string annotation that reaches a `NamedTuple`, `TypedDict` or `Generic[…]` subscription
(~270 a start, mostly Textual's and Rich's, whose modules postpone their annotations), and
`collections.namedtuple` evaluates the text of each named tuple's `__new__` lambda (~70), ~4 ms of
CPU in all (issue 34). What `compile` makes of a text depends only on the text, the file name, the
mode, the compiler flags and the optimization level, so one start's code objects are kept
(`kept_code`, marshalled as a `.pyc` keeps a module's) and the next start takes them: the same
`__forward_code__`, the same `__new__` (its code executed by `eval` in the namespace `namedtuple`
gives it, its name, doc and defaults set by `namedtuple` as usual).

How: `typing` gets a module global `compile` and `collections` a module global `eval`, which shadow
the builtins for those modules' own functions only: `ForwardRef.__init__` and `namedtuple`, the only
functions there that use the names (a test checks every function of both modules), are the
standard library's own, unchanged; the replacements do what the builtins do, taking the code of a
text from the kept file. Smaller and safer than copying `ForwardRef.__init__` and `namedtuple`
(~120 lines, whose callers' frames `namedtuple` reads) the way `dataclass_code_cache` copies
`_create_fn`. A builtin called from here would inherit this module's `__future__` flags (a
`compile` without `dont_inherit`, an `eval` of text), so the replacements pass their caller's
flags, as the builtin called from the caller takes them; a text that doesn't compile is compiled
by the builtin every time (its error raised as it is), never kept. A compiler warning about a text
is shown by the start that compiles it, as for a module's bytecode.

It is guarded as the other code caches are (`patch_guard`): written for CPython 3.11's
`ForwardRef.__init__` and `namedtuple`, it stands down (both compile as usual, one log line) on a
Python whose sources differ. `code_caches` installs it with them before the modules are imported,
and takes it out (the two names are removed again) once the agent is ready.
"""

from __future__ import annotations
import __future__

import builtins
import collections
import logging
import sys
import typing
from types import CodeType, FrameType
from typing import Any

from agent_tui import __version__
from agent_tui.kept_code import CodeCachePatch, stamp
from agent_tui.patch_guard import Patch

log = logging.getLogger(__name__)

PATCH = Patch(
    name="expression_code_cache",
    version="3.11",
    fixes="each start compiles every forward reference and named tuple's text again",
    targets={
        "typing:ForwardRef.__init__": 4134820719,
        "collections:namedtuple": 2275876884,
    },
)
FILE_NAME = "expression-code.marshal"
#: bumped when what the file holds changes shape
FORMAT = 1

#: the compiler flags a `compile` or `eval` of text inherits from its caller's code (`PyCF_MASK`)
INHERITED = 0
for _feature in __future__.all_feature_names:
    if _feature not in ("nested_scopes", "generators"):  # always on: no flag passed on
        INHERITED |= getattr(__future__, _feature).compiler_flag


#: the optimization level the interpreter compiles with (`-O`): `optimize=-1`
_OPTIMIZE = sys.flags.optimize


def _code(source: str | bytes, filename: Any, mode: Any, flags: int, optimize: int) -> CodeType:
    """`compile(source, filename, mode, flags, dont_inherit=True, optimize)`, the code of a text
    taken from the kept file when it was kept."""
    cache = CACHE.cache
    if cache is None or type(source) is not str or type(filename) is not str or flags & ~INHERITED:
        compiled: CodeType = builtins.compile(source, filename, mode, flags, True, optimize)
        return compiled
    key = (source, filename, mode, flags, _OPTIMIZE if optimize == -1 else optimize)
    kept = cache.get(key)
    if type(kept) is CodeType:
        return kept
    compiled = builtins.compile(source, filename, mode, flags, True, optimize)  # as usual
    cache.put(key, compiled)
    return compiled


def _inherited(caller: FrameType) -> int:
    return caller.f_code.co_flags & INHERITED


def _compile(
    source: Any,
    filename: Any,
    mode: Any,
    flags: int = 0,
    dont_inherit: bool = False,
    optimize: int = -1,
    *,
    _feature_version: int = -1,
) -> Any:
    """The builtin `compile`, called from `typing` (`ForwardRef.__init__`), the code of a text
    taken from the kept file."""
    if not dont_inherit and isinstance(flags, int):  # as the builtin takes them from its caller
        flags, dont_inherit = int(flags) | _inherited(sys._getframe(1)), True
    plain = type(flags) is int and type(optimize) is int and _feature_version == -1
    if plain and type(mode) is str and dont_inherit is True:
        return _code(source, filename, mode, flags, optimize)
    # arguments the builtin refuses before it compiles anything, or an older grammar's compile
    return builtins.compile(
        source, filename, mode, flags, dont_inherit, optimize, _feature_version=_feature_version
    )


def _eval(source: Any, globals: Any = None, locals: Any = None, /) -> Any:
    """The builtin `eval`, called from `collections` (`namedtuple`), the code of a text taken
    from the kept file."""
    caller = sys._getframe(1)
    if globals is None:  # as the builtin does: the caller's namespaces
        globals = caller.f_globals
        if locals is None:
            locals = caller.f_locals
    text = isinstance(source, str | bytes)
    if text and isinstance(globals, dict) and (locals is None or _mapping(locals)):
        # compiled as the builtin compiles a text: leading blanks dropped, the caller's flags
        blanks: Any = " \t" if isinstance(source, str) else b" \t"
        source = _code(source.lstrip(blanks), "<string>", "eval", _inherited(caller), -1)
    # a code object, or arguments the builtin refuses before it compiles anything
    return builtins.eval(source, globals, locals)


def _mapping(value: object) -> bool:
    return hasattr(type(value), "__getitem__")


#: install, stats and save_and_stop (through `code_caches`, as the other code caches)
CACHE = CodeCachePatch(
    PATCH,
    [(typing, "compile", _compile), (collections, "eval", _eval)],
    FILE_NAME,
    stamp(FORMAT, __version__),
    log,
)
