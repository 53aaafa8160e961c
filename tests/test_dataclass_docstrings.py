"""Every dataclass of ours that a start imports has its own docstring (start-up CPU, issue 34).

A dataclass without one gets a made-up `__doc__` (`Name(field: type, ...)`), and `dataclasses`
computes an `inspect.signature` of the class to write it, at import: about 3 ms of every start
across the classes made on the way to a ready prompt. A written docstring costs nothing.

What a start imports is seen, not listed: the TUI as a person starts it, in a fresh interpreter,
until its agent is ready (`BootFlow.ready`; the warm-up after it is not on that way), and what a
resumed session's boot reads it with (`preload.READ_AHEAD_MODULES`)."""

from __future__ import annotations

import dataclasses
import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from fresh_interpreter import UNTIL_BOOTED, child_env

from agent_tui.ui.startup.preload import READ_AHEAD_MODULES

STARTED = (
    UNTIL_BOOTED
    + r"""
import json
ready = BootFlow.ready
loaded = []

def on_ready(self, *args):
    loaded.extend(sorted(m for m in sys.modules if m.startswith("agent_tui")))
    ready(self, *args)

BootFlow.ready = on_ready
from agent_tui.cli import main
assert main(["--offline"]) == 0
print(json.dumps(loaded))
"""
)


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


def started_modules(home: Path) -> list[str]:
    """Our modules loaded once a start's agent is ready (`agent-tui --offline`, headless)."""
    done = subprocess.run(
        [sys.executable, "-c", STARTED],
        env=child_env(AGENT_TUI_HOME=str(home)),
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    names: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return names


def test_our_dataclasses_have_their_own_docstrings(tmp_path: Path) -> None:
    modules = started_modules(tmp_path)
    assert "agent_tui.agent.loop" in modules  # the boot's modules are among them
    classes: set[type] = set()
    for name in (*modules, *READ_AHEAD_MODULES):
        classes |= our_dataclasses(importlib.import_module(name))
    assert len(classes) > 40
    missing = sorted(
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in classes
        if not (doc := cls.__dict__.get("__doc__")) or doc.startswith(cls.__name__ + "(")
    )
    assert missing == [], "dataclasses without a docstring of their own:\n" + "\n".join(missing)
