"""`--continue` of a session another agent-tui has open (issue 27.8): the app says so and offers
a fork instead of interleaving the two processes' turns."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from app_helpers import make_app, wait_for

from agent_tui.sessions.session_lock import SessionLock
from agent_tui.sessions.store import SessionStore
from agent_tui.ui.chat.messages import NoticeMessage
from agent_tui.ui.screens.confirm import ConfirmScreen

pytestmark = pytest.mark.usefixtures("offline_env")


@pytest.mark.parametrize("fork", [True, False])
async def test_continuing_a_session_in_use_offers_a_fork(tmp_path: Path, fork: bool) -> None:
    db = Path(os.environ["AGENT_TUI_HOME"]) / "sessions.db"
    with SessionStore(db) as store:
        sid = store.sessions.create(tmp_path / "work", "claude-test", "the other one")
        store.messages.add(sid, "user", "hello")
        store.messages.add(sid, "assistant", [{"type": "text", "text": "hi"}])
    held = SessionLock.take(db, sid)  # as another process would hold it
    try:
        app = make_app(tmp_path, record=True, continue_=True)
        async with app.run_test(size=(110, 30)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            assert f"session {sid} is in use by another agent-tui" in app.screen.question
            await pilot.press("y" if fork else "n")
            await wait_for(pilot, lambda: app.agent is not None and app.recorder is not None)
            said = " ".join(n.text for n in app.query(NoticeMessage))
            if fork:
                assert "a copy of it (a fork)" in said
                assert app.recorder.session_id not in (None, sid)
                assert len(app.agent.messages) == 2  # the conversation so far, in the copy
            else:
                assert "this is a new session" in said
                assert app.recorder.session_id is None and app.agent.messages == []
    finally:
        if held is not None:
            held.release()


@pytest.mark.parametrize("fork", [True, False])
async def test_resuming_from_the_browser_a_session_in_use_offers_a_fork(
    tmp_path: Path, fork: bool
) -> None:
    from agent_tui.ui.screens.sessions import SessionBrowser

    db = Path(os.environ["AGENT_TUI_HOME"]) / "sessions.db"
    with SessionStore(db) as store:
        sid = store.sessions.create(tmp_path / "work", "claude-test", "the other one")
        store.messages.add(sid, "user", "hello")
        store.messages.add(sid, "assistant", [{"type": "text", "text": "hi"}])
    held = SessionLock.take(db, sid)
    try:
        app = make_app(tmp_path, record=True)
        async with app.run_test(size=(110, 30)) as pilot:
            await wait_for(pilot, lambda: app.agent is not None)
            await pilot.press("ctrl+o")
            await wait_for(
                pilot, lambda: isinstance(app.screen, SessionBrowser) and app.screen.rows
            )
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            assert f"session {sid} is in use by another agent-tui" in app.screen.question
            await pilot.press("y" if fork else "n")
            if fork:
                await wait_for(pilot, lambda: len(app.agent.messages) == 2)
                assert app.recorder.session_id not in (None, sid)
                assert app.status.session == app.recorder.session_id
            else:
                await wait_for(pilot, lambda: app.status.activity == "ready")
                assert app.agent.messages == [] and app.recorder.session_id is None
    finally:
        if held is not None:
            held.release()


async def test_the_browser_doesnt_delete_a_session_in_use(tmp_path: Path) -> None:
    from agent_tui.ui.screens.sessions import SessionBrowser

    db = Path(os.environ["AGENT_TUI_HOME"]) / "sessions.db"
    with SessionStore(db) as store:
        sid = store.sessions.create(tmp_path / "work", "claude-test", "the other one")
        store.messages.add(sid, "user", "hello")
    held = SessionLock.take(db, sid)
    told: list[str] = []
    try:
        app = make_app(tmp_path, record=True)
        notify = app.notify

        def heard(message: str, **kwargs: object) -> None:
            told.append(message)
            notify(message, **kwargs)  # type: ignore[arg-type]

        app.notify = heard  # type: ignore[method-assign]
        async with app.run_test(size=(110, 30)) as pilot:
            await wait_for(pilot, lambda: app.agent is not None)
            await pilot.press("ctrl+o")
            await wait_for(
                pilot, lambda: isinstance(app.screen, SessionBrowser) and app.screen.rows
            )
            browser = app.screen
            await pilot.press("d")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("y")
            await wait_for(pilot, lambda: any("not deleted" in m for m in told))
            assert [r.info.id for r in browser.rows] == [sid]
        with SessionStore(db) as store:
            assert store.sessions.get(sid) is not None
    finally:
        if held is not None:
            held.release()
