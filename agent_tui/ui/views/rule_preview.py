"""What a rule would have changed in this project's past sessions, for the approval dialog's
"always" and the `/permissions` view (the rule simulator, `permissions/simulate.py`). Call from a
worker thread: it reads the session store and parses every distinct stored command once."""

from __future__ import annotations

from typing import Any

from agent_tui.permissions.types import Behavior


def rule_preview(app: Any, rules: tuple[str, ...], behavior: Behavior = "allow") -> str:
    """The simulator's report, or one line saying why there is none."""
    from agent_tui.permissions.rules import RuleError
    from agent_tui.permissions.simulate import preview
    from agent_tui.sessions.records import StoreUnavailable

    agent = app.agent
    if agent is None:
        return ""
    try:
        store = app.session_store()
        return preview(
            agent.permissions, lambda: store.past_calls(agent.config.cwd), rules, behavior
        )
    except RuleError as exc:
        return f"can't try it: {exc}"
    except (StoreUnavailable, OSError) as exc:
        return f"past sessions can't be read: {exc}"
