"""Every use the app makes of a third-party library's internals, in one place: the patches to
Textual's and jusText's private code, and the few Textual privates the app reads.

Each is here for a symptom a person would feel without it — a stall, memory that grows over a
long session, a visible glitch — named in its `Patch.symptom`, with what it was measured to buy
in BENCHMARKS.md ("Speed-ups: what each one is for"); none is here to save start-up time. Each
is written for one release of its library, with a digest of every function it replaces or relies
on (`guard`): after an upgrade that touched one, it stands down, the library's own behaviour is
kept, and the debug log (`agent-tui --debug`) and `/doctor` say which and why.
`AGENT_TUI_SPEEDUPS_OFF=name,…` (or `all`) turns them off. `tests/test_speedups.py` checks that
all apply on the pinned releases and that they touch at most `BUDGET` private functions.

Importing this package imports none of the patched libraries (it is on the first frame's path);
`collect_after` is the collector's hold the paint and resize patches share with the chat.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from agent_tui.speedups import guard
from agent_tui.speedups.guard import Patch, Verdict, fits

__all__ = ["BUDGET", "TEXTUAL", "apply_textual", "modules", "patches", "status"]

#: Textual's, in the order they are applied (on the UI thread, after the first frame)
TEXTUAL = (
    "strip_self_cache",
    "strip_lazy_caches",
    "compositor_arrange",
    "arrangement_total_region",
    "render_caches",
    "geometry_caches",
    "screen_resize_once",
    "screen_paint_collect_after",
    "textual_privates",
)

#: private third-party functions replaced or relied on, all patches together, at most
BUDGET = 20


def modules() -> list[ModuleType]:
    """Every patch module (importing each imports its library)."""
    return [importlib.import_module(f"{__name__}.{name}") for name in TEXTUAL]


def patches() -> list[Patch]:
    return [module.PATCH for module in modules()]


def apply_textual() -> dict[str, bool]:
    """Apply every Textual patch that fits this Textual; name -> applied."""
    return {name: importlib.import_module(f"{__name__}.{name}").apply() for name in TEXTUAL}


def status() -> list[tuple[Patch, Verdict]]:
    """Each patch and its verdict (decided now for one not checked yet, as its first use would)."""
    found = []
    for patch in patches():
        fits(patch)
        found.append((patch, guard.verdicts[patch.name]))
    return found
