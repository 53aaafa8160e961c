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


class _Blocks:
    """Which block each line of growing markdown is in, as far as split points need it: the list
    items open around it (their content's column), the fence or HTML block it is inside (and in
    how many of those items that opened), whether the block before it is a paragraph (which a
    less indented line may continue: CommonMark's lazy lines), and blank lines and thematic
    breaks before it. A fence or HTML block opened in a list item ends with the item: a line
    indented less than the item's content ends both (a fence is no paragraph: no lazy line)."""

    __slots__ = (
        "after_blank",
        "after_rule",
        "depth",
        "fence",
        "fences",
        "html_end",
        "items",
        "paragraph",
    )

    def __init__(self) -> None:
        #: the column the content of each open list item starts at, outermost first
        self.items: list[int] = []
        self.fence: str | None = None  # the opening marker of the fence we are in
        self.fences = 0  # how many were opened
        #: what ends the HTML block we are in (`_HTML_BLOCKS`), if we are in one
        self.html_end: re.Pattern[str] | str | None = None
        self.depth = 0  # how many list items were open around that fence or block
        self.paragraph = False
        self.after_blank = False
        self.after_rule = False

    def starts_piece(self, line: str) -> bool:
        """Read the next line; whether a piece may begin with it (a paragraph or heading at the
        margin after a blank line, outside everything, not after a thematic break)."""
        body = line.lstrip(" \t")
        indent = len(line[: len(line) - len(body)].expandtabs(4))
        blank = not body.strip()
        if self.html_end is _BLANK and blank:  # the blank line that ends it
            self.html_end, self.after_blank, self.paragraph = None, True, False
            return False
        if self.fence is not None or self.html_end is not None:
            if blank or indent >= self._column(self.depth):
                self._inside(body, indent - self._column(self.depth))
                return False
            self.fence = self.html_end = None  # its list item ended here, and it with it
            self.after_blank = False  # (its blank lines were the fence's: no piece starts here)
        if blank:
            self.after_blank, self.paragraph = True, False
            return False
        while self.items and indent < self.items[-1]:
            if self.paragraph and not self.after_blank and not _interrupts(body):
                self.after_blank = False
                return False  # a lazy line: the item's paragraph goes on
            self.items.pop()
        starts = self.after_blank and not self.after_rule and not self.items and indent == 0
        self.after_blank = False
        rule = bool(_RULE.match(line))
        self.after_rule = rule
        if rule or indent - self._column(len(self.items)) >= 4:
            self.paragraph = self.paragraph and not rule  # (indented code, or what it continues)
            return False
        opened_item = False
        while item := _item(body):  # a list item (or more: "- 1. x"), its content at `column`
            marker, column = item
            self.items.append(indent + column)
            body, indent, opened_item = body[marker:].lstrip(" \t"), indent + column, True
        if opened_item:
            self.paragraph = False  # (an item's first line interrupts nothing)
        self._open(body, len(self.items))
        return starts and not opened_item and _BLOCK_START.match(line) is not None

    def _column(self, depth: int) -> int:
        return self.items[depth - 1] if depth else 0

    def _inside(self, body: str, indent: int) -> None:
        """A line of the fence or HTML block we are in (`indent`: past its item's column)."""
        if self.fence is not None:
            closing = body.strip()
            if (
                indent <= 3
                and closing
                and set(closing) == {self.fence[0]}
                and len(closing) >= len(self.fence)
            ):
                self.fence = None
        elif self.html_end is not None and _ends_html(body, self.html_end):
            self.html_end = None

    def _open(self, body: str, depth: int) -> None:
        """What a line's `body` (past its indentation and any list marker) opens."""
        self.depth = depth
        opening = _FENCE.match(body)
        if opening:
            self.fence, self.paragraph = opening.group(1), False
            self.fences += 1
            return
        opened = _html_opened(body)
        self.html_end = None  # what ends the HTML block this line opens, unless it ends here
        if opened is not None and not _ends_html(body[opened[0] :], opened[1]):
            self.html_end = opened[1]
        if self.html_end is None and (
            _HTML_TO_BLANK.match(body) or (not self.paragraph and _HTML_TAG_LINE.match(body))
        ):
            self.html_end = _BLANK
        # a heading or HTML (even one that ends on its line) is no paragraph, which a lazy
        # line could go on
        self.paragraph = (
            bool(body.strip())
            and self.html_end is None
            and opened is None
            and _INTERRUPTS.match(body) is None
        )


class _SplitScanner:
    """Finds safe split points in growing markdown, scanning each line once.

    A split point is the start of a paragraph or heading line at the margin that follows a blank
    line, outside list items, code fences and the HTML blocks that run on across blank lines, and
    not after a thematic break (`_Blocks`). Rendered apart and joined by one blank line, the
    pieces look exactly like the whole (Rich puts one blank line between top-level blocks); no
    fence, HTML block, table, list or quote is ever cut. (Checked in tests/ui/test_chat_perf.py.)
    """

    def __init__(self) -> None:
        self.points: list[int] = []
        self._pos = 0  # where the first line not yet scanned starts
        self._blocks = _Blocks()
        #: where the line that opened the fence we are in starts
        self.fence_start = 0

    def feed(self, text: str) -> None:
        """Scan the complete lines of `text` (the whole buffer) not scanned yet."""
        pos = self._pos
        blocks = self._blocks
        while True:
            end = text.find("\n", pos)
            if end < 0:
                break
            fences = blocks.fences
            if blocks.starts_piece(text[pos:end]):
                self.points.append(pos)
            if blocks.fences != fences:  # this line opened one
                self.fence_start = pos
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
        """The marker and start of a fence opened outside list items and not closed yet."""
        blocks = self._blocks
        if blocks.fence is None or blocks.depth:
            return None
        return blocks.fence, self.fence_start

    @property
    def last(self) -> int:
        return self.points[-1] if self.points else 0


# A list item's marker, and the spaces after it (none only at the end of the line)
_ITEM = re.compile(r"([*+-]|[0-9]{1,9}[.)])([ \t]+|\r?$)")
# HTML blocks that end at a blank line: CommonMark's kind 6 (a block-level tag's name, opening
# or closing) and kind 7 (any other complete tag alone on its line; it can't interrupt a
# paragraph)
_HTML_TO_BLANK = re.compile(
    r"</?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd"
    r"|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]"
    r"|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup"
    r"|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)"
    r"(?:[ \t>]|/>|\r?$)",
    re.IGNORECASE,
)
_ATTRIBUTE = r"""[ \t]+[A-Za-z_:][\w.:-]*(?:[ \t]*=[ \t]*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?"""
_HTML_TAG_LINE = re.compile(
    rf"(?:<[A-Za-z][A-Za-z0-9-]*(?:{_ATTRIBUTE})*[ \t]*/?>|</[A-Za-z][A-Za-z0-9-]*[ \t]*>)\s*$"
)
#: what ends an HTML block of those two kinds (`_Blocks.html_end`)
_BLANK = re.compile(r"^\s*$")
# What a line may begin with to interrupt a paragraph (so it is no lazy line of one): an ATX
# heading, a fence, a quote; checked apart: HTML of kinds 1-6 (`_HTML_BLOCKS`,
# `_HTML_TO_BLANK`), a list item or a thematic break.
_INTERRUPTS = re.compile(r"#{1,6}(?:[ \t]|\r?$)|`{3,}|~{3,}|>")


def _item(body: str) -> tuple[int, int] | None:
    """Where a list item's marker at the start of `body` ends and its content's column (past
    the indentation), if `body` begins with one."""
    item = _ITEM.match(body)
    if item is None:
        return None
    spaces = len(item.group(2).rstrip("\r").expandtabs(4))
    rest = body[item.end() :].strip()
    # content one column past the marker when it is blank or begins as indented code
    width = spaces if 1 <= spaces <= 4 and rest else 1
    return item.end(1), item.end(1) + width


def _interrupts(body: str) -> bool:
    return (
        bool(_INTERRUPTS.match(body) or _RULE.match(body) or _HTML_TO_BLANK.match(body))
        or _item(body) is not None
        or _html_opened(body) is not None
    )


_Opened = tuple[int, re.Pattern[str] | str]


def _html_opened(line: str) -> _Opened | None:
    """Where the opening of the HTML block `line` opens ends and what ends that block, if it
    opens one of those that run on across blank lines (`_HTML_BLOCKS`)."""
    if not line.lstrip(" ").startswith("<"):  # most lines: no pattern to try
        return None
    for start, end in _HTML_BLOCKS:
        opening = start.match(line)
        if opening:
            return opening.end(), end
    return None


def _ends_html(line: str, marker: re.Pattern[str] | str) -> bool:
    return marker in line if isinstance(marker, str) else marker.search(line) is not None


def ends_outside_blocks(text: str) -> bool:
    """Whether markdown written after `text` and a blank line (a link reference definition)
    begins a block of its own, not a line of a fence or an HTML block that `text` left open."""
    body = text.rstrip("\r\n")
    scanner = _SplitScanner()
    scanner.feed(f"{body}\n\n[x]: <y>\n")
    return len(body) + 2 in scanner.points


def _safe_split(text: str) -> int:
    """The offset of the last safe split point of `text` (0 when there is none)."""
    scanner = _SplitScanner()
    scanner.feed(text)
    return scanner.last
