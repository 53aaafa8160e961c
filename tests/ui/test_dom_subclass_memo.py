"""`patches/dom_subclass_memo`: with it applied before Textual is imported, as the entry point
does, every widget class gets the very `_reactives` (the same names and objects, in the same
order) and `_computes` Textual's own scan gives it; a class whose namespace grew after it was made
is read again."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
from agent_tui.ui.patches import dom_subclass_memo
assert dom_subclass_memo.apply()
import importlib, pkgutil
import textual.widgets
import agent_tui.ui
for package in (textual.widgets, agent_tui.ui):
    for found in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(found.name)
from textual.dom import DOMNode
from textual.reactive import Reactive, reactive

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

def textuals_own(cls):
    reactives = {}
    for base in reversed(cls.__mro__):
        reactives.update(
            {name: r for name, r in base.__dict__.items() if isinstance(r, Reactive)}
        )
    computes = frozenset(
        [name.lstrip("_")[8:] for name in dir(cls) if name.startswith(("_compute_", "compute_"))]
    )
    return list(reactives.items()), computes

checked = 0
for cls in set(subclasses(DOMNode)):
    assert (list(cls._reactives.items()), cls._computes) == textuals_own(cls), cls
    checked += 1

from textual.widget import Widget
class Base(Widget):
    size_ = reactive(1)
    def compute_double(self): return 2
Base.extra = reactive("late")  # a name added after the class was made
class Child(Base):
    other = reactive(0)
assert (list(Child._reactives.items()), Child._computes) == textuals_own(Child)
assert "extra" in Child._reactives and Child._computes == {"double"}
print(checked)
"""


def test_every_class_is_set_up_as_textual_would() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120, check=True
    )
    assert int(done.stdout) > 100  # Textual's widgets and ours
