"""Markdown painted piece by piece: a streaming answer's blocks are rendered once each.

Rich renders markdown at a few hundred characters a millisecond, so re-rendering the complete
blocks of a streaming answer each time one more completes (and once more when they are frozen
into a segment) made the paint of a frame take 60–90 ms of CPU (measured with
benchmarks/bench_callbacks.py). Cut at the safe split points of `markdown_split` — where the
pieces, rendered apart and joined by one blank line, look exactly like the whole — each piece is
rendered once per width and kept in its answer's `PieceCache` while the answer streams: a block
that completes renders itself only, and a segment frozen from blocks already shown is painted
from lines already rendered.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from copy import copy
from functools import cache
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from textual.strip import Strip
from textual.visual import Visual, visualize

from agent_tui.ui.chat.code_lexers import deferring
from agent_tui.ui.chat.markdown_split import _SplitScanner

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from rich.markdown import Markdown as RichMarkdown
    from textual.widget import Widget

#: pieces kept per streaming answer (a frozen segment is a few; a width change renders anew)
PIECES_KEPT = 64
# A link reference definition: markdown resolves `[text][ref]` across the whole document, so a
# text that defines one is rendered whole.
_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:", re.MULTILINE)


def render_markdown(text: str) -> RenderableType:
    """`text` as Rich renders markdown, parsed by one parser for the process: Rich's `Markdown`
    builds a parser of its own for every text (0.25 ms, and 41 objects in reference cycles that
    only a garbage collection frees: a resize re-rendering 200 pieces left 8,000 of them to the
    next young collection, whose 16-42 ms fell into a callback, benchmarks/bench_callbacks.py).
    A copy of one `Markdown` made by Rich itself, with this text and its tokens: everything else
    (the code theme, the options) is what Rich's own constructor set."""
    markdown = copy(_template())
    markdown.markup = text
    markdown.parsed = _parser().parse(text)
    return markdown


def reference_definitions(text: str) -> str:
    """The link reference definitions `text` makes, written again one per line (markdown that
    draws nothing), for pieces of it rendered apart: `[the docs][docs]` in one resolves with
    `[docs]: …` defined in another, as in the whole. "" when it defines none, or when written
    again they would draw something."""
    if not _REFERENCE.search(text):
        return ""
    env: dict[str, Any] = {}
    _parser().parse(text, env)
    lines = []
    for label, target in env.get("references", {}).items():
        href = target["href"].replace("\\", "\\\\").replace("<", "\\<").replace(">", "\\>")
        title = target.get("title") or ""
        title = title.replace("\\", "\\\\").replace('"', '\\"')
        # (a label is kept as written, its escapes too: as markdown-it matches it)
        lines.append(f'[{label}]: <{href}> "{title}"' if title else f"[{label}]: <{href}>")
    definitions = "\n".join(lines)
    if not definitions:
        return ""
    parsed = _parser().parse(definitions)  # they define, and draw nothing
    return definitions if not parsed else ""


@cache
def _template() -> RichMarkdown:
    from rich.markdown import Markdown as RichMarkdown  # markdown-it is not needed at startup

    from agent_tui.ui.chat.code_lexers import markdown_elements

    class Markdown(RichMarkdown):
        # code blocks that don't wait for their lexer where they can be painted again
        elements = markdown_elements(RichMarkdown.elements)

    # hyperlinks=False prints each URL after its text: a person sees where a cited source points.
    return Markdown("", code_theme="monokai", hyperlinks=False)


@cache
def _parser() -> MarkdownIt:
    """The parser Rich's `Markdown` builds for each text (rich.markdown, 15.0)."""
    from markdown_it import MarkdownIt

    return MarkdownIt().enable("strikethrough").enable("table")


def load_markdown() -> None:
    """Import what renders markdown (markdown-it and its rules, Rich's renderer, Pygments): the
    first markdown painted needs it, 15 ms of CPU."""
    _template()
    _parser()


WARM_UP_SAMPLE = """# Title

Some *prose* with `code` and a [link](https://example.com).

- a list item
1. a numbered one

| a | table |
|---|---|
| 1 | 2 |

```python
def answer() -> int:
    return 42
```

> a quote
"""


def warm_up_markdown() -> None:
    """Load what the first answer's markdown needs (the parser, its rules, the Python lexer and
    the code theme): from the boot worker, not in the first frames of the first answer (26-42 ms
    of one callback, measured with benchmarks/bench_callbacks.py)."""
    import io

    from rich.console import Console

    console = Console(file=io.StringIO(), width=80, color_system="truecolor")
    console.print(render_markdown(WARM_UP_SAMPLE))


def render_lines(widget: Widget, renderable: RenderableType, width: int) -> list[Strip]:
    """`renderable` painted at `width` in `widget`'s style."""
    visual = visualize(widget, renderable)
    return Visual.to_strips(widget, visual, width, None, widget.visual_style)


class PieceCache:
    """The lines of the pieces an answer rendered, by (piece, width, style): bounded, newest
    kept."""

    def __init__(self, size: int = PIECES_KEPT) -> None:
        self.size = size
        self._lines: OrderedDict[tuple[Any, ...], list[Strip]] = OrderedDict()

    def lines(self, widget: Widget, piece: str, width: int) -> list[Strip]:
        key = (piece, width, widget.visual_style)
        lines = self._lines.get(key)
        if lines is None:
            with deferring() as waiting:
                lines = render_lines(widget, render_markdown(piece), width)
            if waiting:  # a code block painted plain while its lexer loads: not kept
                return lines
            self._lines[key] = lines
            if len(self._lines) > self.size:
                self._lines.popitem(last=False)
        else:
            self._lines.move_to_end(key)
        return lines

    def clear(self) -> None:
        self._lines.clear()


def pieces(markdown: str) -> list[str]:
    """`markdown` cut at every safe split point (the whole when it defines a link reference)."""
    if _REFERENCE.search(markdown):
        return [markdown]
    scanner = _SplitScanner()
    scanner.feed(markdown)
    points = [0, *scanner.points, len(markdown)]
    return [markdown[start:end] for start, end in pairwise(points) if end > start]


def markdown_lines(
    widget: Widget, markdown: str, width: int, cache: PieceCache, references: str = ""
) -> list[Strip]:
    """`markdown` painted at `width` as the whole would be, from its pieces' lines in `cache`;
    each piece rendered with the link reference `references` made elsewhere (they draw
    nothing: `reference_definitions`). `markdown` ends at a split point, so they are outside
    any block."""
    blank = Strip([], 0)  # as Rich paints it: nothing (the widget pads the line)
    lines: list[Strip] = []
    for n, piece in enumerate(pieces(markdown)):
        if n:
            lines.append(blank)  # the blank line Rich puts between two top-level blocks
        lines += cache.lines(widget, f"{piece}\n\n{references}" if references else piece, width)
    return lines
