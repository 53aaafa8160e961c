"""No garbage collection inside a screen's paint: `Screen._on_timer_update` (Textual 8.2.8).

A young collection starts on whatever allocation finds it due, and a screen's frame (its layout when
one is due, the compositor's render of the widgets that changed, the write to the terminal)
allocates more than anything else the app does: the collection most often fell inside it. With a
long chat on screen the young generations hold tens of thousands of live objects (the compositor's
regions, rendered lines), so a gen-1 collection on top of a frame made one callback long enough to
feel as a stutter (benchmarks/bench_callbacks.py: streaming, typing and tool output; BENCHMARKS.md,
"Speed-ups"). Held here (`collect_after`, as a streaming step and a resize are), a collection that
fell due runs in a callback of its own right after the frame, as the allocation that found it due
would have run it. Nothing is collected later than one turn of the event loop.

A screen's update timer keeps the method it found when it was made, and the first frame's screen
is made before the patches are checked (the check is kept off the first frame): so the app puts
the wrapper in place first (`install`, from `AgentApp.__init__`), and it calls Textual's method
alone until the check passes (`apply`) — and for good if the patch stands down.

Upstream: none needed in Textual; a `gc.freeze`-style hook ("no collection during a refresh")
would let an app opt in without wrapping `Screen._on_timer_update`.
"""

from __future__ import annotations

from functools import wraps
from typing import Any

from textual.screen import Screen

from agent_tui.speedups import collect_after
from agent_tui.speedups.guard import Patch, fits

PATCH = Patch(
    name="screen_paint_collect_after",
    library="Textual",
    version="8.2.8",
    symptom="a young collection inside a frame's paint makes one callback of both",
    targets={"textual.screen:Screen._on_timer_update": 2741218610},
)

_original = Screen._on_timer_update
#: the guard found `_on_timer_update` as this module was written for (`apply`)
_fits: list[bool] = []


@wraps(_original)  # the guard digests what it wraps (`__wrapped__`): the check may come after
def _on_timer_update(self: Screen[Any]) -> None:
    if not _fits:
        _original(self)  # until `apply` (or after it stood down): as Textual's
        return
    with collect_after.collections_after():
        _original(self)


def install() -> None:
    """Put the wrapper in place, inert until `apply`: a screen's update timer keeps the method
    it found when it was made (the first frame's screen is made before the patches are checked,
    which is kept off the first frame), so the wrapper must be there first. Inert, it only calls
    Textual's own method; the guard decides whether it holds the collector."""
    if Screen._on_timer_update is _original:
        Screen._on_timer_update = _on_timer_update  # type: ignore[method-assign]


def apply() -> bool:
    if not fits(PATCH):
        return False
    install()
    if not _fits:
        _fits.append(True)
    return True


def applied() -> bool:
    return bool(_fits) and Screen._on_timer_update is _on_timer_update
