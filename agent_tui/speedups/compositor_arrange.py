"""A reflow that leaves no cycle: `Compositor._arrange_root` (Textual 8.2.8).

Textual's `Compositor._arrange_root` places widgets with a nested function that calls itself, so
every reflow leaves a cycle (the function, its closure) holding that reflow's whole map: ~3,000
objects a turn that only a collection frees, in pauses while an answer streams. The
same function, compiled from Textual's own source with one line added (`del add_widget` before
it returns, which empties the closure's cell), leaves none.

Upstream: add `del add_widget` before `return map, widgets` in `Compositor._arrange_root`.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable
from typing import Any

from textual._compositor import Compositor

from agent_tui.speedups.guard import Patch, fits

PATCH = Patch(
    name="compositor_arrange",
    library="Textual",
    version="8.2.8",
    symptom="every reflow leaves its whole map to the garbage collector",
    targets={"textual._compositor:Compositor._arrange_root": 586304078},
)

_arrange = Compositor._arrange_root
_applied: list[Callable[..., Any]] = []


def uncycled() -> Callable[..., Any] | None:
    """Textual's `_arrange_root` compiled with `del add_widget` added; None when its source is
    not there or not the one this was written for."""
    from textual import _compositor

    try:
        lines, first = inspect.getsourcelines(_arrange)
    except (OSError, TypeError):
        return None
    source = textwrap.dedent("".join(lines))
    end = "    return map, widgets\n"
    if source.count(end) != 1 or source.count("def add_widget(") != 1:
        return None
    source = source.replace(end, "    del add_widget\n" + end)
    tree = ast.parse(source)
    ast.increment_lineno(tree, first - 1)  # tracebacks point at Textual's own lines
    namespace: dict[str, Any] = {}
    exec(compile(tree, inspect.getfile(_arrange), "exec"), vars(_compositor), namespace)
    arrange: Callable[..., Any] = namespace["_arrange_root"]
    arrange.__qualname__ = _arrange.__qualname__
    return arrange


def apply() -> bool:
    if _applied:
        return True
    if not fits(PATCH):
        return False
    arrange = uncycled()
    if arrange is None:
        return False
    _applied.append(arrange)
    Compositor._arrange_root = arrange  # type: ignore[method-assign]
    return True


def applied() -> bool:
    return bool(_applied) and Compositor._arrange_root is _applied[0]
