"""The Textual privates the app reads outside a patch, behind the guard (Textual 8.2.8).

- The chat's parked answers (`ui/chat/parking.py`) sum their segments' heights again
  only when something under them changed. What says "changed" is what keys Textual's own
  box-model cache (`Widget._get_box_model`): a descendant asking for a layout counts in the
  widget's `_layout_updates`, a child mounted or removed in `_nodes._updates`, its own styles in
  their `_cache_key` (`layout_key`). Without it, each layout of a streaming answer sums every
  parked segment again and costs more the longer the answer grows: the answer streams slower
  and slower.
- The desktop notification (OSC 9 / 777) is written to the terminal through the app's driver,
  as Textual's own `App.copy_to_clipboard` writes OSC 52 (`write_to_terminal`): written to the
  terminal any other way, it could land in the middle of a frame Textual's writer thread is
  sending.

Standing down, the chat sums the heights at every layout and the notification is not sent (the
bell still rings: `App.bell`).

Upstream: a public `Widget.layout_generation` (what keys the box model), and
`App.write_to_terminal(text)` beside `copy_to_clipboard`.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.widget import Widget

from agent_tui.speedups.guard import Patch, fits

PATCH = Patch(
    name="textual_privates",
    library="Textual",
    version="8.2.8",
    symptom="a streaming answer's layouts cost more as it grows; no desktop notification",
    targets={
        "textual.widget:Widget._get_box_model": 2406370130,
        "textual.app:App.copy_to_clipboard": 922714290,
    },
)


def layout_key(widget: Widget) -> tuple[object, ...] | None:
    """What changes when anything under `widget` may lay out differently (as Textual's
    box-model cache is keyed); None when it can't be read (the caller measures every time)."""
    if not fits(PATCH):
        return None
    return (widget._layout_updates, widget._nodes._updates, widget.styles._cache_key)


def write_to_terminal(app: App[Any], text: str) -> bool:
    """Write an escape sequence to the terminal between frames; False when it can't be."""
    if app.is_headless or not fits(PATCH):
        return False
    driver = app._driver
    if driver is None:
        return False
    driver.write(text)
    return True


def apply() -> bool:
    return fits(PATCH)
