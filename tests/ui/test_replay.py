"""Replay of a recorded session on the main screen: drawn through the live rendering path, with
nothing sent to a model and no tool run."""

from __future__ import annotations

import math
from collections.abc import Iterator
from itertools import count
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from app_helpers import wait_for

import agent_tui.sessions.event_buffer as event_log_mod
from agent_tui.protocol import events as ev
from agent_tui.runtime import Options
from agent_tui.sessions.store import SessionStore, StoredEvent
from agent_tui.ui.app import AgentApp
from agent_tui.ui.chat.messages import AssistantMessage, NoticeMessage, UserMessage
from agent_tui.ui.controllers.replay import INSTANT, MAX_PAUSE_S, Replay, ReplayBar, pause
from agent_tui.ui.screens.sessions import SessionBrowser
from agent_tui.ui.widgets.approvals_log import ApprovalsLog
from agent_tui.ui.widgets.prompt import PromptInput
from agent_tui.ui.widgets.tool_blocks import ToolBlock

SIZE = (110, 36)


@pytest.fixture(autouse=True)
def offline_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENT_TUI_OFFLINE_DELAY", "0")
    yield


def recorded_events(marker: Path) -> list[ev.Event]:
    """A turn with a command that needed approval and a web search."""
    command = f"touch {marker}"
    return [
        ev.TurnStarted("make a marker and look it up"),
        ev.MessageStarted("msg_1", "claude-sonnet-4-5"),
        ev.TextDelta(0, "I'll create "),
        ev.TextDelta(0, "the marker."),
        ev.ToolCallStarted(1, "toolu_1", "Bash"),
        ev.ToolCallReady(1, "toolu_1", "Bash", {"command": command}),
        ev.MessageFinished("tool_use", ev.Usage(100, 20), []),
        ev.ApprovalRequested("toolu_1", "Bash", command, "no rule allows `touch`"),
        ev.ApprovalDecided("toolu_1", "Bash", command, "allow", "user"),
        ev.ToolProgress("toolu_1", "Bash", status="running", output=""),
        ev.ToolFinished("toolu_1", "Bash", False, "exit 0", 0.2, ""),
        ev.ToolCallStarted(0, "toolu_2", "WebSearch"),
        ev.ToolCallReady(0, "toolu_2", "WebSearch", {"query": "textual replay"}),
        ev.ApprovalDecided("toolu_2", "WebSearch", "textual replay", "allow", "rule", "WebSearch"),
        ev.SearchQueryUpdate("toolu_2", "textual re"),
        ev.SearchQueryUpdate("toolu_2", "textual replay"),
        ev.SearchResultsReceived("toolu_2", "textual replay", 3),
        ev.ToolFinished("toolu_2", "WebSearch", False, "Did 1 search in 1.0s", 1.0, ""),
        ev.MessageStarted("msg_2", "claude-sonnet-4-5"),
        ev.TextDelta(0, "Done: the marker exists."),
        ev.TurnFinished("end_turn", ev.Usage(300, 40), 0.0042, 2),
    ]


def record(events: list[ev.Event], monkeypatch: pytest.MonkeyPatch, gap: float = 0.0) -> str:
    """Store the events as a session; `gap` seconds between them (a fake clock)."""
    clock = count()
    with SessionStore.open_default() as store:
        sid = store.sessions.create("/srv/app", "claude-sonnet-4-5", title="replay me")
        with monkeypatch.context() as m:
            m.setattr(event_log_mod, "time", SimpleNamespace(time=lambda: 1e9 + next(clock) * gap))
            for event in events:
                store.events.append(sid, event)
    return sid


def make_app(tmp_path: Path) -> AgentApp:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return AgentApp(Options(cwd=work), record=True)


def notices(app: AgentApp) -> list[str]:
    return [w.text for w in app.query(NoticeMessage)]


def test_pause_keeps_scaled_timing_and_caps_long_gaps() -> None:
    a, b, c = (StoredEvent(i, ts, ev.Notice("info", "x")) for i, ts in enumerate((0, 0.5, 60)))
    assert pause(a, b, 1.0) == 0.5
    assert pause(a, b, 4.0) == 0.125
    assert pause(b, c, 1.0) == MAX_PAUSE_S
    assert pause(b, c, 4.0) == MAX_PAUSE_S / 4
    assert pause(b, c, INSTANT) == 0.0
    assert pause(c, a, 1.0) == 0.0  # clocks can step back


async def test_instant_replay_draws_everything_and_runs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "work" / "MARKER"
    sid = record(recorded_events(marker), monkeypatch)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        sent: list[Any] = []
        monkeypatch.setattr(app.agent.provider, "stream", lambda *a, **k: sent.append(a))
        replay = app.sessions.start_replay(sid, speed=INSTANT)
        assert isinstance(replay, Replay)
        await wait_for(pilot, lambda: replay.state == "finished")
        answers = ["I'll create the marker.", "Done: the marker exists."]
        await wait_for(pilot, lambda: [m.text for m in app.query(AssistantMessage)] == answers)
        assert [str(w.render()) for w in app.query(UserMessage)] == ["make a marker and look it up"]
        blocks = {b.tool_use_id: b for b in app.query(ToolBlock)}
        assert set(blocks) == {"toolu_1", "toolu_2"}
        assert any("Asked for approval: Bash touch" in n for n in notices(app))
        assert len(app.query_one(ApprovalsLog)._rows) == 2
        assert app.status.cost == pytest.approx(0.0042)
        assert f"replay of session {sid} finished" in app.status.activity
        assert f"Replay of session {sid}: replay me" in notices(app)
        # Nothing ran: no request, no tool, no change to the conversation or the store.
        assert not marker.exists() and sent == [] and app.agent.messages == []
        assert app.query_one(PromptInput).disabled
        with SessionStore.open_default() as store:
            assert store.sessions.count() == 1
        # Esc leaves the replay: the prompt is back, the chat shows the (empty) conversation.
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.sessions.replay is None)
        assert not app.query_one(PromptInput).disabled and not app.query(ReplayBar)
        await wait_for(pilot, lambda: not app.query(UserMessage))


async def test_replay_from_the_browser_with_speed_keys_then_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 1.5 s between events: at 1× this plays for half a minute, so the keys find it playing.
    sid = record(recorded_events(tmp_path / "work" / "MARKER"), monkeypatch, gap=1.5)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser) and app.screen.loaded)
        await pilot.press("r")
        await wait_for(
            pilot,
            lambda: app.sessions.replay is not None and app.sessions.replay.state == "playing",
        )
        replay = app.sessions.replay
        assert app.chat.on_pruned is None  # a replay's prompts are not the live conversation's
        assert replay.speed == 1.0
        assert app.query_one(ReplayBar).has_focus
        assert f"replaying session {sid} at 1×" in app.status.activity
        await pilot.press("4")
        await wait_for(pilot, lambda: "at 4×" in app.status.activity)
        assert replay.speed == 4.0 and replay.state == "playing"
        await pilot.press("i")
        await wait_for(pilot, lambda: replay.state == "finished")
        assert math.isinf(replay.speed)
        # Enter after the replay resumes that session.
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: app.recorder.session_id == sid and app.sessions.replay is None
        )
        assert not app.query_one(PromptInput).disabled
        assert app.chat.on_pruned == app.live_view._pruned  # pruned turns page back in again


async def test_escape_stops_a_replay_midway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = record(recorded_events(tmp_path / "work" / "MARKER"), monkeypatch, gap=1.5)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        replay = app.sessions.start_replay(sid)
        assert replay is not None
        await wait_for(pilot, lambda: replay.state == "playing" and replay.shown >= 2)
        await pilot.press("escape")
        await wait_for(pilot, lambda: replay.state == "stopped")
        shown = replay.shown
        assert shown < replay.total and "stopped" in app.status.activity
        await pilot.pause()  # whatever was pending has run: still nothing more
        assert replay.shown == shown  # nothing more is drawn once stopped


async def test_a_replay_the_store_cannot_load_says_so_and_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    sid = record(recorded_events(tmp_path / "work" / "MARKER"), monkeypatch)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)

        def unreadable(session_id: str) -> list[StoredEvent]:
            raise sqlite3.DatabaseError("database disk image is malformed")

        monkeypatch.setattr(app.sessions.store().events, "load", unreadable)
        replay = app.sessions.start_replay(sid)
        assert replay is not None
        # said in one line, and stopped: not "loading…" for ever
        await wait_for(pilot, lambda: replay.state == "stopped")
        said = [n for n in notices(app) if n.startswith("The replay stopped on an error")]
        assert said == [
            "The replay stopped on an error: DatabaseError: database disk image is malformed"
        ]
        assert "stopped" in app.status.activity and app.is_running
        await pilot.press("escape")  # back to the conversation, as after any stop
        await wait_for(pilot, lambda: app.sessions.replay is None)
        assert not app.query_one(PromptInput).disabled
