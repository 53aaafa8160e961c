"""What the approval dialog draws its parts with: untrusted text as plain `Content`, a command
highlighted as bash, the parts of a long command that made it ask."""

from __future__ import annotations

from textual.content import Content

from agent_tui.permissions.types import ChoiceItem
from agent_tui.text import visible, visible_lines
from agent_tui.ui import collect_after
from agent_tui.ui.widgets import code_lexers

#: keys typed this soon after the dialog appears were meant for something else
DEFAULT_GUARD_S = 0.5
MAX_PREVIEW_LINE_CHARS = 1_000
MAX_MESSAGE_CHARS = 2_000
#: a command longer than this gets the parts that made it ask shown above it
LONG_SUBJECT_CHARS = 160
LONG_SUBJECT_LINES = 3

SUBJECT_LABELS = {
    "Bash": "command",
    "Read": "path",
    "Write": "path",
    "Edit": "path",
    "WebFetch": "domain",
    "WebSearch": "query",
}


def plain(text: str) -> Content:
    # Content never parses markup; it is how untrusted text reaches the screen.
    return Content("\n".join(visible_lines(text)))


def command_content(tool: str, subject: str) -> Content:
    code = "\n".join(visible_lines(subject))
    if tool != "Bash":
        return Content(code)
    from textual.highlight import highlight  # pygments: loaded after start-up (`BootFlow._boot`)

    code_lexers.load("bash")  # not compiled by two threads at once (`code_lexers`)
    return highlight(code, language="bash")


def warm_up_dialog() -> None:
    """Load the highlighter a command's dialog uses (pygments), from a worker thread at start-up."""
    from textual.highlight import highlight

    code_lexers.load("bash")
    highlight("true", language="bash")


def first_frame_without_collections() -> None:
    """From the dialog's `on_screen_resume`: Textual's own handler runs next, in the same step of
    the loop, and styles, lays out and paints the whole dialog (the first time: 15-20 ms of CPU);
    no garbage collection starts inside that (a young one took 3-6 ms more, in the benchmark): one
    that falls due runs right after, in a callback of its own (`collect_after.until_next_turn`)."""
    collect_after.until_next_turn()


def is_long(subject: str) -> bool:
    return len(subject) > LONG_SUBJECT_CHARS or subject.count("\n") >= LONG_SUBJECT_LINES


def highlights_content(parts: tuple[str, ...]) -> Content:
    cut = MAX_PREVIEW_LINE_CHARS // 4
    shown = [visible(p if len(p) <= cut else p[:cut] + " …") for p in parts]
    return Content("\n".join(f"• {p}" for p in shown))


def item_title(item: ChoiceItem) -> str:
    """A change set's file as the picker names it: the file, and why it is asked about."""
    title = visible(item.title)
    return f"{title} — {visible(item.why)}" if item.why else title
