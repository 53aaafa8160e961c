"""Each widget class set up from what its bases already hold: `DOMNode.__init_subclass__`
(Textual 8.2.8).

Textual sets up every DOMNode subclass as it is made: its reactives, gathered by scanning the
`__dict__` of every class in its MRO, and its compute methods, found in `dir(cls)` (every name of
the class and its bases, sorted). Widget's namespace alone has hundreds of names, so each class
took ~0.13 ms, and a start makes ~70 of them (Textual's and ours): 9 ms of CPU on the way to a
ready prompt, and again on the way to a resumed session's history (BENCHMARKS.md, issue 34).

Here a class's own reactives and compute names are read once from its `__dict__` (when it is made,
or first met as a base), and a subclass gathers its bases' in the same order: the same
`_reactives` (the same names and objects, in the same order) and the same `_computes`, in 2 ms
instead of 9. What was read of a class is read again if its namespace has grown or shrunk since
(a name added after it was made); the rest of the method is Textual's, line for line. It must
apply before Textual's own widget classes are made, so the entry point applies it before the UI
is imported (`apply`, as `cli.main` does; `bench_startup.py` too); applied later (the app's
`patches.apply_all`), it speeds the classes made from then on.

Upstream: in `DOMNode.__init_subclass__`, gather `_reactives` and `_computes` from each base's
own (memoised) reactives and compute names rather than scanning every base's `__dict__` and
`dir(cls)` for every subclass.
"""

from __future__ import annotations

import weakref
from typing import Any

from textual.dom import DOMNode
from textual.reactive import Reactive

from agent_tui.ui.patches import Patch, fits

PATCH = Patch(
    name="dom_subclass_memo",
    version="8.2.8",
    fixes="every widget class made scans the namespace of each of its bases and dir() of itself",
    targets={"textual.dom:DOMNode.__init_subclass__": 1264595819},
)

_COMPUTE = ("_compute_", "compute_")

#: class -> (its namespace's size when read, its own reactives, its own compute method names)
_own: weakref.WeakKeyDictionary[type, tuple[int, list[tuple[str, Reactive[Any]]], list[str]]]
_own = weakref.WeakKeyDictionary()


def _own_of(cls: type) -> tuple[list[tuple[str, Reactive[Any]]], list[str]]:
    """What `cls` itself holds of reactives and compute methods (read again if its namespace
    changed size since it was read)."""
    namespace = cls.__dict__
    kept = _own.get(cls)
    if kept is None or kept[0] != len(namespace):
        reactives = [
            (name, value) for name, value in namespace.items() if isinstance(value, Reactive)
        ]
        computes = [name for name in namespace if name.startswith(_COMPUTE)]
        kept = (len(namespace), reactives, computes)
        _own[cls] = kept
    return kept[1], kept[2]


def _init_subclass(
    cls: Any,
    inherit_css: bool = True,
    inherit_bindings: bool = True,
    inherit_component_classes: bool = True,
) -> None:
    """`DOMNode.__init_subclass__` of Textual 8.2.8, but for where the reactives and computes
    come from (`_own_of` each class of the MRO, in the order Textual scans it)."""
    super(DOMNode, cls).__init_subclass__()

    reactives = cls._reactives = {}
    computes: set[str] = set()
    for base in reversed(cls.__mro__):
        own_reactives, own_computes = _own_of(base)
        reactives.update(own_reactives)
        computes.update(own_computes)

    cls._inherit_css = inherit_css
    cls._inherit_bindings = inherit_bindings
    cls._inherit_component_classes = inherit_component_classes
    css_type_names: set[str] = set()
    bases = cls._css_bases(cls)
    cls._css_type_name = bases[0].__name__
    for base in bases:
        css_type_names.add(base.__name__)
    cls._merged_bindings = cls._merge_bindings()
    cls._css_type_names = frozenset(css_type_names)
    cls._computes = frozenset([name.lstrip("_")[8:] for name in computes])


_patched = classmethod(_init_subclass)


def apply() -> bool:
    if DOMNode.__dict__["__init_subclass__"] is _patched:
        return True
    if not fits(PATCH):
        return False
    DOMNode.__init_subclass__ = _patched  # type: ignore[assignment, method-assign]
    return True
