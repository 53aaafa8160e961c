"""The approval dialog's review lines, as Content (untrusted text never parsed as markup): the
rubber-stamp guard's countdown and what differs from the last approved call, and what the
"always" rule would have allowed in past sessions (the rule simulator's report)."""

from __future__ import annotations

from collections.abc import Callable

from textual.content import Content

from agent_tui.text import visible
from agent_tui.ui.controllers.stamp_guard import Pause


def pause_content(pause: Pause, left: float | None) -> Content:
    """`left`: seconds until keys answer (None: the dialog isn't shown yet)."""
    if left is not None and left <= 0:
        return Content.assemble(("keys active", "bold"), f" — {pause.why}")
    wait = pause.seconds if left is None else left
    return Content.assemble((f"keys active in {wait:.1f} s", "bold"), f" — {pause.why}")


def differs_content(pause: Pause) -> Content:
    """What differs from the last approved call, marked."""
    head = Content.assemble(("differs from the last call you approved: ", "italic"))
    if not any(changed for _, changed in pause.differs):
        return head + Content("nothing: the same call again")
    parts = [
        Content(visible(text)).stylize("reverse bold") if changed else Content(visible(text))
        for text, changed in pause.differs
    ]
    return head + Content("").join(parts)


def simulation_text(simulate: Callable[[tuple[str, ...]], str], rules: tuple[str, ...]) -> str:
    """The simulator's report for the rules (in a worker thread); the dialog works without it."""
    try:
        return simulate(rules)
    except Exception as exc:
        return f"can't tell ({type(exc).__name__}: {exc})"


def simulation_content(text: str, lines: int = 3) -> Content:
    first, *rest = (text or "no past sessions to compare").split("\n")
    shown = Content.assemble(("in past sessions: ", "italic"), visible(first))
    for line in rest[:lines]:
        shown += Content("\n  " + visible(line))
    return shown
