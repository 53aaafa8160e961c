"""The regular expression code cache (`agent_tui.regex_code_cache`): a start that takes its
patterns' code from the kept file gets the very patterns a start that compiles them gets (Python's
`Pattern.__eq__` compares the engine's code), and a missing, broken, damaged or foreign cache, an
unwritable folder or another Python only costs the compiling.

Each case runs in a fresh interpreter, as a start does (`re` keeps its own cache per process)."""

from __future__ import annotations

import marshal
import re
import sys
from pathlib import Path

import code_cache_checks as checks
import pytest
from code_cache_checks import child_env, only_311, run_fresh, stand_down_lines

from agent_tui import patch_guard, regex_code_cache

# What patterns hold: named and numbered groups, inline and given flags, bytes, look-around,
# conditionals, possessive-free repeats, character classes, Unicode, verbose, a long alternation
# (as Textual's tokenizer has), and one that `re` warns about.
PATTERNS = [
    (r"(?P<key>[a-z_]+)\s*=\s*(?P<value>.*)", 0),
    (r"(\d+)-(\d+)", 0),
    (r"(?i)hello\b", 0),
    (r"HELLO", re.IGNORECASE | re.MULTILINE),
    (rb"\x00[\x01-\x7f]+", 0),
    (r"(?<=@)\w+(?!\.)", 0),
    (r"(<)?(\w+@\w+(?:\.\w+)+)(?(1)>|$)", 0),
    (r"[^\W\d_]+|[\u0400-\u04ff]+", 0),
    (
        r"""
        (?P<int>\d+)      # digits
        (?:\.(?P<frac>\d+))?
    """,
        re.VERBOSE,
    ),
    ("|".join(f"word{i}" for i in range(300)), 0),
    (r"a{2,5}?b*+c", 0),
    (r"[[a]", 0),
]
SAMPLES = [
    "key = value",
    "12-34",
    "Hello there",
    "hello\nHELLO",
    "x@example.com",
    "<a@b.c>",
    "привет",
    "3.14",
    "word199",
    "aab",
    "[a",
]

# Compiles PATTERNS through `re._compiler.compile` (below `re`'s own per-process cache), as a
# module's `re.compile` does at import, and reports what the patterns are and do.
REPORT = """
import json, re, sys, warnings
from pathlib import Path
from agent_tui import regex_code_cache as cache
warnings.simplefilter("ignore")
mode, folder = sys.argv[1], Path(sys.argv[2])
patterns, samples = eval(sys.argv[3]), eval(sys.argv[4])
if mode != "stock":
    cache.CACHE.install(folder)
made = [re._compiler.compile(p, f) for p, f in patterns]
original = cache.CACHE.original
same = [m == original(p, f) for m, (p, f) in zip(made, patterns)] if mode != "stock" else []
found = []
for m in made:
    for s in samples:
        s = s.encode() if isinstance(m.pattern, bytes) else s
        hit = m.search(s)
        found.append(repr(hit and (hit.span(), hit.groups(), hit.groupdict())))
hits, compiled = cache.CACHE.stats()
cache.CACHE.save_and_stop()
print(json.dumps({
    "what": [repr((m.pattern, m.flags, m.groups, dict(m.groupindex))) for m in made],
    "found": found, "same": same, "hits": hits, "compiled": compiled,
    "restored": re._compiler.compile.__module__,
}))
"""


def report(mode: str, folder: Path) -> dict[str, object]:
    return run_fresh(REPORT, mode, folder, repr(PATTERNS), repr(SAMPLES))  # type: ignore[no-any-return]


def test_the_patch_fits_this_python() -> None:
    """CI's Python is the one the patch was written for: it applies there (elsewhere it stands
    down, see below), so the start-up figures in BENCHMARKS.md are what users of it get."""
    if sys.version_info[:2] != (3, 11):
        pytest.skip("written for CPython 3.11's re")
    own = regex_code_cache.CACHE.original or re._compiler.compile  # type: ignore[attr-defined]
    assert patch_guard.digest(own) == regex_code_cache.PATCH.targets["re._compiler:compile"]


@only_311
def test_kept_code_makes_the_same_patterns_as_compiling(tmp_path: Path) -> None:
    stock = report("stock", tmp_path)
    cold = report("cold", tmp_path)  # compiles, and keeps the code for the next start
    assert (tmp_path / regex_code_cache.FILE_NAME).is_file()
    warm = report("warm", tmp_path)  # takes every pattern's code from the kept file
    assert stock["what"] == cold["what"] == warm["what"]
    assert stock["found"] == cold["found"] == warm["found"]
    # equal patterns: the same flags, pattern and engine code as `re`'s own compile makes
    assert cold["same"] == warm["same"] == [True] * len(PATTERNS)
    assert cold["compiled"] == len(PATTERNS) and cold["hits"] == 0
    assert warm["compiled"] == 0 and warm["hits"] == len(PATTERNS)
    # once saved, `re` has its own function back: later patterns compile as usual
    assert cold["restored"] == warm["restored"] == "re._compiler"


@only_311
@checks.broken_files
def test_a_broken_cache_only_costs_the_compiling(tmp_path: Path, content: bytes) -> None:
    (tmp_path / regex_code_cache.FILE_NAME).write_bytes(content)
    stock = report("stock", tmp_path)
    cold = report("cold", tmp_path)
    assert cold["what"] == stock["what"] and cold["found"] == stock["found"]
    assert cold["hits"] == 0
    warm = report("warm", tmp_path)  # rewritten whole by the start that found it broken
    assert warm["found"] == stock["found"] and warm["compiled"] == 0


@only_311
def test_damaged_code_is_refused_and_compiled_anew(tmp_path: Path) -> None:
    """An entry that unmarshals but isn't the code `compile` makes (a flipped opcode, a cut
    program): the engine refuses it, and the pattern is compiled as usual, right."""
    stock = report("stock", tmp_path)
    report("cold", tmp_path)
    path = tmp_path / regex_code_cache.FILE_NAME
    stamp, written, kept = marshal.loads(path.read_bytes())
    damaged = {}
    for key, (last, blob) in kept.items():
        flags, code, groups, groupindex, indexgroup = marshal.loads(blob)
        code = [*code[: len(code) // 2], 0xFFFF]
        damaged[key] = (last, marshal.dumps((flags, code, groups, groupindex, indexgroup)))
    path.write_bytes(marshal.dumps((stamp, written, damaged)))
    again = report("warm", tmp_path)
    assert again["found"] == stock["found"] and again["same"] == [True] * len(PATTERNS)
    assert again["compiled"] == len(PATTERNS)


@only_311
def test_another_interpreters_cache_is_ignored(tmp_path: Path) -> None:
    report("cold", tmp_path)
    # the same patterns, "from" another Python: its engine's code is not this one's
    stamp, _ = checks.as_if_another_python(regex_code_cache, tmp_path)
    again = report("warm", tmp_path)
    assert again["hits"] == 0 and again["compiled"] == len(PATTERNS)
    assert checks.stamp_of(regex_code_cache, tmp_path) == stamp  # and rewritten for this one


@only_311
def test_an_unwritable_cache_folder_is_not_an_error(tmp_path: Path) -> None:
    blocked = checks.in_the_way(tmp_path)
    stock = report("stock", tmp_path)
    cold = report("cold", blocked)  # the folder can't be made: the start goes on, compiling
    assert cold["found"] == stock["found"] and cold["restored"] == "re._compiler"
    assert blocked.read_text() == checks.IN_THE_WAY


def test_stands_down_on_a_python_whose_compile_differs(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    assert stand_down_lines(regex_code_cache, monkeypatch, caplog, tmp_path) == [
        "Python patch regex_code_cache stands down: re._compiler:compile changed since Python "
        "3.11 (each start parses and compiles every regular expression its modules make again)"
    ]


@only_311
def test_debug_and_built_patterns_compile_as_usual(tmp_path: Path) -> None:
    """`re.DEBUG` prints the program as it compiles, and `re.Scanner` hands `compile` a parsed
    pattern, not text: neither is kept, both work."""
    script = """
import re, sys, io, contextlib, json
from pathlib import Path
from agent_tui import regex_code_cache as cache
cache.CACHE.install(Path(sys.argv[1]))
out = io.StringIO()
with contextlib.redirect_stdout(out):
    re._compiler.compile("ab+", re.DEBUG)
scanner = re.Scanner([(r"\\d+", lambda s, t: int(t)), (r"\\s+", None)])
print(json.dumps([bool(out.getvalue()), scanner.scan("1 22 333")[0], cache.CACHE.stats()]))
"""
    assert run_fresh(script, tmp_path) == [True, [1, 22, 333], [0, 0]]


def test_a_key_no_start_uses_again_is_left_out_after_some_writes(tmp_path: Path) -> None:
    """What a pattern built anew at each start (from a set: its order follows the hash seed)
    leaves behind stays bounded: an entry unused by the last `KEEP_WRITES` writing starts goes,
    one used goes on being kept."""
    from agent_tui.kept_code import KEEP_WRITES, KeptCode

    path = tmp_path / "kept.marshal"
    for start in range(3 * KEEP_WRITES):
        cache = KeptCode.load(path, "stamp")
        assert cache.written == start
        if start:
            assert cache.get("always") == 1  # used by every start: never left out
        else:
            cache.put("always", 1)
        cache.put(f"only at start {start}", start)
        cache.save()
    kept = KeptCode.load(path, "stamp").kept
    assert set(kept) == {"always"} | {
        f"only at start {start}" for start in range(2 * KEEP_WRITES, 3 * KEEP_WRITES)
    }
    # a start that compiled nothing new writes nothing
    before = path.read_bytes()
    cache = KeptCode.load(path, "stamp")
    cache.get("always")
    cache.save()
    assert path.read_bytes() == before


@only_311
def test_a_pattern_that_holds_a_secret_is_not_written(tmp_path: Path) -> None:
    """Nothing the app writes holds the API key: a pattern built from it (or from a token's
    value, or anything like an Anthropic key) is compiled as usual and left out of the file."""
    key = "sk-ant-api03-" + "x" * 40
    token = "tok-" + "y" * 20
    script = """
import re, sys
from pathlib import Path
from agent_tui import regex_code_cache as cache
cache.CACHE.install(Path(sys.argv[1]))
for pattern in (re.escape(sys.argv[2]), "(?i)" + re.escape(sys.argv[3]) + "$", "plain[0-9]+"):
    re._compiler.compile(pattern, 0)
cache.CACHE.save_and_stop()
print(cache.CACHE.stats()[1])
"""
    env = child_env(ANTHROPIC_API_KEY=key, SOME_TOKEN=token)
    assert run_fresh(script, tmp_path, key, token, env=env) == 3
    written = (tmp_path / regex_code_cache.FILE_NAME).read_bytes()
    assert b"plain[0-9]+" in written
    for secret in (key, re.escape(key), token, "sk-ant-"):
        assert secret.encode() not in written
    _, _, kept = marshal.loads(written)
    assert [pattern for pattern, _ in kept] == ["plain[0-9]+"]
