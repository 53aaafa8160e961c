"""A headless run leaves its heap to the OS at exit (`quick_exit`: the interpreter's closing
collections walk nothing), and loses nothing by it (issue 49): when the process is gone its
session is whole in the database, which was closed cleanly (no write-ahead log left, the session's
lock released), verifies, and the start-up caches it wrote read back."""

from __future__ import annotations

import atexit
import gc
import json
import marshal
from pathlib import Path

import pytest
from conversation_rules import reply, text, tool_use
from sse_server import SSEServer, run_agent_tui

from agent_tui import quick_exit
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

    kept = sorted((home / "cache").glob("*.marshal"))
    assert kept, "the start-up caches were written at exit"
    for path in kept:
        marshal.loads(path.read_bytes())  # each one whole


def test_the_heap_is_frozen_at_exit_once_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    registered: list[object] = []
    monkeypatch.setattr(atexit, "register", registered.append)
    monkeypatch.setattr(quick_exit, "_registered", False)
    quick_exit.skip_closing_collections()
    quick_exit.skip_closing_collections()
    assert registered == [gc.freeze]
