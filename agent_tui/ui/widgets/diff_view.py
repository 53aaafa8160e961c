"""A unified diff as colored, markup-free `Content` (the approval dialog, undo and the Changes
view all show diffs of untrusted text)."""

from __future__ import annotations

from pygments.token import Token
from textual.content import Content
from textual.highlight import HighlightTheme, highlight

from agent_tui.text import visible_lines
from agent_tui.ui.chat import code_lexers

#: a diff longer than this is cut (the person can still read the file)
MAX_DIFF_LINES = 400
MAX_LINE_CHARS = 1_000


class DiffTheme(HighlightTheme):
    STYLES = {
        **HighlightTheme.STYLES,
        Token.Generic.Inserted: "$text-success",
        Token.Generic.Deleted: "$text-error",
        Token.Generic.Subheading: "$text-accent",
        Token.Generic.Heading: "bold",
    }


def diff_content(diff: str, max_lines: int = MAX_DIFF_LINES) -> tuple[Content, str | None]:
    """The diff, highlighted and cut, and a note when lines were left out."""
    lines = visible_lines(diff.rstrip("\n"))
    note = None
    if len(lines) > max_lines:
        note = f"… {len(lines) - max_lines} more lines not shown ({len(lines)} in all)"
        lines = lines[:max_lines]
    cut = MAX_LINE_CHARS
    lines = [line if len(line) <= cut else line[:cut] + " …(line cut)" for line in lines]
    code_lexers.load("diff")  # not compiled by two threads at once (`code_lexers`)
    return highlight("\n".join(lines), language="diff", theme=DiffTheme), note
