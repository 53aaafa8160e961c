"""What the approval dialog draws its parts with: untrusted text as plain `Content`, a command
highlighted as bash, the parts of a long command that made it ask."""

from __future__ import annotations

from collections.abc import Iterator

from textual.content import Content
from textual.widget import Widget

from agent_tui.permissions.types import ApprovalRequest, ChoiceItem
from agent_tui.speedups import collect_after
from agent_tui.text import visible, visible_lines
from agent_tui.ui.chat import code_lexers
from agent_tui.ui.widgets.key_hints import Key

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


def items_picker(request: ApprovalRequest) -> Widget:
    """A change set's files, each ticked or not, with its diff."""
    from agent_tui.ui.widgets.hunks import HunkPicker

    return HunkPicker(
        tuple(i.body for i in request.items),
        titles=tuple(item_title(i) for i in request.items),
        kept=tuple(i.kept for i in request.items),
        verbs=("apply", "leave out"),
        id="hunks",
    )


def always_widgets(
    request: ApprovalRequest, *, can_always: bool, simulated: bool
) -> Iterator[Widget]:
    """What `a` does: what it remembers (a forwarded port), or the rules it saves and where,
    with what past sessions say of them (the rules' editable line: `rule_widgets`)."""
    from textual.widgets import Static

    decision = request.decision
    if request.remember:
        what = Content.assemble(
            ("a", "bold $text-accent"), " remembers ", (request.remember, "bold")
        )
        yield Static(what, id="always")
        return
    if not can_always:
        return
    rules = ", ".join(visible(rule) for rule in decision.suggestions)
    where = visible(request.save_to or "the project's local settings")
    saves = Content.assemble(("a", "bold $text-accent"), " saves ", (rules, "bold"), " to ", where)
    yield Static(saves, id="always")
    if simulated:
        yield Static("past sessions: looking…", id="simulation")


def rule_widgets(request: ApprovalRequest) -> tuple[Widget, ...]:
    """The rules `a` saves, editable, and the line that says why an edit can't be saved:
    mounted the first time `a` is pressed, not with every dialog's first frame (measured:
    BENCHMARKS.md, twelfth session)."""
    from textual.widgets import Static

    from agent_tui.ui.widgets.rule_line import RuleLine

    return RuleLine(request.decision.suggestions), Static("", id="rule-problem")


def tell_input() -> Widget:
    """Where `t` writes what the model should do instead: mounted the first time `t` is
    pressed (see `rule_widgets`)."""
    from textual.widgets import Input

    return Input(
        placeholder="tell the model what to do instead", max_length=MAX_MESSAGE_CHARS, id="tell"
    )


def key_line(
    request: ApprovalRequest, *, telling: bool, confirming: bool, can_always: bool
) -> list[Key]:
    """The dialog's keys, for what it asks and the state it is in: each key with what it does
    in words and in a word or two (for a narrow dialog)."""
    if telling:
        return [("enter", "deny and send", "send"), ("esc", "back", "back")]
    if confirming:
        return [
            ("a", "again (or enter) to save the rule and allow", "again: save, allow"),
            ("e", "edit it", "edit"),
            ("y", "just this once", "once"),
            ("n", "deny", "deny"),
        ]
    if request.items:
        later = request.input.get("review") == "held"
        return [
            ("y", "apply the ticked", "apply"),
            ("n", "later" if later else "none of them", "later" if later else "none"),
        ]
    keys: list[Key] = [("y", "allow once", "once")]
    if can_always and not request.remember:
        keys.append(("s", "this session", "session"))
    if can_always:
        keys.append(("a", "allow always", "always"))
    if request.can_review:
        keys.append(("r", "review its changes", "review"))
    return [*keys, ("n", "deny", "deny"), ("t", "deny and tell", "tell")]
