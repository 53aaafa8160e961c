"""What a rule would have changed in this project's past sessions, for the approval dialog's
"always" and the `/permissions` view (the rule simulator, `permissions/simulate.py`). Call from a
worker thread: it reads the session store and parses every distinct stored command once."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agent_tui.permissions.types import Behavior

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.sessions.store import SessionStore


def rule_preview(
    agent: Agent | None,
    open_store: Callable[[], SessionStore],
    rules: tuple[str, ...],
    behavior: Behavior = "allow",
) -> str:
    """The simulator's report, or one line saying why there is none."""
    from agent_tui.permissions.rules import RuleError
    from agent_tui.permissions.simulate import preview
    from agent_tui.sessions.records import StoreUnavailable
    from agent_tui.tools.subject import tool_subject

    if agent is None:
        return ""
    try:
        store = open_store()
        calls = lambda: store.runs.past_calls(agent.config.cwd)  # noqa: E731
        return preview(agent.permissions, calls, rules, behavior, tool_subject)
    except RuleError as exc:
        return f"can't try it: {exc}"
    except (StoreUnavailable, OSError) as exc:
        return f"past sessions can't be read: {exc}"
