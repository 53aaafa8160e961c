"""`agent-tui sessions verify` through the real CLI: a session recorded by `agent-tui -p` against
the loopback server verifies; after one stored row is edited with sqlite3, verify fails (exit 3)
and names that row."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

from sse_server import SSEServer, run_agent_tui, sse_fixture

from agent_tui.sessions.cli import EXIT_BROKEN


async def _cli(server: SSEServer, tmp_path: Path, *args: str) -> tuple[int, str, str]:
    code, out, err = await run_agent_tui(server, tmp_path, tmp_path / "home", *args)
    return code, out.decode(), err.decode()


async def test_verify_fails_on_an_edited_row(tmp_path: Path) -> None:
    async with SSEServer(lambda n, body: sse_fixture("text_only.sse")) as server:
        code, _, err = await _cli(server, tmp_path, "-p", "hi")
        assert code == 0, err
        db = tmp_path / "home" / "sessions.db"
        (sid,) = sqlite3.connect(db).execute("SELECT id FROM sessions").fetchone()
        code, out, err = await _cli(server, tmp_path, "sessions", "verify", sid)
        assert code == 0, err
        assert out.startswith(f"{sid}: ") and " events verify; head " in out

        rows = (
            sqlite3.connect(db)
            .execute("SELECT seq, json FROM events WHERE session_id = ? ORDER BY seq", (sid,))
            .fetchall()
        )
        seq = next(s for s, text in rows if json.loads(text)["type"] == "text_delta")
        edit = f"UPDATE events SET json = replace(json, 'e', 'E') WHERE seq = {seq};"
        if shutil.which("sqlite3"):
            subprocess.run(["sqlite3", str(db), edit], check=True)
        else:  # pragma: no cover - the sqlite3 shell isn't everywhere
            with sqlite3.connect(db) as conn:
                conn.execute(edit)
        code, out, err = await _cli(server, tmp_path, "sessions", "verify", sid)
    assert code == EXIT_BROKEN and out == ""
    assert f"event {seq} (text_delta, " in err and "does not match its hash" in err
    assert f"{seq} events before it verify" in err


async def test_verify_unknown_session_is_an_error(tmp_path: Path) -> None:
    async with SSEServer(lambda n, body: sse_fixture("text_only.sse")) as server:
        code, _, err = await _cli(server, tmp_path, "sessions", "verify", "nosuchid")
    assert code == 1 and "no session matches" in err
