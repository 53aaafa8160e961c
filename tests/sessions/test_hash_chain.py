"""The hash chain over a session's events: kept as rows are written, checked by `verify`, and
brought to databases recorded before it by the schema migration."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agent_tui.protocol.events import Notice, TextDelta, ToolFinished, TurnStarted
from agent_tui.sessions import SessionStore, chain
from agent_tui.sessions.cli import EXIT_BROKEN, main
from agent_tui.sessions.schema import MIGRATIONS, SCHEMA_VERSION, migrate


def _session(store: SessionStore, tmp_path: Path, n: int = 6) -> str:
    sid = store.sessions.create(tmp_path, "claude-test")
    store.events.append(sid, TurnStarted("hello"))
    for i in range(n - 2):
        store.events.append(sid, TextDelta(0, f"piece {i} "))
    store.events.append(sid, ToolFinished("t1", "Bash", False, "done", 0.1, "ok"))
    store.flush()
    return sid


def test_every_row_is_chained_as_written(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "s.db") as store:
        sid = _session(store, tmp_path)
        store.events.append(sid, Notice("info", "later, in another commit"))
        store.flush()
        rows = store.conn.execute(
            "SELECT seq, ts, type, json, hash FROM events WHERE session_id = ? ORDER BY seq",
            (sid,),
        ).fetchall()
        prev = chain.GENESIS
        for seq, ts, kind, text, stored in rows:
            prev = chain.row_hash(prev, sid, seq, ts, kind, text)
            assert stored == prev
        check = store.events.verify_chain(sid)
    assert check.ok and check.rows == len(rows) == 7 and check.head == prev


@pytest.mark.parametrize(
    "edit",
    [
        "UPDATE events SET json = replace(json, 'piece', 'PIECE') WHERE seq = 4",
        "UPDATE events SET ts = ts + 1 WHERE seq = 4",
        "UPDATE events SET type = 'notice' WHERE seq = 4",
        "DELETE FROM events WHERE seq = 4",
    ],
    ids=["content", "time", "type", "deleted"],
)
def test_verify_names_the_first_changed_row(tmp_path: Path, edit: str) -> None:
    with SessionStore(tmp_path / "s.db") as store:
        sid = _session(store, tmp_path)
        store.conn.execute(edit + " AND session_id = ?", (sid,))
        check = store.events.verify_chain(sid)
    assert not check.ok and check.bad_seq == 4 and check.rows == 4
    assert "event 4" in check.problem


def test_a_row_rewritten_with_a_fresh_hash_breaks_the_next_one(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "s.db") as store:
        sid = _session(store, tmp_path)
        conn = store.conn
        (prev,) = conn.execute(
            "SELECT hash FROM events WHERE session_id=? AND seq=1", (sid,)
        ).fetchone()
        seq, ts, kind, text = conn.execute(
            "SELECT seq, ts, type, json FROM events WHERE session_id=? AND seq=2", (sid,)
        ).fetchone()
        text = text.replace("piece", "PIECE")
        assert "PIECE" in text
        conn.execute(
            "UPDATE events SET json = ?, hash = ? WHERE session_id = ? AND seq = 2",
            (text, chain.row_hash(prev, sid, seq, ts, kind, text), sid),
        )
        check = store.events.verify_chain(sid)
    assert check.bad_seq == 3


def test_sessions_do_not_share_a_chain(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "s.db") as store:
        a, b = _session(store, tmp_path), _session(store, tmp_path)
        store.conn.execute("DELETE FROM events WHERE session_id = ? AND seq = 5", (a,))
        assert (
            store.events.verify_chain(b).ok and store.events.verify_chain(a).ok
        )  # the end cut off: holds
        assert store.events.verify_chain(a).rows == 5


def test_migration_chains_rows_recorded_before_it(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    for steps in MIGRATIONS[:4]:
        for step in steps:
            assert isinstance(step, str)
            conn.execute(step)
    conn.execute("PRAGMA user_version = 4")
    conn.execute("COMMIT")
    conn.execute(
        "INSERT INTO sessions (id, cwd, model, created_at, updated_at) "
        "VALUES ('s1', '/', 'm', 0, 0)"
    )
    for seq in range(3):
        conn.execute(
            "INSERT INTO events (session_id, seq, ts, type, json) VALUES ('s1', ?, ?, 'notice', ?)",
            (seq, 1000.5 + seq, json.dumps({"type": "notice", "level": "info", "text": str(seq)})),
        )
    assert migrate(conn) == 4
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
    with SessionStore(path) as store:
        assert store.events.verify_chain("s1").rows == 3
        store.events.append("s1", Notice("info", "after the upgrade"))
        store.flush()
        check = store.events.verify_chain("s1")
    assert check.ok and check.rows == 4


def test_cli_verify_and_expect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    with SessionStore.open_default() as store:
        sid = _session(store, tmp_path)
        head = store.events.verify_chain(sid).head
    assert main(["verify", sid[:10]]) == 0
    assert capsys.readouterr().out == f"{sid}: 6 events verify; head {head}\n"
    assert main(["verify", sid, "--expect", head.upper()]) == 0
    capsys.readouterr()
    assert main(["verify", sid, "--expect", "0" * 64]) == EXIT_BROKEN
    assert "the chain holds but its head is" in capsys.readouterr().err


def test_the_audit_keeps_provenance_and_answer_time(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "s.db") as store:
        sid = store.sessions.create(tmp_path, "claude-test")
        line = "this command text appeared in WebFetch https://x.example 1 step ago"
        store.runs.record(sid, "t", "Bash", {"command": "x"}, provenance=line, answer_s=0.25)
        (run,) = store.runs.load(sid)
    assert run.provenance == line and run.answer_s == 0.25
