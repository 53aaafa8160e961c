"""The dataclass code cache (`agent_tui.dataclass_code_cache`): a start that takes its dataclasses'
methods from the kept code gets the very functions a start that compiles them gets, and a missing,
broken or foreign cache, an unwritable folder or another Python only costs the compiling.

Each case runs in a fresh interpreter, as a start does: a class is made once per process."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap
from pathlib import Path

import code_cache_checks as checks
import pytest
from code_cache_checks import child_env, only_311, run_fresh, stand_down_lines

from agent_tui import (
    code_caches,
    dataclass_code_cache,
    expression_code_cache,
    patch_guard,
    regex_code_cache,
)

# Classes covering what `dataclasses` generates: defaults and factories, frozen with slots and
# inheritance (as our events are), ordering, keyword-only fields, InitVar and __post_init__,
# ClassVar, fields left out of init/repr/compare, unsafe_hash, and a field named like a local.
CLASSES = """
import dataclasses
from dataclasses import InitVar, dataclass, field
from typing import ClassVar

@dataclass
class Plain:
    a: int
    b: str = "b"
    c: list = field(default_factory=list)

@dataclass(frozen=True, slots=True)
class Base:
    kind: ClassVar[str] = "base"
    x: int = 0

@dataclass(frozen=True, slots=True)
class Child(Base):
    y: tuple = ()
    z: str = field(default="z", repr=False, compare=False)

@dataclass(order=True)
class Ordered:
    rank: int
    name: str = field(default="", compare=False)

@dataclass(kw_only=True)
class KeywordOnly:
    self_: int = 1
    BUILTINS: str = "shadow"

@dataclass
class PostInit:
    total: int = field(init=False, default=0)
    seed: InitVar[int] = 3
    def __post_init__(self, seed):
        self.total = seed * 2

@dataclass(unsafe_hash=True)
class Hashed:
    key: str = "k"
"""

# Prints a fingerprint of every generated method (its bytecode, constants, names, annotations,
# defaults) and of what the classes do, then the cache's counts.
REPORT = """
import json, sys
from agent_tui import dataclass_code_cache as cache
from pathlib import Path
mode, folder = sys.argv[1], Path(sys.argv[2])
if mode != "stock":
    cache.CACHE.install(folder)
namespace = {"__name__": "made"}
exec(compile(CLASSES, "made.py", "exec"), namespace)
made = {}
for name, cls in namespace.items():
    if not isinstance(cls, type) or not hasattr(cls, "__dataclass_fields__"):
        continue
    methods = {}
    for attr, value in sorted(vars(cls).items()):
        code = getattr(value, "__code__", None)
        if code is None or code.co_filename != "<string>":
            continue
        methods[attr] = [
            code.co_code.hex(), repr(code.co_consts), code.co_names, code.co_varnames,
            repr(value.__annotations__), value.__qualname__, repr(value.__defaults__),
            repr(value.__kwdefaults__), code.co_freevars,
        ]
    made[name] = {"methods": methods, "doc": cls.__doc__}
p, c, o = namespace["Plain"](1), namespace["Child"](x=2, y=(3,)), namespace["Ordered"]
behaviour = [
    repr(p), p == namespace["Plain"](1, "b", []), repr(c),
    hash(c) == hash(namespace["Child"](2, (3,))),
    o(1) < o(2), repr(namespace["KeywordOnly"](self_=5)), namespace["PostInit"](seed=4).total,
    hash(namespace["Hashed"]()) == hash(namespace["Hashed"]()), namespace["Child"].__match_args__,
]
try:
    c.x = 9
except Exception as exc:
    behaviour.append(type(exc).__name__)
hits, compiled = cache.CACHE.stats()
cache.CACHE.save_and_stop()
import dataclasses
print(json.dumps({"made": made, "behaviour": repr(behaviour), "hits": hits,
                  "compiled": compiled, "restored": dataclasses._create_fn.__module__}))
"""


def report(mode: str, folder: Path) -> dict[str, object]:
    return run_fresh(f"CLASSES = {CLASSES!r}\n" + REPORT, mode, folder)  # type: ignore[no-any-return]


def test_the_patch_fits_this_python() -> None:
    """CI's Python is the one the patch was written for: it applies there (elsewhere it stands
    down, see below), so the start-up figures in BENCHMARKS.md are what users of it get."""
    if sys.version_info[:2] != (3, 11):
        pytest.skip("written for CPython 3.11's dataclasses")
    own = dataclass_code_cache.CACHE.original or dataclasses._create_fn  # type: ignore[attr-defined]
    assert patch_guard.digest(own) == dataclass_code_cache.PATCH.targets["dataclasses:_create_fn"]


@only_311
def test_kept_code_makes_the_same_functions_as_compiling(tmp_path: Path) -> None:
    stock = report("stock", tmp_path)
    cold = report("cold", tmp_path)  # compiles, and keeps the code for the next start
    assert (tmp_path / dataclass_code_cache.FILE_NAME).is_file()
    warm = report("warm", tmp_path)  # takes every method from the kept code
    assert stock["made"] == cold["made"] == warm["made"]
    assert stock["behaviour"] == cold["behaviour"] == warm["behaviour"]
    methods = sum(len(c["methods"]) for c in stock["made"].values())  # type: ignore[union-attr]
    assert cold["compiled"] >= methods and cold["hits"] == 0
    assert warm["compiled"] == 0 and warm["hits"] >= methods
    # once saved, `dataclasses` has its own function back: later classes compile as usual
    assert cold["restored"] == warm["restored"] == "dataclasses"


@only_311
@checks.broken_files
def test_a_broken_cache_only_costs_the_compiling(tmp_path: Path, content: bytes) -> None:
    (tmp_path / dataclass_code_cache.FILE_NAME).write_bytes(content)
    stock = report("stock", tmp_path)
    cold = report("cold", tmp_path)
    assert cold["made"] == stock["made"] and cold["hits"] == 0
    warm = report("warm", tmp_path)  # rewritten whole by the start that found it broken
    assert warm["made"] == stock["made"] and warm["compiled"] == 0


@only_311
def test_another_interpreters_cache_is_ignored(tmp_path: Path) -> None:
    report("cold", tmp_path)
    stamp, _ = checks.as_if_another_python(dataclass_code_cache, tmp_path)
    again = report("warm", tmp_path)
    assert again["hits"] == 0 and again["compiled"] > 0
    assert checks.stamp_of(dataclass_code_cache, tmp_path) == stamp  # and rewritten for this one


@only_311
def test_an_unwritable_cache_folder_is_not_an_error(tmp_path: Path) -> None:
    blocked = checks.in_the_way(tmp_path)
    stock = report("stock", tmp_path)
    cold = report("cold", blocked)  # the folder can't be made: the start goes on, compiling
    assert cold["made"] == stock["made"] and cold["restored"] == "dataclasses"
    assert blocked.read_text() == checks.IN_THE_WAY


def test_stands_down_on_a_python_whose_create_fn_differs(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    assert stand_down_lines(dataclass_code_cache, monkeypatch, caplog, tmp_path) == [
        "Python patch dataclass_code_cache stands down: dataclasses:_create_fn changed since "
        "Python 3.11 (each start compiles every dataclass's generated methods again)"
    ]


APP_START = """
import collections, dataclasses, json, os, typing
from agent_tui import code_caches, paths
code_caches.install(paths.cache_dir())
from agent_tui.runtime import Options
from agent_tui.ui.app import AgentApp

class Probe(AgentApp):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        boot = self.boot._boot

        def booted():
            boot()
            stats = {cache.file_name: cache.stats() for cache in code_caches.CACHES}
            restored = dataclasses._create_fn.__module__ == "dataclasses" and not (
                "compile" in vars(typing) or "eval" in vars(collections)
            )
            print(json.dumps({"stats": stats, "restored": restored}), flush=True)
            os._exit(0)

        self.boot._boot = booted

Probe(Options(offline=True)).run(headless=True)
"""


@only_311
def test_the_app_keeps_its_start_ups_code_and_the_next_start_uses_it(tmp_path: Path) -> None:
    """As `agent-tui` starts: installed before the UI is imported, saved and taken out by the
    boot worker once the agent is ready; the second start compiles no dataclass of the way, no
    regular expression (`regex_code_cache`) and no forward reference's or named tuple's text
    (`expression_code_cache`), installed with it by `code_caches`."""
    # One hash seed for both: two of the standard library's patterns are built from sets (their
    # order follows the seed), so with another seed they are other patterns, compiled anew.
    env = child_env(AGENT_TUI_HOME=str(tmp_path), PYTHONHASHSEED="0")
    env.pop("ANTHROPIC_API_KEY", None)

    def start() -> dict[str, list[int]]:
        seen = run_fresh(textwrap.dedent(APP_START), env=env, cwd=tmp_path)
        assert seen["restored"]  # saved and taken out: later imports compile as usual
        return seen["stats"]  # type: ignore[no-any-return]

    first = start()
    assert first[dataclass_code_cache.FILE_NAME][1] > 100  # compiled, and saved:
    assert first[regex_code_cache.FILE_NAME][1] > 50
    assert first[expression_code_cache.FILE_NAME][1] > 50
    assert all((tmp_path / "cache" / name).is_file() for name in first)
    second = start()
    # what the first kept is taken: the UI thread may compile a pattern or two around the moment
    # a start saves (kept by one start, not made by the other), so nearly all and nearly none
    for name, (_, kept) in first.items():
        taken, new = second[name]
        assert taken >= kept - kept // 10 and new <= kept // 10, name
    assert second[dataclass_code_cache.FILE_NAME][1] == 0


@only_311
def test_a_headless_run_keeps_the_code_for_the_next_one(tmp_path: Path) -> None:
    """`agent-tui -p` installs the caches too and saves them when the run ends: the next start
    of either kind finds them, and the answer is the same with them as without."""
    # One hash seed, as above: the standard library builds two patterns from sets.
    home = str(tmp_path / "home")
    env = child_env(AGENT_TUI_HOME=home, AGENT_TUI_OFFLINE_DELAY="0", PYTHONHASHSEED="0")
    env.pop("ANTHROPIC_API_KEY", None)

    def ask() -> str:
        done = subprocess.run(
            [sys.executable, "-m", "agent_tui", "-p", "hi", "--offline"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    first = ask()
    folder = tmp_path / "home" / "cache"
    kept = [folder / cache.file_name for cache in code_caches.CACHES]
    written = [path.stat().st_mtime_ns for path in kept]
    assert ask() == first
    # nothing new compiled: not written again
    assert [path.stat().st_mtime_ns for path in kept] == written
