"""The status line's activity: what the session is doing, in a few words. Written here only
(tests/ui/test_activity.py checks that no other module sets it): each state is a function named
for it, called by whoever knows the state began (the event view for a turn's phases, the boot
for approvals and the spending cap, the sessions controller for opening one, the replay)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.ui.widgets.status import StatusLine

READY = "ready"
WORKING = "working…"


def _say(status: StatusLine, text: str) -> None:
    status.activity = text


def ready(status: StatusLine) -> None:
    """Nothing runs: a prompt is taken."""
    _say(status, READY)


def working(status: StatusLine) -> None:
    """A turn runs (its request sent, or a wait for the person over)."""
    _say(status, WORKING)


def streaming(status: StatusLine) -> None:
    _say(status, "streaming…")


def running_tools(status: StatusLine) -> None:
    """The response asked for tools: not "streaming…" while its calls run."""
    _say(status, "running tools…")


def turn_ended(status: StatusLine, *, failed: bool) -> None:
    _say(status, "failed: ctrl+r retries" if failed else READY)


def could_not_start(status: StatusLine) -> None:
    _say(status, "could not start")


def awaiting_approval(status: StatusLine, tool: str) -> None:
    _say(status, f"waiting for your approval: {tool}")


def at_spending_cap(status: StatusLine) -> None:
    _say(status, "at the spending cap: waiting for you")


def asked_a_question(status: StatusLine) -> None:
    """AskUserQuestion: the model waits for the person's answers."""
    _say(status, "the model asks you a question")


def opening(status: StatusLine, session_id: str) -> None:
    _say(status, f"opening session {session_id}…")


def replaying(status: StatusLine, label: str) -> None:
    """A stored session plays (`label`: how far, or paused)."""
    _say(status, label)
