"""A piece of an answer's markdown as a widget: rendered by Rich once per width, kept as lines
(see `chat` for how an answer is cut into them while it streams)."""

from __future__ import annotations

from functools import partial
from typing import Any

from rich.console import Group, RenderableType
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from agent_tui.speedups.screen_resize_once import lay_out_again
from agent_tui.ui.chat.code_lexers import deferring, when_loaded
from agent_tui.ui.chat.markdown_pieces import (
    PieceCache,
    markdown_lines,
    render_lines,
    render_markdown,
)
from agent_tui.ui.chat.markdown_split import ends_outside_blocks

#: seconds after a frame that painted code plain before its lexers are loaded (`_ask_for_lexers`)
LEXERS_AFTER = 0.05


class MarkdownSegment(Widget):
    """A piece of an answer's markdown, rendered by Rich once per width and kept as lines.

    A `Static` would render its renderable twice per change (once to measure its height, once to
    paint) and keep the parsed Markdown (thousands of tokens) alive; this keeps the source text and
    the painted lines only, and measuring its height is free.
    """

    DEFAULT_CSS = "MarkdownSegment { height: auto; }"

    def __init__(
        self,
        markdown: str = "",
        *,
        gap: bool = False,
        note: RenderableType | None = None,
        classes: str = "",
        trim: tuple[bool, bool] = (False, False),
        pieces: PieceCache | None = None,
    ) -> None:
        super().__init__(classes=classes)
        #: while its answer streams: the lines of pieces already rendered (`markdown_pieces`)
        self.pieces = pieces
        self.markdown = markdown
        #: link reference definitions made elsewhere in the answer, rendered after the text (they
        #: draw nothing): `[the docs][docs]` here resolves as in the whole (`define`)
        self.references = ""
        self._gap = gap  # a blank line first: the one Rich puts between blocks of one document
        self._note = note
        #: (first, last): leave out the first / last painted line, the padding of a code block
        #: cut in two (see `AssistantMessage._split_fence`)
        self._trim = trim
        # Lines by (width, style, selection). Two widths are kept: a layout measures with and
        # without the vertical scrollbar, and must not re-render every segment each time.
        self._renders: dict[tuple[Any, ...], list[Strip]] = {}
        #: heights by width, kept when the lines are dropped (`drop_lines`): a layout of the
        #: chat measures every segment, and must not render the ones far off screen to do it
        self._heights: dict[int, int] = {}
        #: lines dropped far off screen: a height at a new width is estimated, not rendered
        self._dropped = False
        #: shown by the chat's view at its last layout (`ChatView._mark_in_view`): if not, a
        #: height at a new width is estimated too
        self.in_view = True
        self._estimated: set[int] = set()
        #: painted with code plain while its lexer loads (`code_lexers`): painted again then
        self._awaiting_lexers = False

    def drop_lines(self) -> None:
        """Forget the painted lines (far off screen); they are painted again when needed."""
        self._renders.clear()
        self._dropped = True

    def paint_ahead(self, width: int) -> None:
        """Render at `width` now (in the caller's step), not in the next layout; not once it
        has left its screen (the answer cleared, the app closing)."""
        if self.is_attached:
            self._render_at(width)

    def update(
        self,
        markdown: str,
        *,
        gap: bool = False,
        note: RenderableType | None = None,
        trim: tuple[bool, bool] = (False, False),
        width: int = 0,
    ) -> None:
        """Show `markdown`, rendered now at the width it is laid out at (before its first
        layout: at `width`, the one it will have, so that layout finds its lines)."""
        if (markdown, gap, note, trim) == (self.markdown, self._gap, self._note, self._trim):
            return
        self.markdown, self._gap, self._note, self._trim = markdown, gap, note, trim
        height = len(next(iter(self._renders.values()), ()))
        self._forget_lines()
        width = self.size.width or width
        if width and self.is_mounted and self.is_attached and len(self._render_at(width)) == height:
            # Most deltas don't add a line: repaint only, so the screen needn't be laid out
            # again (a layout also repaints every line that moves).
            self.refresh()
        else:
            self.refresh(layout=True)

    @property
    def _source(self) -> str:
        """What is rendered: the text, and any definitions made elsewhere after it (not when
        the text ends in a block they would be part of: an answer cut off in a code block)."""
        if self.references and ends_outside_blocks(self.markdown):
            return f"{self.markdown}\n\n{self.references}"
        return self.markdown

    def define(self, references: str) -> None:
        """Render with these link reference definitions after the text (see `references`)."""
        if references == self.references:
            return
        self.references = references
        self._forget_lines()
        self.refresh(layout=True)

    def _forget_lines(self) -> None:
        """What it draws changed: its lines and heights at every width are rendered again."""
        self._renders.clear()
        self._heights.clear()
        self._estimated.clear()
        self._dropped = False

    def _render_at(self, width: int) -> list[Strip]:
        key = (width, self.visual_style, self.text_selection)
        lines = self._renders.get(key)
        if lines is None:
            shown = bool(self.markdown.strip()) or self._note is not None
            lines = []
            with deferring() as waiting:  # code whose lexer isn't loaded: plain, for now
                if not shown:
                    pass
                elif self.pieces is not None and self._note is None and self.text_selection is None:
                    lines = markdown_lines(self, self.markdown, width, self.pieces, self.references)
                else:
                    parts = [render_markdown(self._source)] if self.markdown.strip() else []
                    if self._note is not None:
                        parts.append(self._note)
                    lines = render_lines(self, Group(*parts), width)
            if waiting and not self._awaiting_lexers:
                self._awaiting_lexers = True
                self.call_after_refresh(self._ask_for_lexers, waiting)
            if lines:  # (a text that draws nothing, definitions only, has no gap either)
                first, last = self._trim
                lines = lines[int(first) : len(lines) - int(last)]
                if self._gap:
                    lines.insert(0, Strip.blank(width, self.visual_style.rich_style))
            if len(self._renders) >= 2:
                del self._renders[next(iter(self._renders))]
            self._renders[key] = lines
            if width in self._estimated:  # painted at last: lay out again if it was off
                self._estimated.discard(width)
                if self._heights.get(width) != len(lines) and not lay_out_again(self):
                    self.call_after_refresh(self.refresh, layout=True)
            self._heights[width] = len(lines)
        return lines

    def _ask_for_lexers(self, names: set[str]) -> None:
        """A moment after the frame that painted this (`LEXERS_AFTER`): compiling a lexer
        takes turns with the UI for the interpreter's lock, and each of the UI's turns then
        waits up to 5 ms (CPython's switch interval), so the frames right after would be
        slowed, the first frame of a resumed history most of all."""
        loaded = partial(self.post_message, self.LexersLoaded())
        self.set_timer(LEXERS_AFTER, partial(when_loaded, names, loaded))

    class LexersLoaded(Message, bubble=False):
        """The lexers of the code this painted plain are loaded (`code_lexers`)."""

    def on_markdown_segment_lexers_loaded(self, message: LexersLoaded) -> None:
        """Paint again, coloured: the same lines (only the code's colours change)."""
        self._awaiting_lexers = False
        self._renders.clear()
        self.refresh()

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        height = self._heights.get(width)
        if height is None and (self._dropped or not self.in_view) and self._heights:
            # Off screen after a resize: scale a known height instead of rendering every old
            # answer at the new width (over a second with a long session on screen); it is
            # rendered, and laid out again if need be, when it is painted (scrolled to).
            known, lines = min(self._heights.items(), key=lambda item: abs(item[0] - width))
            height = self._heights[width] = max(1, round(lines * known / max(1, width)))
            self._estimated.add(width)
        return len(self._render_at(width)) if height is None else height

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        lines = self._render_at(width)
        return lines[y] if y < len(lines) else Strip.blank(width, self.visual_style.rich_style)
