"""A replay's side panes: only what the replayed session had at that point, and the live
session's plan, calls and approvals back as they were when the replay ends (issue 31, bug 10)."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import wait_for

from agent_tui.protocol import events as ev
from agent_tui.ui.app import AgentApp
from agent_tui.ui.controllers.replay import INSTANT
from agent_tui.ui.widgets.tool_pane import ToolPane

from .test_replay import SIZE, make_app, offline_env, record  # noqa: F401 (a fixture)

LIVE_PLAN = [
    {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
    {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
]
REPLAYED_PLAN = [{"content": "Write the docs", "status": "pending", "activeForm": "Writing"}]


def live_turn(app: AgentApp) -> None:
    """A live turn as the agent's events draw it: a plan, a command the person allowed, a
    file read a rule allowed."""
    view = app.live_view
    for event in (
        ev.TurnStarted("fix the bug"),
        ev.ToolCallReady(0, "toolu_plan", "TodoWrite", {"todos": LIVE_PLAN}),
        ev.ToolFinished("toolu_plan", "TodoWrite", False, "plan updated", 0.0, ""),
        ev.ToolCallReady(1, "toolu_live", "Bash", {"command": "make test"}),
        ev.ApprovalRequested("toolu_live", "Bash", "make test", "no rule allows `make`"),
        ev.ApprovalDecided("toolu_live", "Bash", "make test", "allow", "user"),
        ev.ToolFinished("toolu_live", "Bash", False, "exit 0", 0.5, "ok"),
        ev.ToolCallReady(2, "toolu_read", "Read", {"file_path": "README.md"}),
        ev.ApprovalDecided("toolu_read", "Read", "README.md", "allow", "rule", "Read"),
        ev.ToolFinished("toolu_read", "Read", False, "12 lines", 0.0, ""),
        ev.TurnFinished("end_turn", ev.Usage(10, 5), 0.001, 1),
    ):
        view.handle(event)


def replayed_session(plan_at: int) -> list[ev.Event]:
    """A recorded turn whose plan is written after `plan_at` events."""
    events: list[ev.Event] = [
        ev.TurnStarted("write the docs"),
        ev.ToolCallReady(0, "toolu_ls", "Bash", {"command": "ls docs"}),
        ev.ApprovalDecided("toolu_ls", "Bash", "ls docs", "deny", "user", message="not now"),
        ev.ToolFinished("toolu_ls", "Bash", True, "denied", 0.0, ""),
        ev.TurnFinished("end_turn", ev.Usage(10, 5), 0.001, 1),
    ]
    plan = [
        ev.ToolCallReady(1, "toolu_p2", "TodoWrite", {"todos": REPLAYED_PLAN}),
        ev.ToolFinished("toolu_p2", "TodoWrite", False, "plan updated", 0.0, ""),
    ]
    return events[:plan_at] + plan + events[plan_at:]


def panes(app: AgentApp) -> tuple[object, ...]:
    pane = app.query_one("#tools", ToolPane)
    calls = [(a.id, a.phase, a.summary) for a in pane.activities]
    return pane.plan.display, pane.plan.todos, calls, app.main.approvals_log.entries


async def test_a_replay_shows_only_the_replayed_sessions_panes_then_the_live_ones_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = record(replayed_session(plan_at=3), monkeypatch)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        live_turn(app)
        pane = app.query_one("#tools", ToolPane)
        log = app.main.approvals_log
        await wait_for(pilot, lambda: pane.plan.display and len(log._rows) == 2)
        before = panes(app)
        assert before[1] == LIVE_PLAN and len(before[2]) == 3

        replay = app.sessions.start_replay(sid, speed=INSTANT)
        assert replay is not None
        # From the first frame: not the live plan, calls or decisions.
        assert not pane.plan.display and pane.activities == [] and log.entries == ()
        seen: list[tuple[bool, list[str], list[str]]] = []  # the panes after each event drawn
        draw = replay._draw

        def drawn(event: ev.Event) -> None:
            draw(event)
            calls = [a.id for a in pane._activities]
            seen.append((pane.plan.display, calls, [e.tool_use_id for e in log.entries]))

        replay._draw = drawn  # type: ignore[method-assign]
        await wait_for(pilot, lambda: replay.state == "finished")
        assert seen == [
            (False, [], []),  # TurnStarted
            (False, ["toolu_ls"], []),
            (False, ["toolu_ls"], ["toolu_ls"]),  # the replayed session's decision alone
            (True, ["toolu_ls", "toolu_p2"], ["toolu_ls"]),  # its own plan, once written
            (True, ["toolu_ls", "toolu_p2"], ["toolu_ls"]),
            (True, ["toolu_ls", "toolu_p2"], ["toolu_ls"]),
            (True, ["toolu_ls", "toolu_p2"], ["toolu_ls"]),
        ]
        assert pane.plan.todos == REPLAYED_PLAN

        await pilot.press("escape")  # back to the conversation
        await wait_for(pilot, lambda: app.sessions.replay is None)
        await wait_for(pilot, lambda: panes(app) == before and len(log._rows) == 2)
        await wait_for(pilot, lambda: len(pane.query("ToolEntry")) == 3)


async def test_leaving_a_replay_hides_its_plan_when_the_live_session_has_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = record(replayed_session(plan_at=1), monkeypatch)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        pane = app.query_one("#tools", ToolPane)
        replay = app.sessions.start_replay(sid, speed=INSTANT)
        assert replay is not None
        await wait_for(pilot, lambda: replay.state == "finished")
        assert pane.plan.display
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.sessions.replay is None)
        await wait_for(pilot, lambda: not pane.plan.display)
        assert app.main.approvals_log.entries == () and pane.activities == []
