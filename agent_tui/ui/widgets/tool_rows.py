"""How a tool call is drawn: rows of (text, component-class style) built from its
`ToolActivity`, cheap enough to rebuild on every event; they become one `Content` (never parsed as
markup) only when painted. Shared by the progress pane's entries and the chat's tool blocks.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.content import Content, Span

from agent_tui.ui.views.tool_activity import (
    TAIL_LINES,
    Phase,
    SearchRecord,
    ToolActivity,
    search_error_text,
)

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

# Component classes shared by the pane entries and the chat blocks, styled in their .tcss files.
TOOL_COMPONENT_CLASSES: set[str] = {
    "tool--name",
    "tool--subject",
    "tool--dim",
    "tool--running",
    "tool--ok",
    "tool--error",
    "tool--warning",
    "tool--query",
    "tool--count",
    "tool--output",
    "tool--link",
}


Segment = tuple[str, str]  # (text, component-class style such as ".tool--ok")
Row = list[Segment]

_PHASE_STYLE = {
    Phase.PENDING: ".tool--dim",
    Phase.RUNNING: ".tool--running",
    Phase.DONE: ".tool--ok",
    Phase.ERROR: ".tool--error",
    Phase.STOPPED: ".tool--warning",
}
_PHASE_ICON = {
    Phase.PENDING: "○",
    Phase.DONE: "✓",
    Phase.ERROR: "✗",
    Phase.STOPPED: "■",
}
_INDENT: Segment = ("  ", "")


def phase_icon(activity: ToolActivity, spinner_frame: int | None) -> Segment:
    """✓ / ✗ / ■ when finished; a spinner frame (or a still dot) while running."""
    if activity.phase is Phase.RUNNING:
        icon = "●" if spinner_frame is None else SPINNER[spinner_frame % len(SPINNER)]
    else:
        icon = _PHASE_ICON[activity.phase]
    return (icon, _PHASE_STYLE[activity.phase])


def header_row(activity: ToolActivity, icon: Segment, elapsed: float | None = None) -> Row:
    row: Row = [icon, (" ", ""), (activity.name or "tool", ".tool--name")]
    if activity.subject:
        row += [("  ", ""), (activity.subject, ".tool--subject")]
    # Only once it is worth watching; also keeps fast tools (and snapshots) free of a clock.
    if elapsed is not None and elapsed >= 1.0 and activity.phase is Phase.RUNNING:
        row.append((f"  {elapsed:.1f}s", ".tool--dim"))
    return row


def search_row(search: SearchRecord, prefix: str = "searching: ") -> Row:
    row: Row = [(prefix, ".tool--dim"), (search.query, ".tool--query")]
    if search.error_code:
        row.append((f"  {search_error_text(search.error_code)}", ".tool--warning"))
    elif search.done:
        noun = "result" if search.count == 1 else "results"
        row.append((f"  {search.count} {noun}", ".tool--count"))
    return row


def summary_style(activity: ToolActivity) -> str:
    return ".tool--error" if activity.phase is Phase.ERROR else _PHASE_STYLE[activity.phase]


def entry_rows(activity: ToolActivity, icon: Segment, elapsed: float | None) -> list[Row]:
    """The pane entry for one tool call: a header row, then the indented body."""
    return [header_row(activity, icon, elapsed), *([_INDENT, *r] for r in body_rows(activity))]


#: tools whose live steps fold into their one-line summary when they finish (a sub-agent's)
FOLD_WHEN_DONE = ("Task",)


def body_rows(activity: ToolActivity) -> list[Row]:
    rows: list[Row] = []
    if activity.finished and activity.name in FOLD_WHEN_DONE:
        return [[(activity.summary, summary_style(activity))]] if activity.summary else []
    if activity.is_search:
        rows += [search_row(s) for s in activity.searches]
    # WebFetch reports its final status as the summary too; say it once.
    if activity.status and not (activity.finished and activity.status == activity.summary):
        style = ".tool--warning" if activity.status_is_warning else ".tool--dim"
        if activity.phase is Phase.ERROR and not activity.summary:
            style = ".tool--error"
        rows.append([(activity.status, style)])
    if not activity.is_search:
        tail = activity.output_tail()
        # A replayed Bash call may come without progress events; its result has the output.
        if not tail and activity.result_lines and activity.name == "Bash":
            tail = (activity.result_head + activity.result_tail)[-TAIL_LINES:]
            hidden = activity.result_lines - len(tail)
        else:
            hidden = activity.hidden_lines
        if hidden > 0:
            noun = "line" if hidden == 1 else "lines"
            rows.append([(f"… {hidden:,} earlier {noun}", ".tool--dim")])
        rows += [[(line, ".tool--output")] for line in tail]
    if activity.finished:
        summary = activity.search_summary() if activity.is_search else activity.summary
        if summary:
            rows.append([(summary, summary_style(activity))])
    return rows


#: the parts of a row cut in the middle where it is too wide: their start and their end both
#: tell calls apart (two searches cut at the end to the same text at 120 columns)
MIDDLE_CUT = (".tool--subject", ".tool--query")
#: characters of such a part kept at least (else the row is left to the pane's end ellipsis)
MIDDLE_KEPT = 12


def fit_rows(rows: list[Row], width: int) -> list[Row]:
    """`rows` for a pane `width` cells wide (0: unknown): in a row too wide, its subject or
    query keeps its start and its end around a "…", so what follows (a count) shows too."""
    return rows if width <= 0 else [_fit(row, width) for row in rows]


def _fit(row: Row, width: int) -> Row:
    over = sum(cell_len(text) for text, _ in row) - width
    if over <= 0:
        return row
    for i, (text, style) in enumerate(row):
        keep = len(text) - over - 1
        if style in MIDDLE_CUT and keep >= MIDDLE_KEPT:
            head = (keep + 1) // 2
            cut = text[:head] + "…" + text[len(text) - (keep - head) :]
            return [*row[:i], (cut, style), *row[i + 1 :]]
    return row


def rows_to_content(rows: list[Row]) -> Content:
    """One `Content` for all rows (plain text and spans; never parsed as markup)."""
    texts: list[str] = []
    spans: list[Span] = []
    position = 0
    for n, row in enumerate(rows):
        if n:
            texts.append("\n")
            position += 1
        for text, style in row:
            if style and text:
                spans.append(Span(position, position + len(text), style))
            texts.append(text)
            position += len(text)
    return Content("".join(texts), spans)


def row_content(row: Row) -> Content:
    return rows_to_content([row])
