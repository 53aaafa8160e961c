"""Where growing markdown may be cut into pieces that render, apart, exactly as the whole does
(the chat's frozen segments, `chat.AssistantMessage`)."""

from __future__ import annotations

import re

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
# A line that starts a paragraph or a heading (not a list item, a table, a quote, HTML, code) ...
_BLOCK_START = re.compile(r"(?![0-9]+[.)]([ \t]|$)|[*+-]([ \t]|$))[A-Za-z0-9#*_\[]")
# ... and isn't a thematic break, after which Rich puts no blank line (spaces or tabs between
# and after its marks; a line of a CRLF text keeps its `\r`).
_RULE = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t\r]*$")
# HTML blocks that run on across blank lines (CommonMark's kinds 1-5: `<pre>`, `<script>`,
# `<style>`, `<textarea>`, comments, processing instructions, declarations, CDATA): until the
# marker that ends each.
_HTML_BLOCKS: tuple[tuple[re.Pattern[str], re.Pattern[str] | str], ...] = (
    (
        re.compile(r" {0,3}<(?:pre|script|style|textarea)(?:[ \t>]|$)", re.IGNORECASE),
        re.compile(r"</(?:pre|script|style|textarea)>", re.IGNORECASE),
    ),
    (re.compile(r" {0,3}<!--"), "-->"),
    (re.compile(r" {0,3}<\?"), "?>"),
    (re.compile(r" {0,3}<![A-Za-z]"), ">"),
    (re.compile(r" {0,3}<!\[CDATA\["), "]]>"),
)


class _SplitScanner:
    """Finds safe split points in growing markdown, scanning each line once.

    A split point is the start of a paragraph or heading line that follows a blank line, outside
    code fences and the HTML blocks that run on across blank lines, and not after a thematic
    break. Rendered apart and joined by one blank line, the pieces look exactly like the whole
    (Rich puts one blank line between top-level blocks); no fence, HTML block, table, list or
    quote is ever cut. (Checked in tests/ui/test_chat_perf.py.)
    """

    def __init__(self) -> None:
        self.points: list[int] = []
        self._pos = 0  # where the first line not yet scanned starts
        self._fence: str | None = None  # the opening marker of the fence we are in
        #: where the line that opened that fence starts
        self.fence_start = 0
        self._after_blank = False
        self._after_rule = False
        #: what ends the HTML block we are in (`_HTML_BLOCKS`), if we are in one
        self._html_end: re.Pattern[str] | str | None = None

    def feed(self, text: str) -> None:
        """Scan the complete lines of `text` (the whole buffer) not scanned yet."""
        pos = self._pos
        while True:
            end = text.find("\n", pos)
            if end < 0:
                break
            line = text[pos:end]
            if self._fence is not None:
                closing = line.strip()
                if (
                    closing
                    and set(closing) == {self._fence[0]}
                    and len(closing) >= len(self._fence)
                ):
                    self._fence = None
            elif self._html_end is not None:
                if _ends_html(line, self._html_end):
                    self._html_end = None
            elif not line.strip():
                self._after_blank = True
            else:
                rule = bool(_RULE.match(line))
                if (
                    self._after_blank
                    and not self._after_rule
                    and not rule
                    and _BLOCK_START.match(line)
                ):
                    self.points.append(pos)
                self._after_blank, self._after_rule = False, rule
                opening = _FENCE.match(line)
                if opening:
                    self._fence, self.fence_start = opening.group(1), pos
                else:
                    self._html_end = _html_block(line)
            pos = end + 1
        self._pos = pos

    def cut(self, limit: int) -> int:
        """The furthest split point at or before `limit` (else the first one; 0 when none), and
        forget the points before it: the caller drops that many characters from the buffer."""
        below = [p for p in self.points if p <= limit]
        best = below[-1] if below else (self.points[0] if self.points else 0)
        if best:
            self.points = [p - best for p in self.points if p > best]
            self._pos -= best
            self.fence_start -= best
        return best

    @property
    def open_fence(self) -> tuple[str, int] | None:
        """The marker and start of a fence opened at the margin and not closed yet."""
        return None if self._fence is None else (self._fence, self.fence_start)

    @property
    def last(self) -> int:
        return self.points[-1] if self.points else 0


def _html_block(line: str) -> re.Pattern[str] | str | None:
    """What ends the HTML block `line` opens, if it opens one that runs on across blank lines
    and doesn't end on this line."""
    if not line.lstrip(" ").startswith("<"):  # most lines: no pattern to try
        return None
    for start, end in _HTML_BLOCKS:
        opened = start.match(line)
        if opened:
            return None if _ends_html(line[opened.end() :], end) else end
    return None


def _ends_html(line: str, marker: re.Pattern[str] | str) -> bool:
    return marker in line if isinstance(marker, str) else marker.search(line) is not None


def _safe_split(text: str) -> int:
    """The offset of the last safe split point of `text` (0 when there is none)."""
    scanner = _SplitScanner()
    scanner.feed(text)
    return scanner.last
