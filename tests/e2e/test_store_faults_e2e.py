"""The store under faults through the real command line (issue 27.3): a disk that fills up while a
turn runs (a small tmpfs, filled by the Bash call itself), a damaged database and one from a newer
agent-tui. Every case: one line on stderr, no traceback, the exit code the README documents."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conversation_rules import reply, text, tool_use
from scripted_calls import tool_results
from sse_server import SSEServer, run_agent_tui
from store_faults import damage, make_newer, make_sessions, small_tmpfs

from agent_tui.sessions import SessionStore, conversation_problems
from agent_tui.sessions.schema import SCHEMA_VERSION

UNDO_LINE = "agent-tui: warning: Undo: a snapshot of the work tree could not be taken"


def to_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def run(args: list[str], home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "AGENT_TUI_"))}
    env.update(AGENT_TUI_HOME=str(home), AGENT_TUI_OFFLINE_DELAY="0")
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )


def one_line_said(stderr: str, *words: str) -> None:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    for word in words:
        assert word.lower() in lines[0].lower(), stderr


async def test_the_disk_filling_mid_turn_keeps_the_answer_and_says_so_once(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "disk", "3m") as disk:
        if disk is None:
            pytest.skip("mounting a tmpfs needs root and a mount namespace that allows it")
        home, project = disk / "home", disk / "project"
        home.mkdir()
        project.mkdir()
        fill = "dd if=/dev/zero of=filler bs=64k; echo filled"
        steps = [
            to_sse(reply(tool_use("toolu_01", "Bash", {"command": fill}), stop_reason="tool_use")),
            to_sse(
                reply(
                    tool_use("toolu_02", "Bash", {"command": "echo again"}), stop_reason="tool_use"
                )
            ),
            to_sse(reply(text("All done, the disk is full now."))),
        ]
        async with SSEServer(lambda i, body: steps[min(i, 2)]) as server:
            code, out, err = await run_agent_tui(
                server, project, home, "-p", "fill the disk", "--allow", "Bash"
            )
        # undo's snapshot of the folder fails on the full disk too: it says so in a line of its
        # own (once), which is not the store's to say
        undo = [line for line in err.decode().splitlines() if line.startswith(UNDO_LINE)]
        assert len(undo) <= 1 and all("the disk is full" in line for line in undo), undo
        stderr = "\n".join(line for line in err.decode().splitlines() if line not in undo)
        one_line_said(stderr, "Not recording this session", "the disk is full")
        assert "All done, the disk is full now." in out.decode()  # the answer still printed
        assert code == 1  # README: the answer is printed, but the session is not all recorded
        assert len(server.requests) == 3  # both calls' results went to the model
        filled, again = tool_results(server)
        # the command ran in the sandbox (its change set on the same disk): its output is kept,
        # its file held back, not half applied
        assert "filled" in filled and "held back: filler" in filled
        assert not (project / "filler").exists()
        # the next command can't begin its change set: one line says so, and nothing ran
        assert again.startswith("The sandbox could not start the command, so it did not run")
        assert again.endswith("can't be written (the disk is full).") and "\n" not in again
        shutil.rmtree(home / "changes")  # the held change set: room for the store again
        with SessionStore(home / "sessions.db") as store:  # what was written before is intact
            (info,) = store.sessions.recent()
            messages = store.messages.load(info.id)
            assert messages[0]["content"] == [{"type": "text", "text": "fill the disk"}]
            assert conversation_problems(messages) == []


@pytest.mark.parametrize("how", ["data pages", "schema pages", "newer"])
def test_every_sessions_command_says_one_line_about_a_broken_database(
    tmp_path: Path, how: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    db = home / "sessions.db"
    if how == "newer":
        make_newer(db)
        sid = "1"
    else:
        sid = make_sessions(db, tmp_path, 300)[0]
        damage(db, schema=how == "schema pages")
    before = db.read_bytes()
    commands = [
        ["list"],
        ["list", "--review", "unreviewed"],
        ["show", sid],
        ["show", sid, "--json"],
        ["search", "prompt"],
        ["export", sid],
        ["export", sid, "--format", "jsonl"],
        ["calls", "--review", "denied"],
        ["calls", "--review", "unreviewed"],
        ["verify", sid],
        ["delete", sid, "--yes"],
    ]
    commands = [["sessions", *c] for c in commands] + [["rules", "try", "Bash(git push:*)"]]
    for command in commands:
        done = run(command, home, tmp_path)
        assert done.returncode == 1, (command, done.stdout, done.stderr)
        one_line_said(done.stderr, f"agent-tui {command[0]}:", str(db))
        if how == "newer":
            assert "newer than this agent-tui" in done.stderr
        else:
            assert "damaged" in done.stderr or "malformed" in done.stderr, done.stderr
    if how == "newer":  # left as it is: still the newer version, not migrated or rewritten
        with sqlite3.connect(db) as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 5
    else:
        assert db.read_bytes() == before


@pytest.mark.parametrize("how", ["data pages", "newer"])
def test_headless_answers_unrecorded_on_a_broken_database(tmp_path: Path, how: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    db = home / "sessions.db"
    if how == "newer":
        make_newer(db)
    else:
        make_sessions(db, tmp_path, 300)
        damage(db)
    done = run(["-p", "hello"], home, tmp_path)
    assert "offline model" in done.stdout  # the answer
    assert done.returncode == 1
    one_line_said(done.stderr, "not recording this session")
    resumed = run(["-p", "hello", "--continue"], home, tmp_path)
    assert resumed.returncode == 1 and not resumed.stdout
    one_line_said(resumed.stderr, "could not resume", str(db))
