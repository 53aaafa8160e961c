"""Parsed stylesheets kept on disk, so a start doesn't parse CSS it has parsed before.

Textual parses every stylesheet at each start: our `.tcss` files and the `DEFAULT_CSS` of each
widget class on screen, ~15 ms of a ~300 ms first frame and its largest single cost (see
BENCHMARKS.md, start-up). The rules parsed from a source depend only on the source's text, where
it was read from, and the theme's variables, and Textual already memoises them per process in
`Stylesheet._parse_cache`. This module fills that memo from the last run's and saves it after the
first frame, keyed by what the rules depend on: Textual's own files (an upgrade changes them), and
the variables. A cache that is missing, stale, unreadable or from another Textual is ignored and
rewritten; the memo is Textual's private one, reached through `patches/css_parse_memo.py`, and
when that patch stands down (Textual changed it) so does this module.

The file is a pickle in the user's cache directory (`paths.cache_dir`), which only the user can
write to, as with the rest of their configuration.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from pathlib import Path
from typing import Any

from textual.css.stylesheet import Stylesheet

from agent_tui import paths
from agent_tui.ui.patches.css_parse_memo import memo as _memo

#: bumped when what the file holds changes shape
FORMAT = 2
FILE_NAME = "parsed-css.pickle"


def _textual_fingerprint() -> tuple[tuple[str, int, int], ...]:
    """Textual's parser and rule classes as installed: a different release has other files.
    (Cheaper than asking `importlib.metadata` for the version, which scans the path.)"""
    import textual.css.model
    import textual.css.parse
    import textual.css.styles

    found = []
    for module in (textual.css.model, textual.css.parse, textual.css.styles):
        path = str(module.__file__)
        stat = os.stat(path)
        found.append((path, stat.st_mtime_ns, stat.st_size))
    return tuple(found)


def _variables_key(stylesheet: Stylesheet) -> str:
    """The theme's variables as text, kept whole and compared exactly (a few KB; a digest would
    put `hashlib`, and OpenSSL with it, on the first frame's path)."""
    variables = getattr(stylesheet, "_variables", {})
    return repr(sorted(variables.items()))


def _path() -> Path:
    return paths.cache_dir() / FILE_NAME


def load(stylesheet: Stylesheet) -> frozenset[tuple[Any, ...]]:
    """Put last run's parsed rules in the stylesheet's memo; the sources put there."""
    memo = _memo(stylesheet)
    if memo is None:
        return frozenset()
    try:
        data = pickle.loads(_path().read_bytes())
        if (
            data["format"] != FORMAT
            or data["textual"] != _textual_fingerprint()
            or data["variables"] != _variables_key(stylesheet)
        ):
            return frozenset()
        rules: dict[tuple[Any, ...], Any] = data["rules"]
    except Exception:  # missing, truncated, or written by other code: parse as usual
        return frozenset()
    if hasattr(memo, "grow"):
        memo.grow(len(rules) + 64)  # room for these and what this run parses besides
    for key, parsed in rules.items():
        if key not in memo:
            memo.set(key, parsed)
    return frozenset(rules)


def snapshot(stylesheet: Stylesheet, loaded: frozenset[tuple[Any, ...]]) -> dict[str, Any] | None:
    """What `save` writes: taken on the UI thread (the memo is the UI's), cheap (a dict of
    references). None when every source parsed so far came from the file (`loaded`)."""
    memo = _memo(stylesheet)
    if memo is None:
        return None
    rules = {}
    for key in list(memo.keys()):
        parsed = memo.get(key)
        # Sources with errors are parsed again (and reported) at every start, as Textual does.
        if parsed is not None and not any(rule.errors for rule in parsed):
            rules[key] = parsed
    if not rules or set(rules) <= loaded:
        return None
    return {
        "format": FORMAT,
        "textual": _textual_fingerprint(),
        "variables": _variables_key(stylesheet),
        "rules": rules,
    }


def save(data: dict[str, Any]) -> None:
    """Write a `snapshot` (from any thread). A failed write costs only the next start's parse."""
    try:
        # Pickled first: a Textual release whose parsed rules don't pickle writes nothing.
        blob = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # it runs as the app starts: never worth a crash
        return
    # Not `tools.text_files.atomic_write`: this runs before a first start's first frame, and that
    # module brings `secrets` (hashlib) and an fsync; a lost cache costs only a parse.
    path = _path()
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(blob)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):  # a half-written file, if one was made
            temporary.unlink(missing_ok=True)
