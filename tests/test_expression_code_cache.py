"""The expression code cache (`agent_tui.expression_code_cache`): a start that takes the code of
its forward references' and named tuples' texts from the kept file gets the very objects a start
that compiles them gets (equal code objects, the same `__new__`), a text that doesn't compile
fails as it does without the cache, the callers' `__future__` flags are honoured, and a missing,
broken, damaged or foreign cache or another Python only costs the compiling.

Each case runs in a fresh interpreter, as a start does (`code_cache_checks`)."""

from __future__ import annotations

import dis
import inspect
import marshal
import sys
from pathlib import Path
from types import CodeType, ModuleType

import code_cache_checks as checks
import pytest
from code_cache_checks import child_env, only_311, run_fresh, stand_down_lines

from agent_tui import expression_code_cache, patch_guard

# A module as Textual's and Rich's are: postponed annotations (strings, each a forward reference
# once a NamedTuple, TypedDict or Generic subscription takes it), and named tuples of each shape.
MODULE = '''
from __future__ import annotations
from collections import namedtuple
from typing import Generic, NamedTuple, Optional, TypedDict, TypeVar

T = TypeVar("T")

class Point(NamedTuple):
    """A point."""
    x: int
    y: float = 0.0
    tags: list[str] = []

class Movie(TypedDict, total=False):
    title: str
    year: Optional[int]

class Box(Generic[T]):
    pass

Boxed = Box["Point"]
Pair = namedtuple("Pair", "left, right", defaults=[None])
One = namedtuple("One", ["only"])
Renamed = namedtuple("Renamed", ["a", "def", "a", "_b"], rename=True)
Moved = namedtuple("Moved", "p q", module="elsewhere")
Empty = namedtuple("Empty", [])
'''

# Texts of every kind `ForwardRef` compiles: names, subscriptions, an unpacked `*Ts`, literals of
# each type, nested code (a comprehension, a lambda with defaults), a non-ASCII name, `__debug__`
# (the optimization level).
TEXTS = [
    "int",
    "list[int]",
    "dict[str, 'Node']",
    "*Ts",
    "Callable[[int], str]",
    "a.b.c",
    "Literal['x', 1, 2.5, b'y', None, 3j]",
    "x if y else z",
    "[i * 2 for i in range(3)]",
    "(lambda a, /, b=1, *c, d, **e: a)",
    "f'{x!r:>{w}}'",
    "é",
    "__debug__",
]

# Makes the module and the forward references (from the cache if `mode` isn't "stock") and prints
# a fingerprint of every code object and function made, and what they do.
REPORT = """
import builtins, json, pickle, sys, types, typing
from pathlib import Path
from agent_tui import expression_code_cache as cache
mode, folder = sys.argv[1], Path(sys.argv[2])
module_text, texts = sys.argv[3], eval(sys.argv[4])
if mode != "stock":
    cache.CACHE.install(folder)

def code_print(c):
    return [
        c.co_code.hex(), c.co_flags, c.co_name, c.co_qualname, c.co_filename, c.co_firstlineno,
        c.co_linetable.hex(), c.co_exceptiontable.hex(), c.co_names, c.co_varnames,
        c.co_freevars, c.co_cellvars, c.co_argcount, c.co_posonlyargcount,
        c.co_kwonlyargcount, c.co_stacksize, c.co_nlocals,
        [code_print(k) if isinstance(k, types.CodeType) else repr(k) for k in c.co_consts],
    ]

def ref_print(ref):
    text = ref.__forward_arg__
    # what `ForwardRef` compiles, compiled here by the builtin (this script has no __future__)
    expected = compile(f"({text},)[0]" if text[0] == "*" else text, "<string>", "eval")
    return [code_print(ref.__forward_code__), ref.__forward_code__ == expected, text,
            ref.__forward_is_argument__, ref.__forward_is_class__, ref.__forward_module__,
            ref.__forward_evaluated__]

made = types.ModuleType("made")
sys.modules["made"] = made
exec(compile(module_text, "made.py", "exec"), made.__dict__)
refs = [typing.ForwardRef(t) for t in texts]
refs.append(typing.ForwardRef("Point", is_argument=False, module="made", is_class=True))
refs += list(made.Point.__annotations__.values()) + list(made.Movie.__annotations__.values())
refs += list(made.Boxed.__args__)

tuples = {}
for name in ("Point", "Pair", "One", "Renamed", "Moved", "Empty"):
    cls = getattr(made, name)
    new = cls.__new__
    lambda_text = f"lambda _cls, {', '.join(cls._fields)}{',' if len(cls._fields) == 1 else ''}: "
    tuples[name] = [
        code_print(new.__code__), new.__name__, new.__qualname__, new.__doc__,
        repr(new.__defaults__), repr(new.__kwdefaults__), sorted(new.__globals__),
        new.__globals__["__builtins__"] == {}, new.__globals__["__name__"],
        new.__globals__["_tuple_new"] is tuple.__new__, new.__module__,
        cls._fields, repr(cls._field_defaults), cls.__module__, cls.__doc__,
    ]
Point, Pair = made.Point, made.Pair
behaviour = [
    repr(Point(1)), repr(Pair(1)), repr(Pair(1, 2)._replace(right=3)), repr(Pair._make([4, 5])),
    pickle.loads(pickle.dumps(Point(2, 3.0))) == Point(2, 3.0), Pair(1)._asdict(),
    repr(made.Renamed(1, 2, 3, 4)), repr(made.Empty()), made.One(7).only,
    repr(typing.get_type_hints(Point)), repr(typing.get_type_hints(made.Movie)),
]
errors = []
for bad in ("1 +", "a b", "x\\0", "*", "def", "  int"):
    try:
        typing.ForwardRef(bad)
    except SyntaxError as exc:
        errors.append([type(exc).__name__, str(exc), repr(exc.__context__)])
try:
    typing.NamedTuple("Bad", [("x", "not valid(")])
except Exception as exc:
    errors.append([type(exc).__name__, str(exc)])
try:
    typing.ForwardRef(1)
except TypeError as exc:
    errors.append([type(exc).__name__, str(exc)])
hits, compiled = cache.CACHE.stats()
cache.CACHE.save_and_stop()
print(json.dumps({
    "refs": [ref_print(r) for r in refs], "tuples": tuples, "behaviour": repr(behaviour),
    "errors": errors, "hits": hits, "compiled": compiled,
    "restored": "compile" in vars(typing) or "eval" in vars(__import__("collections")),
}))
"""

#: the texts compiled: every forward reference's and each named tuple's `__new__`
EXPECTED_REFS = len(TEXTS) + 1 + 3 + 2 + 1
EXPECTED_TUPLES = 6


def report(mode: str, folder: Path) -> dict[str, object]:
    return run_fresh(REPORT, mode, folder, MODULE, repr(TEXTS))  # type: ignore[no-any-return]


def test_the_patch_fits_this_python() -> None:
    """CI's Python is the one the patch was written for: it applies there (elsewhere it stands
    down, see below), so the start-up figures in BENCHMARKS.md are what users of it get."""
    if sys.version_info[:2] != (3, 11):
        pytest.skip("written for CPython 3.11's typing and collections")
    for target, expected in expression_code_cache.PATCH.targets.items():
        assert patch_guard.digest(patch_guard.resolve(target)) == expected, target


def _names_used(module: ModuleType, name: str) -> tuple[set[str], set[str]]:
    """The functions (and class bodies) of `module`'s source that look `name` up as a global,
    and those that bind it."""
    used: set[str] = set()
    bound: set[str] = set()

    def walk(code: CodeType) -> None:
        for instruction in dis.get_instructions(code):
            if instruction.argval != name:
                continue
            if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                used.add(code.co_qualname)
            elif instruction.opname in ("STORE_GLOBAL", "STORE_NAME", "IMPORT_FROM"):
                bound.add(code.co_qualname)
        for const in code.co_consts:
            if isinstance(const, CodeType):
                walk(const)

    walk(compile(inspect.getsource(module), module.__file__ or "", "exec"))
    return used, bound


@only_311
def test_the_guard_covers_every_function_that_uses_the_shadowed_names() -> None:
    """The module globals shadow `compile` in `typing` and `eval` in `collections` for every
    function there: the patch's guard covers each that uses the name (another Python whose
    module uses it anywhere else changes a guarded source or fails here), and neither module
    has a name of its own it would hide."""
    found = set()
    for owner, name, _ in expression_code_cache.CACHE.places:
        used, bound = _names_used(owner, name)
        assert bound == set(), (owner.__name__, name)
        found |= {f"{owner.__name__}:{qualname}" for qualname in used}
    assert found == set(expression_code_cache.PATCH.targets)


@only_311
def test_kept_code_makes_the_same_objects_as_compiling(tmp_path: Path) -> None:
    stock = report("stock", tmp_path)
    cold = report("cold", tmp_path)  # compiles, and keeps the code for the next start
    assert (tmp_path / expression_code_cache.FILE_NAME).is_file()
    warm = report("warm", tmp_path)  # takes every text's code from the kept file
    for key in ("refs", "tuples", "behaviour", "errors"):
        assert stock[key] == cold[key] == warm[key], key
    # each forward reference's code equal to what `compile` makes of its text, here and there
    assert all(ref[1] for ref in warm["refs"])  # type: ignore[union-attr]
    assert len(stock["refs"]) == EXPECTED_REFS  # type: ignore[arg-type]
    # a text that doesn't compile fails as it does without the cache, each time: never kept
    assert len(warm["errors"]) == 8  # type: ignore[arg-type]
    assert warm["errors"][0][:2] == [  # type: ignore[index]
        "SyntaxError",
        "Forward reference must be an expression -- got '1 +'",
    ]
    assert cold["hits"] == 0 and cold["compiled"] >= EXPECTED_TUPLES + len(TEXTS)
    assert warm["compiled"] == 0 and warm["hits"] >= EXPECTED_REFS + EXPECTED_TUPLES
    # once saved, `typing` and `collections` use the builtins again: later texts compile as usual
    assert cold["restored"] is warm["restored"] is False


# In `typing`'s and `collections`' namespaces (as installed, or without the cache), code with its
# own `__future__` flags calls `compile` and `eval`, as the builtins called from there would see it
# (the flags inherited, the caller's namespaces, bytes, an AST): the same results either way.
CALLERS = """
import ast, builtins, collections, json, sys, typing
from pathlib import Path
from agent_tui import expression_code_cache as cache
if sys.argv[1] != "stock":
    cache.CACHE.install(Path(sys.argv[2]))
caller = '''
from __future__ import barry_as_FLUFL, annotations
inherited = compile("1 <> 2", "<string>", "eval")
own = compile("x", "<string>", "eval", dont_inherit=True)
tree = type(compile("x", "<string>", "eval", 0x400)).__name__
value = eval(" 1 <> 2")
def local_names():
    y = 41
    return eval("y + 1")
local = local_names()
from_bytes = eval(b"\\t2 * 3", {})
'''
found = []
for module in (typing, collections):
    namespace = dict(vars(module))
    exec(builtins.compile(caller, "caller.py", "exec"), namespace)
    found.append([
        namespace["inherited"].co_flags, namespace["own"].co_flags, namespace["tree"],
        namespace["value"], namespace["local"], namespace["from_bytes"],
    ])
cache.CACHE.save_and_stop()
print(json.dumps({"found": found, "stats": cache.CACHE.stats()}))
"""


@only_311
def test_callers_future_flags_and_namespaces_are_honoured(tmp_path: Path) -> None:
    stock = run_fresh(CALLERS, "stock", tmp_path)
    assert stock["found"][0][0] & expression_code_cache.INHERITED  # the flags were inherited
    cold = run_fresh(CALLERS, "cold", tmp_path)
    warm = run_fresh(CALLERS, "warm", tmp_path)
    assert stock["found"] == cold["found"] == warm["found"]
    assert warm["stats"][0] > 0 and warm["stats"][1] == 0


@only_311
@checks.broken_files
def test_a_broken_cache_only_costs_the_compiling(tmp_path: Path, content: bytes) -> None:
    (tmp_path / expression_code_cache.FILE_NAME).write_bytes(content)
    stock = report("stock", tmp_path)
    cold = report("cold", tmp_path)
    assert (cold["refs"], cold["tuples"]) == (stock["refs"], stock["tuples"])
    assert cold["hits"] == 0
    warm = report("warm", tmp_path)  # rewritten whole by the start that found it broken
    assert warm["behaviour"] == stock["behaviour"] and warm["compiled"] == 0


@only_311
def test_damaged_entries_are_compiled_anew(tmp_path: Path) -> None:
    """An entry that doesn't unmarshal, or unmarshals to something not a code object: the text
    is compiled as usual, right."""
    stock = report("stock", tmp_path)
    report("cold", tmp_path)
    path = tmp_path / expression_code_cache.FILE_NAME
    stamp, written, kept = marshal.loads(path.read_bytes())
    damaged = {
        key: (last, blob[: len(blob) // 2] if i % 2 else marshal.dumps(42))
        for i, (key, (last, blob)) in enumerate(kept.items())
    }
    path.write_bytes(marshal.dumps((stamp, written, damaged)))
    again = report("warm", tmp_path)
    assert (again["refs"], again["tuples"]) == (stock["refs"], stock["tuples"])
    assert again["behaviour"] == stock["behaviour"]
    assert again["compiled"] == len(kept)


@only_311
def test_another_interpreters_cache_is_ignored(tmp_path: Path) -> None:
    report("cold", tmp_path)
    stamp, entries = checks.as_if_another_python(expression_code_cache, tmp_path)
    again = report("warm", tmp_path)
    assert again["hits"] == 0 and again["compiled"] == entries
    assert checks.stamp_of(expression_code_cache, tmp_path) == stamp  # and rewritten for this one


def test_stands_down_on_a_python_whose_sources_differ(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    lines = stand_down_lines(expression_code_cache, monkeypatch, caplog, tmp_path)
    assert lines == [
        "Python patch expression_code_cache stands down: typing:ForwardRef.__init__, "
        "collections:namedtuple changed since Python 3.11 (each start compiles every forward "
        "reference and named tuple's text again)"
    ]


@only_311
def test_a_text_that_holds_a_secret_is_not_written(tmp_path: Path) -> None:
    """Nothing the app writes holds the API key: a forward reference or named tuple whose text
    holds it, or a token's value, or anything like an Anthropic key (also one the compiler joins
    from pieces into one constant of the code), is compiled as usual and left out of the file."""
    key = "sk-ant-api03-" + "x" * 40
    token = "tok" + "y" * 20
    script = """
import collections, sys, typing
from pathlib import Path
from agent_tui import expression_code_cache as cache
cache.CACHE.install(Path(sys.argv[1]))
key, token = sys.argv[2], sys.argv[3]
typing.ForwardRef(f"Literal[{key!r}]")
typing.ForwardRef("Literal['sk-ant-' 'api03-" + "z" * 30 + "']")
collections.namedtuple("Secret", [token])
typing.ForwardRef("Plain")
cache.CACHE.save_and_stop()
print(cache.CACHE.stats()[1])
"""
    env = child_env(ANTHROPIC_API_KEY=key, SOME_TOKEN=token)
    assert run_fresh(script, tmp_path, key, token, env=env) == 4
    written = (tmp_path / expression_code_cache.FILE_NAME).read_bytes()
    assert b"Plain" in written
    for secret in (key, token, "sk-ant-"):
        assert secret.encode() not in written
    _, _, kept = marshal.loads(written)
    assert [text for text, *_ in kept] == ["Plain"]


def test_the_cache_is_installed_with_the_others() -> None:
    from agent_tui import code_caches

    assert expression_code_cache.CACHE in code_caches.CACHES
    files = [cache.file_name for cache in code_caches.CACHES]
    assert len(set(files)) == len(files)
