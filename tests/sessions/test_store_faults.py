"""The store fails soft (issue 27.3): a store error mid-session means the agent goes on unrecorded,
one notice says so, what the person typed waits in memory, and it is all written once the store
works again."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from store_faults import DISK_FULL, FaultyStore

from agent_tui.protocol.events import Event, Notice, TurnFinished
from agent_tui.runtime import Options, make_agent
from agent_tui.sessions import conversation_problems
from agent_tui.sessions.backlog import Backlog
from agent_tui.sessions.faults import describe
from agent_tui.sessions.recorder import NOT_RECORDING, RESUMED, Recorder


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENT_TUI_OFFLINE_DELAY", "0")


def agent_with(store: FaultyStore, tmp_path: Path) -> tuple[Recorder, list[Event]]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    agent = make_agent(Options(cwd=work, offline=True, headless=True, allow=["Bash"]))
    seen: list[Event] = []
    agent.listeners.append(seen.append)
    return Recorder(store, agent), seen


def notices(seen: list[Event]) -> list[str]:
    return [e.text for e in seen if isinstance(e, Notice)]


def test_a_full_disk_mid_session_is_said_once_and_everything_is_saved_when_it_is_back(
    tmp_path: Path,
) -> None:
    store = FaultyStore(tmp_path / "sessions.db")
    recorder, seen = agent_with(store, tmp_path)
    agent = recorder.agent

    first = asyncio.run(agent.submit("hello"))  # recorded as usual
    assert not first.failed and recorder.session_id
    store.fault = DISK_FULL
    second = asyncio.run(agent.submit("run a command"))  # Bash runs, nothing can be written
    third = asyncio.run(agent.submit("hello again"))
    assert not second.failed and not third.failed  # the agent went on
    assert [e for e in seen if isinstance(e, TurnFinished)][-2:] == [second, third]
    said = notices(seen)
    assert sum(NOT_RECORDING in n for n in said) == 1  # said once, not per write
    assert any("the disk is full" in n for n in said if NOT_RECORDING in n)
    assert recorder.unrecorded and store.failed_writes >= 2

    store.fault = None  # space freed: the next prompt writes everything that waited
    asyncio.run(agent.submit("and once more"))
    assert not recorder.unrecorded
    assert sum(RESUMED in n for n in notices(seen)) == 1
    assert store.messages.load(recorder.session_id, repair=False) == agent.messages
    assert conversation_problems(store.messages.load(recorder.session_id)) == []
    prompts = [
        e.event.prompt
        for e in store.events.load(recorder.session_id)
        if e.event.kind == "turn_started"
    ]
    assert prompts == ["hello", "run a command", "hello again", "and once more"]
    runs = store.runs.load(recorder.session_id)
    assert [r.tool for r in runs] == ["Bash"] and runs[0].finished_at is not None
    assert len(store.turns.load(recorder.session_id)) == 4
    store.close()


def test_a_store_that_fails_from_the_first_write_creates_the_session_once_it_is_back(
    tmp_path: Path,
) -> None:
    store = FaultyStore(tmp_path / "sessions.db")
    store.fault = DISK_FULL
    recorder, _ = agent_with(store, tmp_path)
    asyncio.run(recorder.agent.submit("hello"))
    assert recorder.session_id is None and recorder.unrecorded
    store.fault = None
    asyncio.run(recorder.agent.submit("hello again"))
    assert recorder.session_id is not None
    assert store.sessions.count() == 1
    assert store.messages.load(recorder.session_id, repair=False) == recorder.agent.messages
    assert store.sessions.system_prompt(recorder.session_id) == recorder.agent.config.system
    store.close()


def test_close_never_raises_for_the_store_and_says_what_is_unwritten(tmp_path: Path) -> None:
    store = FaultyStore(tmp_path / "sessions.db")
    recorder, _ = agent_with(store, tmp_path)
    store.fault = "database disk image is malformed"
    asyncio.run(recorder.agent.submit("hello"))
    recorder.close()  # a last try fails too: no exception
    assert recorder.unrecorded
    assert "damaged" in (recorder.backlog.failure or "")


def test_a_failed_transaction_keeps_its_buffered_events_for_the_next_commit(
    tmp_path: Path,
) -> None:
    from agent_tui.protocol.events import TextDelta

    store = FaultyStore(tmp_path / "sessions.db")
    sid = store.sessions.create(tmp_path, "m")
    store.events.append(sid, TextDelta(0, "kept "))
    store.fault = DISK_FULL
    with pytest.raises(sqlite3.OperationalError):
        store.flush()
    store.fault = None
    store.events.append(sid, TextDelta(0, "too"))
    store.flush()
    assert [e.event.text for e in store.events.load(sid)] == ["kept ", "too"]
    store.close()


def test_backlog_drops_only_replay_events_past_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    import agent_tui.sessions.backlog as backlog_mod

    monkeypatch.setattr(backlog_mod, "MAX_EVENTS", 3)
    failing = True
    written: list[str] = []
    said: list[tuple[int, int]] = []

    def op(name: str):  # type: ignore[no-untyped-def]
        def write() -> None:
            if failing:
                raise sqlite3.OperationalError(DISK_FULL)
            written.append(name)

        return write

    backlog = Backlog(lambda why: None, lambda n, dropped: said.append((n, dropped)))
    backlog.run(op("message"))
    for i in range(5):
        backlog.run(op(f"event{i}"), event=True)
    backlog.run(op("tool run"))
    failing = False
    assert backlog.retry()
    assert written == ["message", "event0", "event1", "event2", "tool run"]
    assert said == [(5, 2)]


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (sqlite3.OperationalError(DISK_FULL), "the disk is full"),
        (OSError(28, "No space left on device"), "the disk is full"),
        (sqlite3.DatabaseError("database disk image is malformed"), "damaged"),
        (sqlite3.DatabaseError("file is not a database"), "damaged"),
        (sqlite3.OperationalError("attempt to write a readonly database"), "can't be written"),
        (sqlite3.OperationalError("database is locked"), "busy"),
    ],
)
def test_store_errors_are_said_in_words(error: BaseException, words: str) -> None:
    text = describe(error)
    assert words in text and "\n" not in text


@pytest.mark.parametrize("output_format", ["text", "stream-json"])
def test_headless_says_it_once_on_stderr_and_exits_1(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    output_format: str,
) -> None:
    from agent_tui.headless import run_headless
    from agent_tui.sessions.store import SessionStore

    store = FaultyStore(tmp_path / "sessions.db")
    store.fault = DISK_FULL
    monkeypatch.setattr(SessionStore, "open_default", classmethod(lambda cls: store))
    work = tmp_path / "work"
    work.mkdir()
    code = run_headless(Options(cwd=work, offline=True, headless=True), "hello", output_format)
    out, err = capsys.readouterr()
    assert code == 1
    assert "offline model" in out  # the answer (or its events) still printed
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "the disk is full" in lines[0] and "Traceback" not in err


def test_a_full_disk_is_said_as_full_when_sqlite_calls_it_an_io_error(tmp_path: Path) -> None:
    """Reopened on a full disk, SQLite can't grow the database's -shm file and says "disk I/O
    error" (SQLITE_IOERR_SHMSIZE): the cause is named (issue 50), by the store and by a real
    headless run that continues the session there."""
    import os
    import subprocess
    import sys

    from fresh_interpreter import child_env
    from store_faults import fill, small_tmpfs

    from agent_tui.sessions.store import SessionStore

    with small_tmpfs(tmp_path / "disk", "3m") as disk:
        if disk is None:
            pytest.skip("no tmpfs can be mounted here")
        work = disk / "work"
        work.mkdir()
        home = disk / "home"
        first = subprocess.run(
            [sys.executable, "-m", "agent_tui", "-p", "hello", "--offline"],
            cwd=work, env=child_env(AGENT_TUI_HOME=str(home)), capture_output=True, text=True,
        )  # fmt: skip
        assert first.returncode == 0, first.stderr
        filler = fill(disk)
        try:
            with pytest.raises(sqlite3.Error) as raised:
                SessionStore(home / "sessions.db")
            assert describe(raised.value).startswith("the disk is full"), describe(raised.value)
            again = subprocess.run(
                [sys.executable, "-m", "agent_tui", "-p", "hello", "--offline", "--continue"],
                cwd=work, env=child_env(AGENT_TUI_HOME=str(home)), capture_output=True,
                text=True,
            )  # fmt: skip
        finally:
            os.unlink(filler)
    assert "the disk is full" in again.stderr, again.stderr
    assert "disk I/O error" not in again.stderr.replace("(disk I/O error)", "")
    assert "Traceback" not in again.stderr
