"""The built-in tools: a module each (or two close ones), found by listing this package.

A new tool is one module here: a `Tool` subclass that declares its `name`, `description`, its
schema (`input_model`), what its calls are about (`subject_fields`) and its place among the
others (`order`), and, when the session decides whether or how to make it, `for_session(offer)`.
Nothing else names it. `load` imports the package's modules when the session's registry is first
asked for its tools (`ToolRegistry.add_built_ins`; the boot's `warm_up` asks once the app takes
prompts), so pydantic and the tools' own imports stay off the way to a ready app.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import pkgutil

from agent_tui.tools.base import Offer, Tool

__all__ = ["Offer", "load", "tool_classes"]

log = logging.getLogger(__name__)


def tool_classes(package: str = __name__) -> list[type[Tool]]:
    """Every tool class defined in `package`'s modules, in their declared order."""
    found: list[type[Tool]] = []
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
        try:
            module = importlib.import_module(f"{package}.{info.name}")
        except Exception:  # a broken install: the other tools are still offered
            log.warning("the tool module %s.%s failed to load", package, info.name, exc_info=True)
            continue
        found += [
            cls
            for _, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, Tool) and cls.__module__ == module.__name__
            if not inspect.isabstract(cls)
        ]
    names = [cls.name for cls in found]
    if twice := sorted({name for name in names if names.count(name) > 1}):
        raise ValueError(f"{package}: more than one tool named {', '.join(twice)}")
    return sorted(found, key=lambda cls: (cls.order, cls.name))


def load(offer: Offer, package: str = __name__) -> list[Tool]:
    """The package's tools as this session offers them."""
    return [tool for cls in tool_classes(package) if (tool := cls.for_session(offer)) is not None]
