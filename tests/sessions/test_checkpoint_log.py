"""The store's side of checkpoints: kept contents, and checkpoints as they stand after undos."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.checkpoints.blobs import blob_id
from agent_tui.protocol.events import FilesChanged, FilesRestored
from agent_tui.sessions.store import SessionStore


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "s.db")


def test_blobs_are_kept_per_session_and_freed_with_it(store: SessionStore) -> None:
    sid = store.sessions.create("/p", "m")
    key = store.checkpoints.put_blob(sid, b"hello\n")
    assert key == blob_id(b"hello\n") and store.checkpoints.get_blob(key) == b"hello\n"
    store.sessions.delete(sid)
    assert store.checkpoints.get_blob(key) is None


def test_content_holding_the_api_key_is_not_kept(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-" + "x" * 40)
    sid = store.sessions.create("/p", "m")
    data = b"ANTHROPIC_API_KEY=sk-ant-api03-" + b"x" * 40 + b"\n"
    key = store.checkpoints.put_blob(sid, data)
    assert key == blob_id(data) and store.checkpoints.get_blob(key) is None
    store.close()
    assert b"sk-ant-api03" not in Path(store.path).read_bytes()


def test_checkpoints_load_as_they_stand_after_undos(store: SessionStore) -> None:
    sid = store.sessions.create("/p", "m")
    for n in range(3):
        store.events.append(sid, FilesChanged(n, n * 2, f"turn {n}", [{"path": f"/p/{n}"}]))
    store.events.append(sid, FilesRestored(1, ["/p/1", "/p/2"]))
    history, next_id = store.checkpoints.load(sid)
    assert [c.checkpoint for c in history] == [0] and next_id == 3


def test_a_killed_turn_is_rebuilt_from_its_calls_and_its_number_never_reused(
    store: SessionStore,
) -> None:
    from agent_tui.protocol.events import ChangeRecorded, ChangeStarted

    sid = store.sessions.create("/p", "m")
    store.events.append(sid, FilesChanged(0, 0, "first", [{"path": "/p/a"}]))
    # a turn whose only call changed nothing: no FilesChanged, but its number was taken
    store.events.append(sid, ChangeStarted(1, 2, "quiet", "t1", "Bash", "ls > x", tree="t0"))
    store.events.append(sid, ChangeRecorded(1, "t1", "Bash", [], "t0"))
    # the app was killed in this turn, after a Write was recorded and while a command ran
    w = {"path": "/p/b", "before": None, "after": "b1", "by": "Write"}
    store.events.append(sid, ChangeStarted(2, 4, "killed", "t2", "Write", "/p/b", "/p/b"))
    store.events.append(sid, ChangeRecorded(2, "t2", "Write", [w]))
    store.events.append(sid, ChangeStarted(2, 4, "killed", "t3", "Bash", "make", tree="abc"))
    history, next_id = store.checkpoints.load(sid)
    assert [c.checkpoint for c in history] == [0, 2] and next_id == 3
    killed = history[1]
    assert killed.prompt == "killed" and killed.message_index == 4
    assert [f["path"] for f in killed.files] == ["/p/b"]
    assert [i["subject"] for i in killed.interrupted] == ["make"]


def test_the_number_of_a_last_turn_that_changed_nothing_is_not_given_again(
    store: SessionStore,
) -> None:
    from agent_tui.protocol.events import ChangeRecorded, ChangeStarted

    sid = store.sessions.create("/p", "m")
    store.events.append(sid, FilesChanged(0, 0, "first", [{"path": "/p/a"}]))
    store.events.append(sid, ChangeStarted(1, 2, "quiet", "t1", "Bash", "ls > x", tree="t0"))
    store.events.append(sid, ChangeRecorded(1, "t1", "Bash", [], "t0"))
    history, next_id = store.checkpoints.load(sid)
    assert [c.checkpoint for c in history] == [0] and next_id == 2
