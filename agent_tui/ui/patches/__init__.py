"""Textual patches: what the app changes in Textual's private code, one module per patch.

Each module is written for one Textual release (`Patch.textual`) and names the functions it
replaces or relies on (`Patch.targets`) with a digest of their source as that release has it. A
patch applies only while every target's source still matches: after an upgrade that touched one,
the patch stands down (Textual's own behaviour is kept), says so in one log line (logger
`agent_tui.ui.patches`), and `stood_down()` lists it. Each module's docstring ends with the
one-line upstream fix it stands for, ready to offer. `tests/ui/test_patches.py` checks that all
apply on the pinned Textual; CI's informational step runs the tests against the newest one.

This module is on the first frame's path (the stylesheet memo is read before anything is styled):
it imports no Textual and hashes with `zlib`, not `hashlib`.
"""

from __future__ import annotations

import importlib
import inspect
import linecache
import logging
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

#: the patch modules, in the order they are applied
MODULES = (
    "strip_self_cache",
    "strip_lazy_caches",
    "compositor_arrange",
    "render_caches",
    "geometry_caches",
    "css_parse_memo",
    "screen_resize_once",
)


@dataclass(frozen=True)
class Patch:
    name: str
    #: the Textual release the patch was written for (and its digests taken from)
    textual: str
    #: what it fixes, in a few words
    fixes: str
    #: the functions it replaces or relies on: `module:qualname` -> zlib.crc32 of their source
    targets: dict[str, int]


_verdicts: dict[str, bool] = {}


def source_of(func: Callable[..., Any]) -> str:
    """A function's source lines (without decorators), from the file its code came from. Cheaper
    than `inspect.getsource`, which tokenizes to find the block's end: the code object knows it."""
    code = inspect.unwrap(func).__code__
    lines = linecache.getlines(code.co_filename)
    last = max((line for _, _, line in code.co_lines() if line is not None), default=0)
    return "".join(lines[code.co_firstlineno - 1 : last])


def digest(func: Callable[..., Any]) -> int:
    return zlib.crc32(source_of(func).encode("utf-8"))


def resolve(target: str) -> Callable[..., Any]:
    """`textual.strip:Strip.divide` -> the function. (Checked before the patch applies: after,
    it is the patch's own.)"""
    module_name, _, qualname = target.partition(":")
    owner: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        owner = inspect.getattr_static(owner, part)
    return owner.__func__ if isinstance(owner, classmethod | staticmethod) else owner


def fits(patch: Patch) -> bool:
    """Whether every target's source is the one the patch was written for (once a process);
    if not, the patch stands down, said in one log line."""
    verdict = _verdicts.get(patch.name)
    if verdict is None:
        changed = []
        for target, expected in patch.targets.items():
            try:
                found = digest(resolve(target))
            except Exception:  # gone, renamed, or no source to read: changed all the same
                found = None
            if found != expected:
                changed.append(target)
        verdict = _verdicts[patch.name] = not changed
        if changed:
            log.warning(
                "Textual patch %s stands down: %s changed since Textual %s (%s)",
                patch.name,
                ", ".join(changed),
                patch.textual,
                patch.fixes,
            )
    return verdict


def stood_down() -> list[str]:
    """The patches checked so far that found Textual changed."""
    return [name for name, fitted in _verdicts.items() if not fitted]


def apply_all() -> dict[str, bool]:
    """Apply every patch that fits this Textual (on the UI thread, after the first frame);
    name -> applied."""
    applied = {}
    for name in MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        applied[name] = module.apply()
    return applied
