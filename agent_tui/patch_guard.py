"""The guard on patches to a third-party library's internals (Textual's in `ui/patches/`,
jusText's in `web/justext_speedups.py`).

A patch is written for one release of its library (`version`) and names the functions it
replaces or relies on (`targets`, `module:qualname`) with a digest of their source as that release
has it. It applies only while every target's source still matches: after an upgrade that touched
one, it stands down (the library's own behaviour is kept) and says so in one log line. Each
library's patches keep their own verdicts (decided once a process).

On the first frame's path (Textual's stylesheet memo asks it): it imports nothing of any patched
library and hashes with `zlib`, not `hashlib`.
"""

from __future__ import annotations

import importlib
import inspect
import linecache
import logging
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol


class Guarded(Protocol):
    """What the guard reads of a patch."""

    @property
    def name(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def fixes(self) -> str: ...
    @property
    def targets(self) -> Mapping[str, int]: ...


@dataclass(frozen=True)
class Patch:
    """A patch to a library's internals, as the guard checks it (`Guarded`)."""

    name: str
    #: the library release the patch was written for (and its digests taken from)
    version: str
    #: what it fixes, in a few words
    fixes: str
    #: the functions it replaces or relies on: `module:qualname` -> zlib.crc32 of their source
    targets: dict[str, int]


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


def fits(patch: Guarded, library: str, verdicts: dict[str, bool], log: logging.Logger) -> bool:
    """Whether every target of `patch` (to `library`) is the source it was written for, decided
    once per `verdicts`; if not, the patch stands down, said in one log line on `log`."""
    verdict = verdicts.get(patch.name)
    if verdict is None:
        changed = changed_targets(patch.targets)
        verdict = verdicts[patch.name] = not changed
        if changed:
            log.warning(
                "%s patch %s stands down: %s changed since %s %s (%s)",
                library,
                patch.name,
                ", ".join(changed),
                library,
                patch.version,
                patch.fixes,
            )
    return verdict


def stood_down(verdicts: Mapping[str, bool]) -> list[str]:
    """The patches checked so far that found their library changed."""
    return [name for name, fitted in verdicts.items() if not fitted]
