"""The guard on every patch of a third-party library's internals (`agent_tui.speedups`).

A patch is written for one release of its library (`version`) and names the functions it
replaces or relies on (`targets`, `module:qualname`) with a digest of their source as that
release has it. It applies only while every target's source still matches: after an upgrade that
touched one, it stands down (the library's own behaviour is kept) and says why in one log line
(logger `agent_tui.speedups`, which reaches the `--debug` log and nowhere else). A person can
turn patches off, to tell whether one is behind something they see: `AGENT_TUI_SPEEDUPS_OFF`
names them (comma-separated) or says `all`. Each patch's verdict is decided once a process and
kept with its reason (`verdicts`), for `/doctor` and the debug log.

On the first frame's path: it imports nothing of any patched library and hashes with `zlib`, not
`hashlib`.
"""

from __future__ import annotations

import importlib
import inspect
import linecache
import logging
import os
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("agent_tui.speedups")

#: names the patches a person turned off (comma-separated), or `all`
OFF_VARIABLE = "AGENT_TUI_SPEEDUPS_OFF"


@dataclass(frozen=True)
class Patch:
    """A patch to a library's internals, as the guard checks it."""

    name: str
    #: the library patched, as a person names it ("Textual", "jusText")
    library: str
    #: the library release the patch was written for (and its digests taken from)
    version: str
    #: what a person would feel without it, in a few words (its figures: BENCHMARKS.md)
    symptom: str
    #: the functions it replaces or relies on: `module:qualname` -> zlib.crc32 of their source
    targets: Mapping[str, int]


@dataclass(frozen=True)
class Verdict:
    """Whether a patch applies in this process, and why not when it doesn't."""

    applies: bool
    #: why it stands down ("" when it applies)
    why: str = ""


#: patch name -> its verdict, decided once a process (`fits`)
verdicts: dict[str, Verdict] = {}


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
    """`textual.strip:Strip.divide` -> the function; a property's getter, a class or static
    method's function. (Checked before the patch applies: after, it may be the patch's own.)"""
    module_name, _, qualname = target.partition(":")
    owner: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        owner = inspect.getattr_static(owner, part)
    if isinstance(owner, property):
        return owner.fget  # type: ignore[return-value]
    return owner.__func__ if isinstance(owner, classmethod | staticmethod) else owner


def changed_targets(targets: Mapping[str, int]) -> list[str]:
    """The targets whose source is not the one digested (gone or unreadable counts as changed)."""
    changed = []
    for target, expected in targets.items():
        try:
            found = digest(resolve(target))
        except Exception:  # gone, renamed, or no source to read: changed all the same
            found = None
        if found != expected:
            changed.append(target)
    return changed


def switched_off(name: str) -> bool:
    """Whether the person turned this patch off (`AGENT_TUI_SPEEDUPS_OFF`)."""
    named = {part.strip() for part in os.environ.get(OFF_VARIABLE, "").split(",")}
    return bool(named & {name, "all"})


def fits(patch: Patch) -> bool:
    """Whether `patch` applies: not turned off, and every target the source it was written for.
    Decided once a process; a patch that stands down says why in one log line."""
    verdict = verdicts.get(patch.name)
    if verdict is None:
        verdict = verdicts[patch.name] = _decide(patch)
        if verdict.applies:
            log.debug("%s patch %s applies (%s)", patch.library, patch.name, patch.symptom)
        else:  # a person's choice is said plainly; a library that changed, as a warning
            level = logging.INFO if switched_off(patch.name) else logging.WARNING
            log.log(level, "%s patch %s stands down: %s", patch.library, patch.name, verdict.why)
    return verdict.applies


def stand_down(patch: Patch, why: str) -> None:
    """A patch found, past its digests, that it can't apply (`why`): said as `fits` says it."""
    if verdicts.get(patch.name, Verdict(True)).applies:
        verdicts[patch.name] = Verdict(False, why)
        log.warning("%s patch %s stands down: %s", patch.library, patch.name, why)


def _decide(patch: Patch) -> Verdict:
    if switched_off(patch.name):
        return Verdict(False, f"turned off by {OFF_VARIABLE}")
    changed = changed_targets(patch.targets)
    if changed:
        since = f"{patch.library} {patch.version}"
        return Verdict(False, f"{', '.join(changed)} changed since {since} ({patch.symptom})")
    return Verdict(True)
