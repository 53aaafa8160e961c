"""A headless run's collector (`headless_gc`, issue 49): start-up's objects are frozen at the
first response and the heap is left to the OS at exit (the interpreter's closing collections walk
nothing), and nothing is lost by it: when the process is gone its session is whole in the
database, which was closed cleanly (no write-ahead log left, the session's lock released),
verifies, and the start-up caches it wrote read back."""

from __future__ import annotations

import atexit
import gc
import json
from pathlib import Path

import pytest
from conversation_rules import reply, text, tool_use
from sse_server import SSEServer, run_agent_tui

from agent_tui import headless_gc
from agent_tui.protocol.events import MessageStarted
from agent_tui.sessions import SessionStore


def to_sse(events: list[dict[str, object]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


async def test_the_session_is_whole_and_closed_when_the_process_is_gone(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    steps = [
        to_sse(
            reply(
                tool_use("toolu_01", "Bash", {"command": "echo hi-from-bash"}),
                stop_reason="tool_use",
            )
        ),
        to_sse(reply(text("Said hi, all done."))),
    ]
    async with SSEServer(lambda i, body: steps[min(i, 1)]) as server:
        code, out, err = await run_agent_tui(
            server, project, home, "-p", "say hi", "--allow", "Bash(echo:*)",
            "--output-format", "json",
        )  # fmt: skip
        assert code == 0, err.decode()
        result = json.loads(out)  # stdout was flushed whole before the process went
        assert result["result"] == "Said hi, all done." and not result["is_error"]
        sid = result["session_id"]
        assert "hi-from-bash" in json.dumps(server.requests[1].json["messages"][-1])
        code, said, err = await run_agent_tui(server, project, home, "sessions", "verify", sid)
    assert code == 0 and said.decode().startswith(f"{sid}: "), err.decode()

    db = home / "sessions.db"
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()  # closed cleanly
    assert not any((home / "session-locks").iterdir())  # the session's lock was released
    with SessionStore(db) as store:
        (info,) = store.sessions.recent()
        assert info.id == sid
        messages = store.messages.load(sid)
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert "hi-from-bash" in json.dumps(messages[2]) and "all done" in json.dumps(messages[3])
    assert not (home / "cache").exists()  # no start-up cache: nothing kept for the next start


def test_start_up_waits_for_the_first_response_and_the_exit_freezes_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registered: list[object] = []
    frozen: list[str] = []

    def freeze() -> None:  # (the test process's own heap stays as it is)
        frozen.append("freeze")

    monkeypatch.setattr(atexit, "register", registered.append)
    monkeypatch.setattr(gc, "freeze", freeze)
    monkeypatch.setattr(gc, "get_freeze_count", lambda: 0)
    monkeypatch.setattr(headless_gc, "_exit_registered", False)
    before = gc.get_threshold()
    try:
        headless_gc.start()
        assert gc.get_threshold()[0] >= headless_gc.STARTUP_THRESHOLD and frozen == []
        headless_gc.on_event(MessageStarted(message_id="msg_1", model="m"))
        assert gc.get_threshold() == before and frozen == ["freeze"]  # start-up's, frozen
        headless_gc.on_event(MessageStarted(message_id="msg_2", model="m"))
        assert frozen == ["freeze"]  # once
        headless_gc.start()  # a second run in this process: its own start-up, no second hook
        headless_gc.finish()  # it ended before any response: the thresholds come back
        assert gc.get_threshold() == before and frozen == ["freeze"]
    finally:
        gc.set_threshold(*before)
    assert registered == [freeze]
