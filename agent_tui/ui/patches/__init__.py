"""Textual patches: what the app changes in Textual's private code, one module per patch.

Each module is written for one Textual release (`Patch.version`) and names the functions it
replaces or relies on (`Patch.targets`) with a digest of their source as that release has it. A
patch applies only while every target's source still matches: after an upgrade that touched one,
the patch stands down (Textual's own behaviour is kept), says so in one log line (logger
`agent_tui.ui.patches`), and `stood_down()` lists it. Each module's docstring ends with the
one-line upstream fix it stands for, ready to offer. `tests/ui/test_patches.py` checks that all
apply on the pinned Textual; CI's informational step runs the tests against the newest one.

The guard itself (digests, the one-line stand-down) is `agent_tui.patch_guard`, shared with the
jusText patch. This module is on the first frame's path (the stylesheet memo is read before
anything is styled): it imports no Textual, and the guard hashes with `zlib`, not `hashlib`.
"""

from __future__ import annotations

import importlib
import logging

from agent_tui import patch_guard
from agent_tui.patch_guard import Patch, digest, resolve, source_of

__all__ = ["MODULES", "Patch", "apply_all", "digest", "fits", "resolve", "source_of", "stood_down"]

log = logging.getLogger(__name__)

#: the patch modules, in the order they are applied
MODULES = (
    "dom_subclass_memo",
    "strip_self_cache",
    "strip_lazy_caches",
    "compositor_arrange",
    "arrangement_total_region",
    "render_caches",
    "geometry_caches",
    "css_parse_memo",
    "screen_resize_once",
    "dimmed_background",
    "screen_paint_collect_after",
)


_verdicts: dict[str, bool] = {}


def fits(patch: Patch) -> bool:
    """Whether every target's source is the one the patch was written for (once a process);
    if not, the patch stands down, said in one log line (logger `agent_tui.ui.patches`)."""
    return patch_guard.fits(patch, "Textual", _verdicts, log)


def stood_down() -> list[str]:
    """The patches checked so far that found Textual changed."""
    return patch_guard.stood_down(_verdicts)


def apply_all() -> dict[str, bool]:
    """Apply every patch that fits this Textual (on the UI thread, after the first frame);
    name -> applied."""
    applied = {}
    for name in MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        applied[name] = module.apply()
    return applied
