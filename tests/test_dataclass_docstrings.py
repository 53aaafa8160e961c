"""Every dataclass of ours that a start imports has its own docstring (start-up CPU, issue 34).

A dataclass without one gets a made-up `__doc__` (`Name(field: type, ...)`), and `dataclasses`
computes an `inspect.signature` of the class to write it, at import: about 3 ms of every start
across the classes made on the way to a ready prompt. A written docstring costs nothing."""

from __future__ import annotations

import dataclasses
import importlib
from types import ModuleType

from agent_tui.ui.startup.preload import BOOT_MODULES, READ_AHEAD_MODULES

EXTRA_MODULES = ("agent_tui.ui.app", "agent_tui.runtime", "agent_tui.speedups.guard")


def our_dataclasses(module: ModuleType) -> set[type]:
    """The dataclasses defined in our modules among `module`'s globals and their nested classes."""
    found: set[type] = set()
    for value in vars(module).values():
        if not isinstance(value, type):
            continue
        for cls in (value, *(v for v in vars(value).values() if isinstance(v, type))):
            if cls.__module__.startswith("agent_tui") and dataclasses.is_dataclass(cls):
                found.add(cls)
    return found


def test_our_dataclasses_have_their_own_docstrings() -> None:
    classes: set[type] = set()
    for name in (*BOOT_MODULES, *READ_AHEAD_MODULES, *EXTRA_MODULES):
        classes |= our_dataclasses(importlib.import_module(name))
    assert classes
    missing = sorted(
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in classes
        if not (doc := cls.__dict__.get("__doc__")) or doc.startswith(cls.__name__ + "(")
    )
    assert missing == [], "dataclasses without a docstring of their own:\n" + "\n".join(missing)
