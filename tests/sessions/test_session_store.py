from __future__ import annotations

import itertools
import json
import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tui.protocol import events as ev
from agent_tui.protocol.events import Usage
from agent_tui.sessions import (
    AmbiguousSessionId,
    SessionNotFound,
    SessionStore,
    conversation_problems,
    title_from_prompt,
)
from agent_tui.sessions.export import export_jsonl
from agent_tui.sessions.schema import SCHEMA_VERSION, SchemaError

Turn = list[dict[str, Any]]
Rec = Callable[[SessionStore, str, Turn], None]


def test_round_trip_block_by_block_is_exact(store: SessionStore, turn: Turn, record: Rec) -> None:
    sid = store.sessions.create("/work/p", "claude-sonnet-4-5")
    record(store, sid, turn)
    assert store.messages.load(sid, repair=False) == turn
    # A valid conversation is not changed by repair, byte for byte.
    assert json.dumps(store.messages.load(sid)) == json.dumps(turn)
    assert conversation_problems(turn) == []
    info = store.sessions.get(sid)
    assert info is not None and info.message_count == 4
    assert export_jsonl(store, sid).splitlines() == [
        json.dumps(m, ensure_ascii=False) for m in turn
    ]


def test_round_trip_whole_messages(store: SessionStore, turn: Turn) -> None:
    sid = store.sessions.create(".", "m")
    for m in turn:
        store.messages.add(sid, m["role"], m["content"])
    assert store.messages.load(sid) == turn


def test_resume_request_is_stored_messages_plus_prompt(
    store: SessionStore, tmp_path: Path, turn: Turn, record: Rec
) -> None:
    sid = store.sessions.create(".", "m")
    record(store, sid, turn)
    store.close()
    reopened = SessionStore(tmp_path / "sessions.db")
    messages = reopened.messages.load(sid)
    body = [*messages, {"role": "user", "content": "and now?"}]
    assert body[:-1] == turn
    reopened.close()


def test_tail_paging(store: SessionStore) -> None:
    sid = store.sessions.create(".", "m")
    store.messages.extend(
        sid,
        [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(25)],
    )
    tail = store.messages.tail(sid, 10)
    assert [m.seq for m in tail] == list(range(15, 25))
    older = store.messages.tail(sid, 10, before=tail[0].seq)
    assert [m.seq for m in older] == list(range(5, 15))
    oldest = store.messages.tail(sid, 10, before=older[0].seq)
    assert [m.content for m in oldest] == [f"m{i}" for i in range(5)]
    assert store.messages.tail(sid, 10, before=0) == []
    assert store.messages.tail(sid, 0) == []


def test_append_block_errors(store: SessionStore) -> None:
    sid = store.sessions.create(".", "m")
    seq = store.messages.add(sid, "user", "hi")
    with pytest.raises(ValueError):
        store.messages.append_block(sid, seq, {"type": "text", "text": "x"})
    with pytest.raises(LookupError):
        store.messages.append_block(sid, 99, {"type": "text", "text": "x"})
    with pytest.raises(SessionNotFound):
        store.messages.add("nope", "user", "hi")
    with pytest.raises(SessionNotFound):
        store.messages.begin("nope", "user")


def test_titles_from_first_prompt(store: SessionStore) -> None:
    assert title_from_prompt("\n  fix   the bug\nin main.py") == "fix the bug"
    long = "refactor " + "the parser module so that it " * 5
    title = title_from_prompt(long)
    assert len(title) <= 60 and title.endswith("…") and not title[:-1].endswith(" ")
    assert long.startswith(title[:-1])
    assert len(title_from_prompt("x" * 200)) == 60

    sid = store.sessions.create(".", "m")
    store.messages.add(sid, "user", "first prompt\nmore")
    store.messages.add(sid, "user", "second prompt")
    assert store.sessions.get(sid).title == "first prompt"  # type: ignore[union-attr]
    store.sessions.set_title(sid, "Renamed")
    assert store.sessions.get(sid).title == "Renamed"  # type: ignore[union-attr]

    sid2 = store.sessions.create(".", "m")
    seq = store.messages.begin(sid2, "user")
    store.messages.append_block(sid2, seq, {"type": "text", "text": "block prompt"})
    assert store.sessions.get(sid2).title == "block prompt"  # type: ignore[union-attr]
    sid3 = store.sessions.create(".", "m", title="Given")
    store.messages.add(sid3, "user", "ignored for the title")
    assert store.sessions.get(sid3).title == "Given"  # type: ignore[union-attr]


def test_list_order_cwd_filter_latest(store: SessionStore, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    s1 = store.sessions.create(a, "m", created_at=1000.0)
    s2 = store.sessions.create(b, "m", created_at=2000.0)
    s3 = store.sessions.create(a, "m", created_at=3000.0)
    assert [s.id for s in store.sessions.recent()] == [s3, s2, s1]
    assert [s.id for s in store.sessions.recent(cwd=a)] == [s3, s1]
    assert [s.id for s in store.sessions.recent(limit=1, offset=1)] == [s2]
    assert store.sessions.count() == 3 and store.sessions.count(cwd=b) == 1
    # Activity moves a session to the front.
    store.messages.add(s1, "user", "back to this one")
    assert store.sessions.recent()[0].id == s1
    assert store.sessions.latest(a).id == s1  # type: ignore[union-attr]
    assert store.sessions.latest(str(b) + "/").id == s2  # type: ignore[union-attr]
    assert store.sessions.latest(tmp_path / "c") is None


def test_ids_sortable_unique_and_prefix(store: SessionStore) -> None:
    ids = [store.sessions.create(".", "m") for _ in range(50)]
    assert ids == sorted(ids) and len(set(ids)) == 50
    assert all(len(i) == 13 for i in ids)
    assert store.sessions.resolve(ids[7]) == ids[7]
    assert store.sessions.resolve(ids[7][:12].upper()) in ids
    with pytest.raises(AmbiguousSessionId):
        store.sessions.resolve(ids[0][:3])
    with pytest.raises(SessionNotFound):
        store.sessions.resolve("zzzz")


def test_turns_and_totals(store: SessionStore) -> None:
    sid = store.sessions.create(".", "m")
    store.turns.record(sid, Usage(100, 20, 5, 50, 1), 0.25, stop_reason="end_turn", requests=2)
    store.turns.record(sid, Usage(10, 2), 0.05)
    info = store.sessions.get(sid)
    assert info is not None
    assert (info.input_tokens, info.output_tokens, info.cache_write_tokens) == (110, 22, 5)
    assert (info.cache_read_tokens, info.web_search_requests) == (50, 1)
    assert info.cost_usd == pytest.approx(0.30)
    assert info.usage == Usage(110, 22, 5, 50, 1)
    turns = store.turns.load(sid)
    assert [t.seq for t in turns] == [0, 1]
    assert turns[0].usage == Usage(100, 20, 5, 50, 1) and turns[0].requests == 2


def test_tool_runs(store: SessionStore) -> None:
    sid = store.sessions.create(".", "m")
    run = store.runs.record(
        sid, "toolu_1", "Bash", {"command": "ls"}, decision="allow", decided_by="rule",
        rule="Bash(ls)",
    )  # fmt: skip
    store.runs.finish(run, summary="3 files", is_error=False, duration_s=0.1, exit_code=0)
    store.runs.record(sid, "toolu_2", "Bash", {"command": "rm -rf /"}, decision="deny",
                          decided_by="user")  # fmt: skip
    runs = store.runs.load(sid)
    assert [(r.tool_use_id, r.decision, r.rule, r.exit_code, r.is_error) for r in runs] == [
        ("toolu_1", "allow", "Bash(ls)", 0, False),
        ("toolu_2", "deny", None, None, None),
    ]
    assert runs[0].input == {"command": "ls"} and runs[0].finished_at is not None
    with pytest.raises(LookupError):
        store.runs.finish(999, summary="", is_error=True)


def test_events_round_trip(store: SessionStore, tmp_path: Path) -> None:
    sid = store.sessions.create(".", "m")
    events: list[ev.Event] = [
        ev.TurnStarted(prompt="hi"),
        ev.RequestStarted(n=1),
        ev.MessageStarted(message_id="msg_1", model="m"),
        *[ev.TextDelta(index=0, text=t) for t in ("Hel", "lo", " there")],
        ev.BlockFinished(index=0, block={"type": "text", "text": "Hello there"}),
        ev.ToolCallStarted(index=1, tool_use_id="srv1", tool="web_search", server=True),
        ev.SearchQueryUpdate(tool_use_id="srv1", query="pyth"),
        ev.SearchResultsReceived(
            tool_use_id="srv1", query="python", count=1, results=[{"title": "t", "url": "u"}]
        ),
        ev.ApprovalDecided(
            tool_use_id="t1",
            tool="Bash",
            subject="ls",
            decision="allow",
            by="rule",
            rule="Bash(ls)",
            saved_rules=["Bash(ls)"],
        ),
        ev.ToolFinished(
            tool_use_id="t1", tool="Bash", is_error=False, summary="ok", duration_s=0.5
        ),
        ev.MessageFinished(stop_reason="end_turn", usage=Usage(3, 4), content=[]),
        ev.TurnFinished(stop_reason="end_turn", usage=Usage(3, 4), cost_usd=0.01, requests=1),
    ]
    for e in events:
        store.events.append(sid, e)
    loaded = store.events.load(sid)
    assert [s.event for s in loaded] == events
    assert [s.seq for s in loaded] == list(range(len(events)))
    assert all(a.ts <= b.ts for a, b in itertools.pairwise(loaded))
    assert [s.event for s in store.events.load(sid, after=10, limit=2)] == events[11:13]

    # Buffered deltas are written by close(); sequence numbers continue across reopen.
    store.events.append(sid, ev.TextDelta(index=0, text="tail"))
    store.close()
    again = SessionStore(tmp_path / "sessions.db")
    again.events.append(sid, ev.Notice(level="info", text="resumed"))
    seqs = [s.seq for s in again.events.load(sid)]
    assert seqs == list(range(len(events) + 2))
    again.close()


def test_events_buffered_until_boundary(store: SessionStore, tmp_path: Path) -> None:
    sid = store.sessions.create(".", "m")
    store.events.append(sid, ev.TextDelta(index=0, text="a"))
    other = sqlite3.connect(tmp_path / "sessions.db")
    count = "SELECT count(*) FROM events"
    assert other.execute(count).fetchone()[0] == 0  # not one commit per delta
    seq = store.messages.begin(sid, "assistant")
    store.messages.append_block(sid, seq, {"type": "text", "text": "a"})
    assert other.execute(count).fetchone()[0] == 1  # written with the block
    store.events.append(sid, ev.TextDelta(index=1, text="b"))
    store.events.append(sid, ev.BlockFinished(index=1, block={"type": "text", "text": "b"}))
    assert other.execute(count).fetchone()[0] == 3
    other.close()


def test_delete_session(store: SessionStore, turn: Turn, record: Rec) -> None:
    sid = store.sessions.create(".", "m")
    keep = store.sessions.create(".", "m")
    record(store, sid, turn)
    record(store, keep, turn)
    store.events.append(sid, ev.TextDelta(index=0, text="x"))
    store.runs.record(sid, "t", "Bash", {})
    store.turns.record(sid, Usage(1, 1), 0.0)
    assert store.sessions.delete(sid) is True
    assert store.sessions.delete(sid) is False
    assert store.sessions.get(sid) is None
    assert store.messages.load(sid) == [] and store.events.load(sid) == []
    assert all(h.session_id == keep for h in store.sessions.search("git"))
    assert store.messages.load(keep) == turn


def test_migrations_from_empty_db(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    sqlite3.connect(path).close()  # an existing, empty file
    with SessionStore(path):
        pass
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"sessions", "messages", "blocks", "events", "tool_runs", "turns"} <= tables
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(SchemaError):
        SessionStore(path)


def test_open_default_uses_agent_tui_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    with SessionStore.open_default() as s:
        s.sessions.create(".", "m")
    db = tmp_path / "home" / "sessions.db"
    assert db.exists()
    if os.name == "posix":
        assert stat.S_IMODE(db.stat().st_mode) == 0o600


def test_threads_share_one_store(store: SessionStore) -> None:
    import threading

    sid = store.sessions.create(".", "m")

    def work(n: int) -> None:
        for i in range(20):
            store.messages.add(sid, "user", f"t{n} {i}")
            store.events.append(sid, ev.TextDelta(index=0, text=str(i)))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.messages.load(sid, repair=False)) == 80
    assert [e.seq for e in store.events.load(sid)] == list(range(80))


@pytest.mark.parametrize("broken", ["garbage", "directory"])
def test_a_default_database_that_wont_open_says_which_and_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: str
) -> None:
    from agent_tui.sessions.records import StoreUnavailable

    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path))
    db = tmp_path / "sessions.db"
    if broken == "directory":
        db.mkdir()
    else:
        db.write_bytes(b"\x00garbage" * 64)
    with pytest.raises(StoreUnavailable, match="cannot open the session database") as raised:
        SessionStore.open_default()
    assert str(db) in str(raised.value)
    assert db.is_dir() if broken == "directory" else db.read_bytes() == b"\x00garbage" * 64
