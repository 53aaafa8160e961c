"""One session, one process (issue 27.8): the lock, what the store keeps of a streaming answer."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.protocol.events import BlockFinished, RequestStarted, TextDelta, TurnStarted
from agent_tui.runtime import Options, make_agent
from agent_tui.sessions import SessionStore, conversation_problems
from agent_tui.sessions.message_log import CUT_OFF
from agent_tui.sessions.recorder import Recorder, resume_into
from agent_tui.sessions.session_lock import SessionInUse, SessionLock


def test_a_held_session_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    held = SessionLock.take(db, "abc")
    assert held is not None
    with pytest.raises(SessionInUse) as refused:
        SessionLock.take(db, "abc")
    assert refused.value.pid == __import__("os").getpid()
    assert "in use by another agent-tui (pid" in str(refused.value)
    assert SessionLock.take(db, "other") is not None  # only that session
    held.release()
    held.release()  # twice is fine
    again = SessionLock.take(db, "abc")
    assert again is not None
    again.release()


def test_a_killed_holder_leaves_no_lock_behind(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    child = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from pathlib import Path; "
         "from agent_tui.sessions.session_lock import SessionLock; "
         f"SessionLock.take(Path({str(db)!r}), 'abc'); print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    with pytest.raises(SessionInUse) as refused:
        SessionLock.take(db, "abc")
    assert refused.value.pid == child.pid
    child.kill()
    child.wait()
    lock = SessionLock.take(db, "abc")  # the file is still there; the OS lock died with it
    assert lock is not None
    lock.release()


def test_a_recorder_holds_its_session_until_it_lets_go(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("AGENT_TUI_OFFLINE_DELAY", "0")
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    store = SessionStore(tmp_path / "sessions.db")
    agent = make_agent(Options(cwd=tmp_path, offline=True, headless=True))
    recorder = Recorder(store, agent)
    asyncio.run(agent.submit("hello"))
    sid = recorder.session_id
    assert sid is not None
    other = make_agent(Options(cwd=tmp_path, offline=True, headless=True))
    with pytest.raises(SessionInUse):
        resume_into(store, other, sid)
    assert other.messages == []  # refused before anything changed
    forked = resume_into(store, other, sid, fork=True)
    assert forked.session_id != sid and other.messages == agent.messages
    assert store.sessions.get(forked.session_id).title.endswith("(fork)")
    recorder.detach()
    third = make_agent(Options(cwd=tmp_path, offline=True, headless=True))
    assert resume_into(store, third, sid).session_id == sid
    store.close()


def test_the_streaming_answer_is_kept_and_replaced_by_the_finished_block(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions.db")
    agent = make_agent(Options(cwd=tmp_path, offline=True, headless=True))
    recorder = Recorder(store, agent)
    agent.conversation.add_prompt("tell me")
    agent.emit(TurnStarted("tell me", 0))
    agent.emit(RequestStarted(1))
    agent.emit(TextDelta(0, "Once upon "))  # the first piece is written at once
    sid = recorder.session_id
    assert sid is not None
    cut = store.messages.load(sid)
    assert cut[-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Once upon " + CUT_OFF}],
    }
    assert conversation_problems(cut) == []
    agent.emit(TextDelta(0, "a time."))  # within the second: not written yet (no event loop)
    block = {"type": "text", "text": "Once upon a time."}
    agent.conversation.begin("assistant")  # the loop commits the finished block...
    agent.conversation.append(block)
    agent.emit(BlockFinished(0, block))  # ...then says so
    done = store.messages.load(sid, repair=False)
    assert done == agent.messages  # one assistant message, the draft replaced by the block
    store.close()


def test_a_session_in_use_is_not_deleted_from_under_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_tui.sessions.cli import main as sessions_main

    db = tmp_path / "sessions.db"
    with SessionStore(db) as store:
        sid = store.sessions.create(tmp_path, "m", title="busy")
        store.messages.add(sid, "user", "hello")
    held = SessionLock.take(db, sid)
    assert sessions_main(["--db", str(db), "delete", sid, "--yes"]) == 1
    err = capsys.readouterr().err
    assert "is in use by another agent-tui" in err and "not deleted" in err
    assert held is not None
    held.release()
    assert sessions_main(["--db", str(db), "delete", sid, "--yes"]) == 0
    with SessionStore(db) as store:
        assert store.sessions.get(sid) is None
