"""Real processes, the real SDK at the loopback server (issue 27.8): `kill -9` in the middle of a
slowly streamed answer keeps what had streamed (marked cut off) and the resumed conversation is
one the API accepts; two processes can't `--continue` one session at once, and a killed one's
lock never blocks the next."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from conversation_rules import assert_valid_conversation, reply, text
from sse_server import Response, SSEServer, run_agent_tui

from agent_tui.sessions import SessionStore, conversation_problems
from agent_tui.sessions.message_log import CUT_OFF, DRAFT_IDX

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGKILL, flock")

HEAD = reply(text("x"))[0]  # message_start


def to_sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


async def slow_answer() -> AsyncIterator[bytes]:
    """An answer that streams a piece every 50 ms and never ends (until the process is killed)."""
    yield to_sse([HEAD])
    start = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    yield to_sse([start])
    for i in range(6000):
        delta = {"type": "text_delta", "text": f"piece {i} "}
        yield to_sse([{"type": "content_block_delta", "index": 0, "delta": delta}])
        await asyncio.sleep(0.05)


def last_prompt(body: Any) -> str:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)


def responder(index: int, body: Any) -> Any:
    if "long story" in last_prompt(body):
        return Response(slow_answer())
    return to_sse(reply(text("a short answer"))).decode()


async def start(server: SSEServer, cwd: Path, home: Path, *args: str) -> asyncio.subprocess.Process:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "AGENT_TUI_"))}
    env.update(
        ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY="sk-ant-e2e", AGENT_TUI_HOME=str(home)
    )
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agent_tui", *args, env=env, cwd=cwd,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip


def draft(db: Path) -> str:
    """The streaming answer's text as the store holds it now ("" before the first piece)."""
    if not db.exists():
        return ""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            row = conn.execute("SELECT json FROM blocks WHERE idx = ?", (DRAFT_IDX,)).fetchone()
    except sqlite3.Error:
        return ""
    return json.loads(row[0])["text"] if row else ""


async def until(condition: Any, what: str, timeout: float = 120.0) -> None:
    """Wait for `condition()` (a bound on waiting, not a timing assertion)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"never happened: {what}")
        await asyncio.sleep(0.05)


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    return project, home


async def test_kill_9_mid_answer_keeps_the_streamed_text_and_resumes_validly(
    dirs: tuple[Path, Path],
) -> None:
    project, home = dirs
    db = home / "sessions.db"
    async with SSEServer(responder) as server:
        proc = await start(server, project, home, "-p", "tell me a long story")
        try:
            # more than a second of streaming has been kept
            await until(lambda: "piece 30 " in draft(db), "the streamed text reached the store")
        finally:
            proc.send_signal(signal.SIGKILL)
            await proc.wait()
        assert proc.returncode == -signal.SIGKILL
        kept_at_kill = draft(db)

        with SessionStore(db) as store:
            (info,) = store.sessions.recent()
            messages = store.messages.load(info.id)
        assert conversation_problems(messages) == []
        answer = messages[-1]
        assert answer["role"] == "assistant"
        (block,) = answer["content"]
        assert block["text"] == kept_at_kill + CUT_OFF  # marked as cut off
        assert block["text"].startswith("piece 0 piece 1 piece 2 ")

        # The killed process's lock doesn't stand in the way, and what it kept goes to the API.
        code, out, err = await run_agent_tui(server, project, home, "-p", "go on", "--continue")
        assert code == 0, err.decode()
        assert "a short answer" in out.decode()
        sent = server.requests[-1].json["messages"]
        assert_valid_conversation(sent)
        assert kept_at_kill in json.dumps(sent[-2])
        assert last_prompt(server.requests[-1].json) == "go on"


async def test_two_processes_continuing_one_session(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    db = home / "sessions.db"
    async with SSEServer(responder) as server:
        code, _, err = await run_agent_tui(server, project, home, "-p", "hello")
        assert code == 0, err.decode()
        with SessionStore(db) as store:
            (original,) = store.sessions.recent()

        holder = await start(server, project, home, "-p", "tell me a long story", "--continue")
        try:
            await until(lambda: "piece 1 " in draft(db), "the first process is mid-answer")
            code, out, err = await run_agent_tui(server, project, home, "-p", "hi", "--continue")
            assert code == 1 and not out
            lines = err.decode().strip().splitlines()
            assert len(lines) == 1 and "Traceback" not in lines[0]
            assert (
                f"session {original.id} is in use by another agent-tui (pid {holder.pid})"
                in lines[0]
            )
            assert "--fork-session" in lines[0]

            code, out, err = await run_agent_tui(
                server, project, home, "-p", "hi", "--continue", "--fork-session"
            )
            assert code == 0, err.decode()
            assert "a short answer" in out.decode()
        finally:
            holder.send_signal(signal.SIGKILL)
            await holder.wait()

        with SessionStore(db) as store:
            sessions = {s.title: s for s in store.sessions.recent()}
            fork = sessions["hello (fork)"]
            copied = store.messages.load(fork.id)
            assert copied[0]["content"] in ("hello", [{"type": "text", "text": "hello"}])
            assert last_prompt({"messages": copied[:-1]}) == "hi"
            assert store.messages.load(original.id)[-2]["role"] == "user"  # the holder's prompt

        # the holder was killed: its session opens again at once
        code, out, err = await run_agent_tui(
            server, project, home, "-p", "again", "--resume", original.id
        )
        assert code == 0, err.decode()
