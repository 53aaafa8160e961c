"""`--resume` / `--continue` show the conversation before the agent is built: the boot reads the
end of the session ahead (`booting.read_ahead`: what a screen shows, whatever the session's
length), draws it, then reads the whole and builds the agent from it. What was drawn is what the
agent holds at the same place; when it is not, the chat is drawn again from the agent."""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from app_helpers import make_app, wait_for

from agent_tui.runtime import Options
from agent_tui.sessions.session_lock import SessionInUse, SessionLock
from agent_tui.sessions.store import SessionStore
from agent_tui.sessions.stored_session import StoredTail, read_tail
from agent_tui.ui.chat.messages import NoticeMessage, UserMessage
from agent_tui.ui.controllers.sessions import RESUMED
from agent_tui.ui.startup.booting import boot_agent, read_ahead
from agent_tui.ui.widgets.history import EarlierMessages

pytestmark = pytest.mark.usefixtures("offline_env")


def recorded(tmp_path: Path, turns: int, *, unanswered: bool = False) -> str:
    """A stored session of `turns` turns; with `unanswered`, its last tool call has no result
    (a killed process), which repair answers."""
    messages: list[dict[str, Any]] = []
    for n in range(turns):
        messages.append({"role": "user", "content": f"question {n}"})
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"answer {n}"}]})
    if unanswered:
        call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}
        messages.append({"role": "user", "content": "list the files"})
        messages.append({"role": "assistant", "content": [call]})
    (tmp_path / "work").mkdir(exist_ok=True)
    with SessionStore.open_default() as store:
        session_id = store.sessions.create(tmp_path / "work", "offline", title="resumed")
        store.messages.extend(session_id, messages)
    return session_id


@asynccontextmanager
async def resumed(tmp_path: Path, turns: int) -> AsyncIterator[Any]:
    """An app resuming a recorded session of `turns` turns, once the agent holds it and its last
    prompt is shown (once)."""
    app = make_app(tmp_path, record=True, resume=recorded(tmp_path, turns))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None and RESUMED in notices(app))
        await wait_for(pilot, lambda: f"question {turns - 1}" in prompts_shown(app))
        assert prompts_shown(app).count(f"question {turns - 1}") == 1
        yield app


def prompts_shown(app: Any) -> list[str]:
    return [str(m.render()) for m in app.chat.query(UserMessage)]


def notices(app: Any) -> list[str]:
    return [n.text for n in app.query(NoticeMessage)]


async def test_the_conversation_shows_while_the_agent_is_built_and_stays_as_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent_tui.runtime

    session_id = recorded(tmp_path, 30)
    build = agent_tui.runtime.make_agent
    go = threading.Event()

    def held_build(*args: Any, **kwargs: Any) -> Any:
        go.wait(30)  # the agent's build takes its time: the history is on screen meanwhile
        return build(*args, **kwargs)

    monkeypatch.setattr(agent_tui.runtime, "make_agent", held_build)
    app = make_app(tmp_path, record=True, resume=session_id)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: "question 29" in prompts_shown(app))
        assert app.agent is None  # not built yet
        drawn = list(app.chat.query(UserMessage))
        header = app.chat.header
        assert isinstance(header, EarlierMessages) and header.pager.hidden > 0
        assert RESUMED not in notices(app)  # said once the agent holds it
        go.set()
        await wait_for(pilot, lambda: app.agent is not None and RESUMED in notices(app))
        assert app.agent is not None and len(app.agent.messages) == 60
        # kept as drawn: the same widgets, not drawn a second time
        assert list(app.chat.query(UserMessage)) == drawn
        assert app.chat.header is header and header.pager.messages is app.agent.messages
        assert notices(app).count(RESUMED) == 1
        assert app.recorder is not None and app.recorder.session_id == session_id


async def test_a_conversation_the_agent_does_not_hold_as_drawn_is_drawn_again(
    tmp_path: Path,
) -> None:
    session_id = recorded(tmp_path, 5)
    app = make_app(tmp_path, record=True, resume=session_id)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None and RESUMED in notices(app))
        assert app.agent is not None
        before = list(app.chat.query(UserMessage))
        # drawn from other message objects than the agent's (a copy with one prompt changed)
        copy = [dict(m) for m in app.agent.messages]
        copy[0] = {"role": "user", "content": "not what the agent holds"}
        app.sessions.show_early(StoredTail(copy, 0), {})
        await wait_for(pilot, lambda: "not what the agent holds" in prompts_shown(app))
        app.sessions.agent_ready()
        await wait_for(pilot, lambda: "not what the agent holds" not in prompts_shown(app))
        await wait_for(pilot, lambda: "question 4" in prompts_shown(app))
        assert prompts_shown(app)[0] == "question 0"  # the agent's own, drawn anew
        assert not set(app.chat.query(UserMessage)) & set(before)


def test_the_session_read_ahead_is_what_the_agent_then_holds(tmp_path: Path) -> None:
    session_id = recorded(tmp_path, 3, unanswered=True)
    options = Options(offline=True, cwd=tmp_path / "work", resume=session_id, record=True)
    read = read_ahead(options)
    assert read is not None and read.session_id == session_id and read.session is None
    with SessionStore.open_default() as store:
        whole = store.messages.load(session_id)  # repaired, as loaded
    assert read.tail.messages[-1]["content"][0]["type"] == "tool_result"  # answered
    assert read.tail.agrees(whole)
    booted = boot_agent(options, record=True, ask_yes_no=lambda q: False, read=read)
    assert read.session is not None  # the whole, read by the boot, after the end was drawn
    assert booted.recorder is not None and booted.recorder.store is read.store
    assert booted.agent.messages == whole
    assert all(a is b for a, b in zip(booted.agent.messages, read.session.messages, strict=True))
    booted.recorder.close()


def long_session(tmp_path: Path, turns: int) -> tuple[str, list[dict[str, Any]]]:
    """A stored session of `turns` turns, every third with a tool call, and its messages."""
    messages: list[dict[str, Any]] = []
    for n in range(turns):
        messages.append({"role": "user", "content": f"question {n}"})
        if n % 3 == 0:
            tool_id, ls = f"toolu_{n}", {"command": "ls"}
            call = {"type": "tool_use", "id": tool_id, "name": "Bash", "input": ls}
            result = {"type": "tool_result", "tool_use_id": tool_id, "content": "a\nb"}
            messages.append({"role": "assistant", "content": [call]})
            messages.append({"role": "user", "content": [result]})
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"answer {n}"}]})
    (tmp_path / "work").mkdir(exist_ok=True)
    with SessionStore.open_default() as store:
        session_id = store.sessions.create(tmp_path / "work", "offline", title="long")
        store.messages.extend(session_id, messages)
    return session_id, messages


@pytest.mark.parametrize("count", [1, 2, 3, 5, 8, 13, 80, 1000])
def test_the_tail_read_is_the_end_of_the_whole_from_a_prompt(tmp_path: Path, count: int) -> None:
    session_id, messages = long_session(tmp_path, 40)
    with SessionStore.open_default() as store:
        tail = read_tail(store, session_id, count)
        whole = store.messages.load(session_id)
    assert whole == messages  # a valid conversation: repair leaves it as it is
    assert tail.agrees(whole)
    assert len(tail.messages) <= count
    assert not tail.messages or tail.messages[0]["role"] == "user"
    assert not tail.messages or isinstance(tail.messages[0]["content"], str)  # a prompt


def test_a_tail_that_repair_of_the_whole_would_change_does_not_agree(tmp_path: Path) -> None:
    """An unanswered tool call before the tail's first prompt: the whole's repair answers it in
    that prompt's message, which the tail can't know; the chat is then drawn from the whole."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "first"}]
    call = {"type": "tool_use", "id": "toolu_x", "name": "Bash", "input": {"command": "ls"}}
    messages.append({"role": "assistant", "content": [call]})
    for n in range(3):
        messages.append({"role": "user", "content": f"question {n}"})
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"a {n}"}]})
    (tmp_path / "work").mkdir(exist_ok=True)
    with SessionStore.open_default() as store:
        session_id = store.sessions.create(tmp_path / "work", "offline", title="cut")
        store.messages.extend(session_id, messages)
        tail = read_tail(store, session_id, 6)
        whole = store.messages.load(session_id)
    assert whole != messages  # repaired: the call is answered
    assert not tail.agrees(whole)


async def test_a_long_session_shows_its_end_first_and_pages_back_to_its_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the end is read before the agent is built; scrolling up meanwhile stops at what was
    read, and once the agent holds the whole, pages reach the first prompt, indexed as in it."""
    import agent_tui.runtime

    session_id, messages = long_session(tmp_path, 150)
    build = agent_tui.runtime.make_agent
    go = threading.Event()

    def held_build(*args: Any, **kwargs: Any) -> Any:
        go.wait(30)
        return build(*args, **kwargs)

    monkeypatch.setattr(agent_tui.runtime, "make_agent", held_build)
    app = make_app(tmp_path, record=True, resume=session_id)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: "question 149" in prompts_shown(app))
        header = app.chat.header
        assert isinstance(header, EarlierMessages)
        assert header.pager.offset > 0 and len(header.pager.messages) < len(messages)
        for _ in range(6):  # to the top, page after page, as far as what was read goes
            header.load_page()
            await pilot.pause()
        assert not header.pager.can_page and header.pager.hidden == header.pager.offset
        assert "question 0" not in prompts_shown(app)
        drawn = list(app.chat.query(UserMessage))
        go.set()
        await wait_for(pilot, lambda: app.agent is not None and RESUMED in notices(app))
        assert app.agent is not None and header.pager.messages is app.agent.messages
        assert set(drawn) <= set(app.chat.query(UserMessage))  # kept as drawn
        while header.pager.can_page:
            header.load_page()
            await pilot.pause()
        await wait_for(pilot, lambda: "question 0" in prompts_shown(app))
        shown = {str(m.render()): m.turn_index for m in app.chat.query(UserMessage)}
        for n in (0, 75, 149):  # each prompt knows its place in the whole (rewind, /fork)
            index = shown[f"question {n}"]
            assert app.agent.messages[index]["content"] == f"question {n}"
        assert prompts_shown(app).count("question 100") == 1


def test_nothing_is_read_ahead_when_there_is_nothing_to_resume_as_asked(tmp_path: Path) -> None:
    session_id = recorded(tmp_path, 2)
    assert read_ahead(Options(offline=True, cwd=tmp_path)) is None  # a new session
    assert read_ahead(Options(offline=True, cwd=tmp_path, resume="zzzz")) is None  # unknown id
    db = Path(os.environ["AGENT_TUI_HOME"]) / "sessions.db"
    held = SessionLock.take(db, session_id)  # another agent-tui records it: the boot asks
    try:
        assert read_ahead(Options(offline=True, cwd=tmp_path, resume=session_id)) is None
    finally:
        if held is not None:
            held.release()


def test_a_build_that_fails_after_the_read_ahead_lets_the_session_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent_tui.runtime

    session_id = recorded(tmp_path, 2)
    options = Options(offline=True, cwd=tmp_path / "work", resume=session_id, record=True)
    read = read_ahead(options)
    assert read is not None
    db = Path(os.environ["AGENT_TUI_HOME"]) / "sessions.db"
    with pytest.raises(SessionInUse):
        SessionLock.take(db, session_id)  # held while it is being resumed

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("no tools today")

    monkeypatch.setattr(agent_tui.runtime, "make_agent", broken)
    with pytest.raises(RuntimeError, match="no tools today"):
        boot_agent(options, record=True, ask_yes_no=lambda q: False, read=read)
    lock = SessionLock.take(db, session_id)  # let go: another agent-tui may resume it
    if lock is not None:
        lock.release()


async def test_a_failure_drawing_it_early_leaves_the_boot_to_draw_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.ui.controllers.sessions import Sessions

    def broken(self: Sessions, tail: Any, runs: Any) -> None:
        raise RuntimeError("a bug drawing it")

    monkeypatch.setattr(Sessions, "show_early", broken)
    async with resumed(tmp_path, 3) as app:
        assert app.status.activity == "ready"


def test_a_session_read_ahead_to_fork_goes_on_in_a_copy_and_leaves_it_free(tmp_path: Path) -> None:
    session_id = recorded(tmp_path, 3)
    options = Options(
        offline=True, cwd=tmp_path / "work", resume=session_id, fork_session=True, record=True
    )
    read = read_ahead(options)
    assert read is not None and read.lock is None  # a copy: the original isn't taken
    booted = boot_agent(options, record=True, ask_yes_no=lambda q: False, read=read)
    assert read.session is not None
    assert booted.recorder is not None
    assert booted.recorder.session_id not in (None, session_id)
    assert booted.agent.messages == read.session.messages
    db = Path(os.environ["AGENT_TUI_HOME"]) / "sessions.db"
    lock = SessionLock.take(db, session_id)  # free for another agent-tui
    if lock is not None:
        lock.release()
    booted.recorder.close()


async def test_after_shown_waits_for_the_frame_that_lays_the_widget_out(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        seen: list[int] = []
        widget = app.chat.append(UserMessage("just mounted"))
        assert widget.size.height == 0  # mounting: not laid out yet
        app.chat.after_shown(widget, lambda: seen.append(widget.size.height))
        await wait_for(pilot, lambda: seen)
        assert seen[0] > 0
        never = UserMessage("never laid out")
        never.display = False  # no size, ever: the callback is not kept waiting
        app.chat.append(never)
        late: list[bool] = []
        app.chat.after_shown(never, lambda: late.append(True), tries=3)
        await wait_for(pilot, lambda: late)


async def test_the_boot_waits_for_the_resumed_frame_before_it_builds_the_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent_tui.runtime

    session_id = recorded(tmp_path, 30)
    build = agent_tui.runtime.make_agent
    heights: list[int] = []
    app = make_app(tmp_path, record=True, resume=session_id)

    def watched_build(*args: Any, **kwargs: Any) -> Any:
        shown = app.chat.query(UserMessage)
        heights.append(shown.last().size.height if shown else 0)
        return build(*args, **kwargs)

    monkeypatch.setattr(agent_tui.runtime, "make_agent", watched_build)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        assert heights and heights[0] > 0  # laid out (and painted) before the build began


def test_a_read_ahead_that_fails_midway_lets_the_session_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent_tui.sessions.stored_session as stored_session

    def broken(store: Any, session_id: str) -> dict[str, Any]:
        raise RuntimeError("a bug reading the runs")

    monkeypatch.setattr(stored_session, "stored_runs", broken)
    session_id = recorded(tmp_path, 2)
    assert read_ahead(Options(offline=True, cwd=tmp_path, resume=session_id)) is None
    db = Path(os.environ["AGENT_TUI_HOME"]) / "sessions.db"
    lock = SessionLock.take(db, session_id)  # not left held: the boot can resume it
    if lock is not None:
        lock.release()


async def test_the_whole_failing_to_read_after_its_end_is_drawn_resumes_it_as_always(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The end is on screen, then reading the whole fails once (a store fault): the session and
    the store are let go, and the boot resumes it the way it always did."""
    import agent_tui.sessions.stored_session as stored_session

    real = stored_session.read_held
    calls: list[bool] = []

    def fails_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(True)
        if len(calls) == 1:
            lock = args[2]
            if lock is not None:
                lock.release()  # as read_held does when it fails
            raise RuntimeError("disk I/O error")
        return real(*args, **kwargs)

    monkeypatch.setattr(stored_session, "read_held", fails_once)
    async with resumed(tmp_path, 12) as app:
        assert len(calls) == 2  # the boot's read, after the one that failed
        assert app.agent is not None and len(app.agent.messages) == 24
        assert app.recorder is not None and app.recorder.session_id == app.options.resume
        assert notices(app).count(RESUMED) == 1


@pytest.mark.parametrize("resuming", [True, False])
async def test_the_boot_worker_loads_the_markdown_the_end_is_drawn_with_before_drawing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, resuming: bool
) -> None:
    """Once it has read the session's end, the boot worker loads the markdown renderer, before
    the end is drawn (not in the frame that draws it), and the UI thread doesn't do it at the
    same time (two threads taking turns on the interpreter's lock stall each other on a busy
    machine). A new session has nothing to draw: its boot worker loads markdown once the agent
    is ready (`warm_up_markdown`)."""
    import agent_tui.ui.chat.markdown_pieces as pieces
    from agent_tui.ui.controllers.sessions import Sessions

    real, steps = pieces.load_markdown, []
    show_early = Sessions.show_early

    def load_markdown() -> None:
        on_ui_thread = threading.current_thread() is threading.main_thread()
        steps.append("markdown on the UI thread" if on_ui_thread else "markdown in the worker")
        real()

    def shown_early(self: Sessions, *args: Any, **kwargs: Any) -> None:
        steps.append("drawn")
        show_early(self, *args, **kwargs)

    monkeypatch.setattr(pieces, "load_markdown", load_markdown)
    monkeypatch.setattr(Sessions, "show_early", shown_early)
    session_id = recorded(tmp_path, 3)
    app = make_app(tmp_path, record=True, resume=session_id if resuming else None)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None and app.status.activity == "ready")
    assert steps == (["markdown in the worker", "drawn"] if resuming else [])
