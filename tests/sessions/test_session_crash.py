"""A process killed with SIGKILL mid-turn keeps every block it finished."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent_tui.protocol import events as ev
from agent_tui.sessions import INTERRUPTED, SessionStore, conversation_problems

CHILD = textwrap.dedent(
    """
    import sys, time
    from agent_tui.protocol import events as ev
    from agent_tui.sessions import SessionStore

    store = SessionStore(sys.argv[1])
    sid = store.sessions.create(sys.argv[2], "claude-test")
    store.messages.add(sid, "user", "list the files, then read two")
    store.events.append(sid, ev.TurnStarted(prompt="list the files, then read two"))
    seq = store.messages.begin(sid, "assistant")
    for t in ("I will ", "look."):
        store.events.append(sid, ev.TextDelta(index=0, text=t))
    text = {"type": "text", "text": "I will look."}
    store.events.append(sid, ev.BlockFinished(index=0, block=text))
    store.messages.append_block(sid, seq, text)
    for i in (1, 2):
        block = {"type": "tool_use", "id": f"toolu_{i}", "name": "Bash", "input": {"command": "ls"}}
        store.messages.append_block(sid, seq, block)
    res = store.messages.begin(sid, "user")
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a b"}
    store.messages.append_block(sid, res, result)
    # In flight when killed: deltas of the next block, never committed.
    store.events.append(sid, ev.ToolProgress(tool_use_id="toolu_2", tool="Bash", output="partial"))
    print(sid, flush=True)
    time.sleep(60)
    """
)


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_sigkill_mid_turn(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db), str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        sid = proc.stdout.readline().strip()
        assert sid, "child did not start"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL

    store = SessionStore(db)
    latest = store.sessions.latest(tmp_path)  # what --continue picks
    assert latest is not None and latest.id == sid
    assert latest.title == "list the files, then read two"
    raw = store.messages.load(sid, repair=False)
    assert [m["role"] for m in raw] == ["user", "assistant", "user"]
    assert [b.get("id") for b in raw[1]["content"]] == [None, "toolu_1", "toolu_2"]
    assert raw[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a b"}
    ]

    messages = store.messages.load(sid)
    assert conversation_problems(messages) == []
    assert messages[2]["content"][1] == {
        "type": "tool_result",
        "tool_use_id": "toolu_2",
        "content": INTERRUPTED,
        "is_error": True,
    }
    kinds = [type(e.event) for e in store.events.load(sid)]
    assert kinds == [ev.TurnStarted, ev.TextDelta, ev.TextDelta, ev.BlockFinished]

    # Continuing: the next prompt goes after the repaired conversation and is recorded.
    store.messages.add(sid, "user", "go on")
    after = store.messages.load(sid)
    assert conversation_problems(after) == []
    assert after[-1] == {"role": "user", "content": "go on"}
    store.close()
