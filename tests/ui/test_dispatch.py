"""Every consumer of domain events dispatches by `on_<kind>` (`protocol.dispatch`), and says
what it does with every kind: handles it, routes it on (`ROUTED`), or draws nothing for it
(`IGNORED`) — never both ignored and used, never silently dropped."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import agent_tui
from agent_tui.protocol.dispatch import ALL_KINDS
from agent_tui.ui.controllers.agent_events import AgentEvents
from agent_tui.ui.controllers.replay import Replay
from agent_tui.ui.views.event_view import EventView
from agent_tui.ui.views.tool_activity import ToolActivities, ToolActivity
from agent_tui.ui.widgets.approvals_log import ApprovalsLog
from agent_tui.ui.widgets.tool_blocks import ToolBlock
from agent_tui.ui.widgets.tool_pane import ToolPane

CONSUMERS = (
    EventView,
    ToolPane,
    ToolActivities,
    ToolActivity,
    ToolBlock,
    ApprovalsLog,
    Replay,
    AgentEvents,
)


@pytest.mark.parametrize("consumer", CONSUMERS, ids=lambda c: c.__name__)
def test_every_kind_is_handled_routed_or_ignored(consumer: type) -> None:
    routed, ignored = consumer.ROUTED, consumer.IGNORED  # type: ignore[attr-defined]
    handled = {k for k in ALL_KINDS if callable(getattr(consumer, f"on_{k}", None))}
    assert routed <= ALL_KINDS and ignored <= ALL_KINDS, "a kind that is gone"
    used = handled | routed
    assert used | ignored == ALL_KINDS, f"not placed: {sorted(ALL_KINDS - used - ignored)}"
    assert not used & ignored, f"ignored, yet used: {sorted(used & ignored)}"


#: the consumers' modules, and app.py, which hands the agent's events on
MODULES = sorted(
    {inspect.getfile(c) for c in CONSUMERS}
    | {str(Path(agent_tui.__file__).parent / "ui" / "app.py")}
)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: Path(p).name)
def test_consumers_dispatch_by_name_not_by_class_or_kind_string(path: str) -> None:
    """No `match` on event classes, no `isinstance(event, …)`, no `event.kind == "…"`: one style."""
    tree = ast.parse(Path(path).read_text("utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Match) and ast.unparse(node.subject) == "event":
            found.append(f"match at {node.lineno}")
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", "") == "isinstance"
            and ast.unparse(node.args[0]) == "event"
        ):
            found.append(f"isinstance at {node.lineno}")
        if (
            isinstance(node, ast.Compare)
            and ast.unparse(node.left) == "event.kind"
            and any(isinstance(c, ast.Constant) for c in node.comparators)
        ):
            found.append(f"kind string at {node.lineno}")
    assert found == []
