"""The screen behind a dialog, dimmed, painted again only where it changed (Textual 8.2.8).

A dialog (`ModalScreen`: the approval, the trust question, confirmations) paints the screen
behind it through its own background (`BackgroundScreen`): the whole of that screen, every
segment of it tinted. Textual renders that background again in full whenever any part of it is
dirty — and the screen behind refreshes its changed regions on the dialog (a spinner, a tool
block's running time, the call's answer arriving): each time all 40-50 lines of the chat were
rendered and tinted again, 5-7 ms of the approval dialog's paints while it waits for a key, and
the dialog's first frame tinted every segment one by one. Here the dialog's background renders
only its dirty lines (the rest of the lines it painted are kept, as every other widget keeps
them) through the same steps, and a line of it is dimmed once (kept by what it shows, across
dialogs: the second dialog over the same chat tints nothing new). Whole renders (first frame, a
resize, another screen behind) go the same way as before.

And the screen behind sent every region it ever had dirty each time: it passes its changed
regions on to the dialog and also keeps them as its own to repaint (`_set_dirty`, and
`_repaint_required`), which its next update turns into changed regions again — so from the
dialog's first frame on, any change behind (a clock ticking) sent the whole screen, every
widget's region, to the dialog again. Here the screen behind passes each region on once (what
it must paint when it is on top again is a full refresh anyway: Textual refreshes a screen in
full when it resumes).

Upstream: in `Widget._render_content`, render only the lines in `_dirty_regions` when the size
is unchanged (keeping `_render_cache.lines` for the others), memoize
`BackgroundScreen.process_segments`'s tint per style, and in `Screen._compositor_refresh`'s
background branch neither keep the regions passed on in `_repaint_regions` nor set
`_repaint_required` (no region sent twice).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.geometry import Region
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import Screen
from textual.strip import Strip
from textual.visual import RichVisual, Visual
from textual.widget import Widget, _RenderCache

from agent_tui.ui.patches import Patch, fits

PATCH = Patch(
    name="dimmed_background",
    version="8.2.8",
    fixes="a dialog's dimmed background rendered and tinted in full on every change behind it",
    targets={
        "textual.widget:Widget._render_content": 4150507479,
        "textual.screen:Screen.render": 1627202241,
        "textual.renderables.background_screen:BackgroundScreen.process_segments": 1358387124,
        "textual.renderables.background_screen:BackgroundScreen.__rich_console__": 2184257949,
        "textual._compositor:Compositor._render_chops": 2646578620,
        "textual._compositor:Compositor.render_strips": 4017715197,
        "textual.screen:Screen._compositor_refresh": 2070892787,
    },
)

_render_content = Widget._render_content

#: (style, tint) -> the tinted style, as `BackgroundScreen.process_segments` makes it
_tinted: dict[tuple[Style | None, Color], Style | None] = {}
_MAX_TINTED = 8192


def tinted(style: Style | None, color: Color) -> Style | None:
    """`style` under the dialog's tint: Textual's own tint, worked out once per style."""
    key = (style, color)
    try:
        return _tinted[key]
    except KeyError:
        pass
    if len(_tinted) >= _MAX_TINTED:
        _tinted.clear()
    (segment,) = BackgroundScreen.process_segments([Segment(" ", style)], color)
    _tinted[key] = segment.style
    return segment.style


class TintedLines:
    """Lines of the screen behind, tinted: what `BackgroundScreen` renders, for some lines."""

    def __init__(self, lines: Iterable[Strip], color: Color) -> None:
        self.lines = lines
        self.color = color

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        color, new_line = self.color, Segment.line()
        for line in self.lines:
            for text, style, control in line:
                yield (
                    Segment(text, style, control)
                    if control
                    else Segment(text, tinted(style, color))
                )
            yield new_line


#: (width, tint, the screen's style, a line of the screen behind) -> that line painted dimmed
_dimmed: dict[tuple[object, ...], Strip] = {}
_MAX_DIMMED = 1024


def dimmed_lines(screen: Screen[object], color: Color, lines: list[Strip]) -> list[Strip] | None:
    """`lines` of the screen behind as `screen` paints them over it: each line once (a line
    painted before, by this dialog or an earlier one, is not tinted again). None if Textual's
    steps gave other than one strip a line (then the whole is rendered as Textual does)."""
    width, style = screen.size.width, screen.visual_style
    keys: list[tuple[object, ...]] = [
        (width, color, style, tuple(line._segments)) for line in lines
    ]
    missing = [i for i, key in enumerate(keys) if key not in _dimmed]
    if missing:
        shown = TintedLines([lines[i] for i in missing], color)
        strips = Visual.to_strips(screen, RichVisual(screen, shown), width, len(missing), style)
        if len(strips) != len(missing):
            return None
        fresh = dict(zip((keys[i] for i in missing), strips, strict=True))
        result = [fresh[key] if key in fresh else _dimmed[key] for key in keys]
        if len(_dimmed) + len(fresh) > _MAX_DIMMED:
            _dimmed.clear()
        _dimmed.update(fresh)
        return result
    return [_dimmed[key] for key in keys]


def _render_dimmed(self: Screen[object]) -> None:
    visual = self._render()
    background = getattr(visual, "_renderable", None)
    if (
        not isinstance(background, BackgroundScreen)
        or self.text_selection is not None
        or self.styles.content_align != ("left", "top")
    ):
        _render_content(self)
        return
    size = self.size
    compositor = background.screen._compositor
    previous: _RenderCache = self._render_cache
    rows = sorted({y for region in self._dirty_regions for y in region.line_range})
    partial = (
        getattr(self, "_dimmed_behind", None) == (background.screen, background.color)
        and previous.size == size == compositor.size
        and len(previous.lines) == size.height
        and bool(rows)
        and all(0 <= y < size.height for y in rows)
        and not any(region.contains_region(size.region) for region in self._dirty_regions)
    )
    if partial:  # only the lines that changed behind the dialog
        crop = Region.from_union([Region(0, y, size.width, 1) for y in rows])
        chops = compositor._render_chops(crop, set(rows).__contains__)
        changed = dimmed_lines(
            self, background.color, [Strip.join(chops[y].values()) for y in rows]
        )
        if changed is not None:
            lines = list(previous.lines)
            for y, strip in zip(rows, changed, strict=True):
                lines[y] = strip
            self._render_cache = _RenderCache(size, lines)
            self._dirty_regions.clear()
            return
    whole = dimmed_lines(self, background.color, compositor.render_strips()[: size.height])
    if whole is None:
        _render_content(self)
    else:
        self._render_cache = _RenderCache(size, whole)
        self._dirty_regions.clear()
    self._dimmed_behind = (background.screen, background.color)  # type: ignore[attr-defined]


_compositor_refresh = Screen._compositor_refresh


def _compositor_refresh_once(self: Screen[object]) -> None:
    """Textual's, but a screen behind a dialog doesn't keep what it passed on to send again."""
    app = self.app
    if app.is_inline or self is app.screen or self not in app._background_screens:
        _compositor_refresh(self)
        return
    regions, required = set(self._repaint_regions), self._repaint_required
    _compositor_refresh(self)
    self._repaint_regions.clear()  # what was pending before is kept, what was passed on isn't
    self._repaint_regions.update(regions)
    self._repaint_required = required


def apply() -> bool:
    if getattr(Screen, "_render_content", None) is _render_dimmed:
        return True
    if not fits(PATCH):
        return False
    Screen._render_content = _render_dimmed  # type: ignore[method-assign,assignment]
    Screen._compositor_refresh = _compositor_refresh_once  # type: ignore[method-assign,assignment]
    return True
