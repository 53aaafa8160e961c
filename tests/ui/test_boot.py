"""Starting up when part of it can't be had: a session database that won't open, an agent that
can't be built. The person is told, in the chat, and nothing hangs at "starting…"."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from app_helpers import make_app, type_prompt, wait_for

from agent_tui.ui.chat.messages import AssistantMessage, NoticeMessage
from agent_tui.ui.screens.sessions import SessionBrowser
from agent_tui.ui.widgets.prompt import QueuedPrompts

pytestmark = pytest.mark.usefixtures("offline_env")


def notices(app: Any) -> list[str]:
    return [n.text for n in app.query(NoticeMessage)]


async def test_a_session_database_that_wont_open_leaves_the_app_working_unrecorded(
    tmp_path: Path,
) -> None:
    db = Path(os.environ["AGENT_TUI_HOME"]) / "sessions.db"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"not sqlite " * 100)
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        said = [n for n in notices(app) if "not being recorded" in n]
        assert said and str(db) in said[0] and "file is not a database" in said[0]
        assert app.recorder is None and app.status.activity == "ready"
        await type_prompt(pilot, "hello")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.query(AssistantMessage) and not app.turns.running)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser) and app.screen.loaded)
        assert app.screen.store_error and "file is not a database" in app.screen.store_error
        assert app.is_running
        assert db.read_bytes() == b"not sqlite " * 100  # left as it was
        db.rename(db.with_name("sessions.db.broken"))  # moved aside: the next listing opens
        browser = app.screen
        browser.query_text = "nothing like this"
        browser._reload()
        await wait_for(pilot, lambda: browser.store_error is None)
        assert "No sessions match" in str(browser.query_one("#session-empty").render())


async def test_an_agent_that_cant_be_built_is_said_not_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent_tui.runtime

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("no tools today")

    monkeypatch.setattr(agent_tui.runtime, "make_agent", broken)
    app = make_app(tmp_path)
    told: list[str] = []
    notify = app.notify

    def heard(message: str, **kwargs: Any) -> None:
        told.append(message)
        notify(message, **kwargs)

    app.notify = heard  # type: ignore[method-assign]
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.boot.error is not None)
        assert app.boot.error == "RuntimeError: no tools today"
        assert any("could not start: RuntimeError: no tools today" in n for n in notices(app))
        assert app.status.activity == "could not start"
        await type_prompt(pilot, "hello")
        await pilot.press("enter")
        await pilot.pause()
        assert app.query_one(QueuedPrompts).texts == ["hello"]  # kept, not lost
        assert told[-1].startswith("The agent could not start")


@pytest.mark.parametrize("resuming", [False, True])
async def test_git_status_starts_as_the_build_begins_and_is_waited_for_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, resuming: bool
) -> None:
    """The system prompt's `git status` starts once, in the boot worker as the agent's build
    begins (after the first frame: nothing of git's before it), and is waited for only when the
    prompt is written, once the rest of the agent is built; the prompt says what git said."""
    import subprocess
    import threading

    import agent_tui.agent.system_prompt as system_prompt
    import agent_tui.runtime as runtime
    from agent_tui.sessions.store import SessionStore
    from agent_tui.ui.startup.boot import BootFlow

    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "trunk", str(work)], check=True)
    session_id = ""
    if resuming:
        with SessionStore.open_default() as store:
            session_id = store.sessions.create(work, "offline", title="resumed")
            store.messages.add(session_id, "user", "hello")
            store.messages.add(session_id, "assistant", [{"type": "text", "text": "hi"}])
    steps: list[str] = []

    def step(name: str, real: Any) -> Any:
        def recorded(*args: Any, **kwargs: Any) -> Any:
            on_ui = threading.current_thread() is threading.main_thread()
            steps.append(f"{name} on the UI thread" if on_ui else name)
            return real(*args, **kwargs)

        return recorded

    monkeypatch.setattr(
        system_prompt, "start_git_summary", step("git", system_prompt.start_git_summary)
    )
    monkeypatch.setattr(BootFlow, "start", step("boot", BootFlow.start))
    monkeypatch.setattr(runtime, "make_tools", step("tools", runtime.make_tools))
    monkeypatch.setattr(runtime, "system_prompt", step("prompt", runtime.system_prompt))
    app = make_app(tmp_path, record=resuming, resume=session_id or None)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.agent is not None and app.status.activity == "ready")
        assert app.agent is not None
        assert steps == ["boot on the UI thread", "git", "tools", "prompt"]
        if not resuming:  # a resumed session keeps the prompt it was recorded with
            assert "- Git (at the start of this session): branch trunk" in app.agent.config.system
