"""The session store failing under the running app (issue 27.3): the agent keeps working, one
notice says so, the status stays right, later prompts are not stuck "queued", and what was typed
is saved once the store works again. A damaged database and one from a newer agent-tui are said
in one line, and neither leaves the app at "starting…"."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from app_helpers import make_app, type_prompt, wait_for
from store_faults import DISK_FULL, FaultyStore, damage, make_newer, make_sessions

from agent_tui.sessions.recorder import NOT_RECORDING, RESUMED
from agent_tui.sessions.store import SessionStore
from agent_tui.ui.chat.messages import AssistantMessage, NoticeMessage
from agent_tui.ui.widgets.prompt import QueuedPrompts

pytestmark = pytest.mark.usefixtures("offline_env")


def notices(app: Any) -> list[str]:
    return [n.text for n in app.query(NoticeMessage)]


async def send(pilot: Any, app: Any, prompt: str) -> None:
    """Type a prompt and wait until its answer is in and the turn is over."""
    answers = len(app.query(AssistantMessage))
    await type_prompt(pilot, prompt)
    await wait_for(
        pilot, lambda: len(app.query(AssistantMessage)) > answers and not app.turns.running, 20
    )


async def test_a_full_disk_mid_session_is_said_once_and_the_prompts_are_saved_when_it_is_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = FaultyStore(Path(os.environ["AGENT_TUI_HOME"]) / "sessions.db")
    monkeypatch.setattr(SessionStore, "open_default", classmethod(lambda cls: store))
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await send(pilot, app, "hello")
        session = app.recorder.session_id
        assert session and app.status.session == session
        store.fault = DISK_FULL
        await send(pilot, app, "tell me more")
        said = [n for n in notices(app) if NOT_RECORDING in n]
        assert len(said) == 1 and "the disk is full" in said[0]
        assert app.status.activity == "ready"
        assert app.status.session == f"{session} (not recorded)"
        # typed while a turn runs: queued, then sent (not stuck behind a dead turn)
        await type_prompt(pilot, "one more")
        await type_prompt(pilot, "and another")
        await wait_for(
            pilot,
            lambda: not app.turns.running and not app.turns.queued and len(app.agent.messages) >= 8,
        )
        assert not app.query(QueuedPrompts) or not app.query_one(QueuedPrompts).texts
        assert len([n for n in notices(app) if NOT_RECORDING in n]) == 1  # said once
        prompts = ["hello", "tell me more", "one more", "and another"]
        assert store.messages.load(session)[2:] == []  # nothing after the fault is on disk

        store.fault = None  # space freed: the next prompt saves everything kept in memory
        await send(pilot, app, "back again")
        assert any(RESUMED in n for n in notices(app))
        assert app.status.session == session
        assert store.messages.load(session, repair=False) == app.agent.messages
        stored = [
            e.event.prompt for e in store.events.load(session) if e.event.kind == "turn_started"
        ]
        assert stored == [*prompts, "back again"]


async def test_a_damaged_database_is_said_in_one_line_and_prompts_are_answered(
    tmp_path: Path,
) -> None:
    db = Path(os.environ["AGENT_TUI_HOME"]) / "sessions.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    make_sessions(db, tmp_path, 300)
    damage(db)
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await send(pilot, app, "hello")
        await send(pilot, app, "hello again")  # not swallowed
        said = [n for n in notices(app) if NOT_RECORDING in n]
        assert len(said) == 1 and "damaged" in said[0] and "\n" not in said[0]
        assert app.status.activity == "ready"


@pytest.mark.parametrize("resume", [False, True])
async def test_a_database_from_a_newer_agent_tui_never_leaves_it_starting(
    tmp_path: Path, resume: bool
) -> None:
    db = Path(os.environ["AGENT_TUI_HOME"]) / "sessions.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    make_newer(db)
    app = make_app(tmp_path, record=True, continue_=resume)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        assert app.status.activity == "ready"
        said = [n for n in notices(app) if "not being recorded" in n]
        assert len(said) == 1 and "newer than this agent-tui" in said[0]
        await send(pilot, app, "hello")


async def test_a_damaged_database_with_continue_starts_a_new_unrecorded_session(
    tmp_path: Path,
) -> None:
    db = Path(os.environ["AGENT_TUI_HOME"]) / "sessions.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    make_sessions(db, tmp_path / "work", 300)
    damage(db)
    app = make_app(tmp_path, record=True, continue_=True)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        assert app.status.activity == "ready"
        said = [n for n in notices(app) if "not being recorded" in n]
        assert len(said) == 1 and "damaged" in said[0]
        await send(pilot, app, "hello")


async def test_moving_an_unopenable_database_aside_records_the_session_from_the_next_prompt(
    tmp_path: Path,
) -> None:
    db = Path(os.environ["AGENT_TUI_HOME"]) / "sessions.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    make_newer(db)
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await send(pilot, app, "hello")  # answered, unrecorded
        assert app.recorder is None
        db.rename(db.with_name("sessions.db.newer"))
        await send(pilot, app, "hello again")
        assert any("Recording started" in n for n in notices(app))
        with SessionStore(db) as store:
            (info,) = store.sessions.recent()
            assert store.messages.load(info.id, repair=False) == app.agent.messages
            assert len(app.agent.messages) == 4


async def test_the_browser_says_a_damaged_database_in_one_line(tmp_path: Path) -> None:
    from agent_tui.ui.screens.sessions import SessionBrowser

    db = Path(os.environ["AGENT_TUI_HOME"]) / "sessions.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    make_sessions(db, tmp_path / "work", 300)
    damage(db)
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser) and app.screen.loaded)
        assert "damaged" in (app.screen.store_error or "")
        shown = str(app.screen.query_one("#session-empty").render())
        assert "Sessions can't be listed" in shown and "damaged" in shown
        assert app.is_running


@pytest.mark.parametrize("how", ["disk full", "newer"])
async def test_export_saves_an_unrecorded_session_from_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    home = Path(os.environ["AGENT_TUI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    if how == "newer":
        make_newer(home / "sessions.db")
    else:
        store = FaultyStore(home / "sessions.db")
        store.fault = DISK_FULL
        monkeypatch.setattr(SessionStore, "open_default", classmethod(lambda cls: store))
    app = make_app(tmp_path, record=True)
    out = tmp_path / "kept.md"
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await send(pilot, app, "hello there")
        await type_prompt(pilot, f"/export {out}")
        await wait_for(pilot, lambda: out.exists())
    text = out.read_text()
    assert text.startswith("# Unrecorded session")
    assert "hello there" in text and "offline model" in text
    assert ("the disk is full" if how == "disk full" else "couldn't be opened") in text
