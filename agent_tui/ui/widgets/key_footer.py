"""The screen's keys on the bottom line, as Textual's `Footer` shows them, drawn by one widget.

`Footer` mounts a widget per key, each styled through two component classes: on the main screen
that was ~60 of the first frame's ~140 style applications, and a recompose whenever focus moved.
This one renders a single line from the screen's active bindings and repaints when they change.
Clicking a key presses it, as with `Footer`. Styles: `styles/key_footer.tcss`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from rich.cells import cell_len
from textual import events
from textual.content import Content
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.screen import Screen

KEY_STYLE = "bold $footer-key-foreground on $footer-key-background"
DESCRIPTION_STYLE = "$footer-description-foreground on $footer-description-background"
BAR_STYLE = "$foreground 20%"


class FooterKey(NamedTuple):
    key: str  # what a click presses
    display: str  # how it is shown: "^t", "f1", "shift+tab"
    description: str
    enabled: bool


class KeySpan(NamedTuple):
    key: FooterKey
    start: int  # cells from the widget's left edge
    end: int
    docked: bool = False  # the palette's key, at the right edge behind a bar


class KeyFooter(Widget, can_focus=False):
    ALLOW_SELECT = False

    def __init__(self) -> None:
        super().__init__()
        # Read once per change of the screen's bindings, and drawn once per width: the screen is
        # laid out several times before its first frame, and on every resize.
        self._keys: tuple[list[FooterKey], FooterKey | None] | None = None
        self._line: tuple[int, Content] | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        # Focus moves change the bindings, rarely the keys shown: redraw only if they differ.
        if screen is self.screen and self._keys is not None and self._read_keys() != self._keys:
            self._keys = self._line = None
            self.refresh()

    def keys(self) -> tuple[list[FooterKey], FooterKey | None]:
        """The keys shown on the left (one per action, in the screen's order: priority bindings
        first), and the command palette's key, shown at the right edge."""
        if self._keys is None:
            self._keys = self._read_keys()
        return self._keys

    def _read_keys(self) -> tuple[list[FooterKey], FooterKey | None]:
        app, shown, palette = self.app, [], None
        actions: set[str] = set()
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            key = FooterKey(binding.key, app.get_key_display(binding), binding.description, enabled)
            if binding.key == app.COMMAND_PALETTE_BINDING and app.ENABLE_COMMAND_PALETTE:
                palette = key
            elif binding.show and binding.action not in actions:
                actions.add(binding.action)
                shown.append(key)
        return shown, palette

    def spans(self) -> list[KeySpan]:
        """Where each key is drawn on the line (clicks and tests). The palette's key keeps the
        right edge; keys that run under it are cut, as with Textual's Footer."""
        shown, palette = self.keys()
        spans, x = [], 0
        compact = self._compact()
        for key in shown:
            width = cell_len(self._label(key, compact))
            spans.append(KeySpan(key, x, x + width))
            x += width
        if palette is not None:
            width = cell_len(f"▏{palette.display} {palette.description} ")
            start = self.size.width - width if self.size.width else x
            spans.append(KeySpan(palette, start, start + width, docked=True))
        return spans

    @staticmethod
    def _label(key: FooterKey, compact: bool) -> str:
        return (
            f"{key.display} {key.description} " if compact else f" {key.display} {key.description} "
        )

    def _compact(self) -> bool:
        """The keys without their padding, where in full they run under the palette's key (at
        80 columns the sessions browser's were cut: `f Fil`)."""
        shown, palette = self.keys()
        docked = cell_len(f"▏{palette.display} {palette.description} ") if palette else 0
        full = sum(cell_len(self._label(key, False)) for key in shown)
        return bool(self.size.width) and full + docked > self.size.width

    def render(self) -> Content:
        width = self.size.width
        if self._line is None or self._line[0] != width:
            self._line = width, self._draw()
        return self._line[1]

    def _draw(self) -> Content:
        left: list[Content] = []
        docked = Content("")
        compact = self._compact()
        for span in self.spans():
            key = span.key
            # Textual's Footer pads the docked key on the right only.
            display = f"{key.display} " if span.docked or compact else f" {key.display} "
            piece = Content.assemble(
                (display, KEY_STYLE), (f"{key.description} ", DESCRIPTION_STYLE)
            )
            piece = piece if key.enabled else piece.stylize("dim")
            if span.docked:
                line = Content("").join(left)
                left = [line.truncate(span.start, pad=True)]
                docked = Content.assemble(("▏", BAR_STYLE), piece)
            else:
                left.append(piece)
        return Content("").join([*left, docked])

    def on_click(self, event: events.Click) -> None:
        for span in reversed(self.spans()):  # the docked key is drawn over the others
            if span.start <= event.x < span.end:
                event.stop()
                if span.key.enabled:
                    self.app.simulate_key(span.key.key)
                else:
                    self.app.bell()
                return
