"""`-w/--worktree [NAME]`: `../<repo>-<NAME>` on a new branch from the current commit, the
session there (through the real CLI at the loopback API: its files land in the worktree, its
commands run there, its record names it), the branch in the sessions browser, and leaving:
kept, removed (with the branch when nothing was committed on it), never removed with changes
unless asked twice; refused outside git, over an existing folder or branch, for a bad name and
in a repository whose git config runs a program."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from rich.console import Console
from scripted_calls import calls_then_done, tool_results
from sse_server import SSEServer, run_agent_tui

from agent_tui.sessions.records import SessionInfo
from agent_tui.ui.views.session_rows import Row, session_row
from agent_tui.worktree import WorktreeError, branch_of, create, leave


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / "src").mkdir(parents=True)
    git(work, "init", "-q", "-b", "main")
    (work / "src" / "a.py").write_text("print(1)\n")
    git(work, "add", "-A")
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    return work


def test_a_worktree_beside_the_repository_on_a_new_branch(repo: Path) -> None:
    wt = create(repo / "src", "fix-parser")
    assert wt.path == repo.parent / "proj-fix-parser" and wt.cwd == wt.path / "src"
    assert (wt.cwd / "a.py").read_text() == "print(1)\n"
    assert branch_of(wt.cwd) == "fix-parser" and branch_of(repo) == "main"
    assert git(repo, "rev-parse", "fix-parser") == wt.base == git(repo, "rev-parse", "HEAD")
    assert branch_of(repo.parent) is None


@pytest.mark.parametrize("answer", ["k", ""])
def test_leaving_keeps_it_unless_told(repo: Path, answer: str) -> None:
    wt = create(repo, "keep")
    assert leave(wt, answer).startswith("Kept the worktree") and wt.path.is_dir()


def test_removing_takes_the_branch_only_when_nothing_was_committed(repo: Path) -> None:
    plain = create(repo, "plain")
    assert "and its branch plain" in leave(plain, "r")
    assert not plain.path.exists() and git(repo, "branch", "--list", "plain") == ""
    worked = create(repo, "worked")
    (worked.path / "b.py").write_text("")
    assert "changes not committed" in leave(worked, "r") and worked.path.is_dir()
    git(worked.path, "add", "-A")
    git(worked.path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "b")
    said = leave(worked, "r")
    assert "keeps what was committed" in said and not worked.path.exists()
    assert git(repo, "branch", "--list", "worked") != ""


def test_changes_go_only_when_asked_twice(repo: Path) -> None:
    wt = create(repo, "dirty")
    (wt.path / "c.py").write_text("")
    assert "Removed" in leave(wt, "f") and not wt.path.exists()


def test_what_is_refused(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    with pytest.raises(WorktreeError, match="not in a git repository"):
        create(outside, "x")
    with pytest.raises(WorktreeError, match="a name is"):
        create(repo, "../escape")
    (repo.parent / "proj-taken").mkdir()
    with pytest.raises(WorktreeError, match="exists already"):
        create(repo, "taken")
    git(repo, "branch", "used")
    with pytest.raises(WorktreeError, match="a branch used exists already"):
        create(repo, "used")
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.write_text("#!/bin/sh\ntouch " + str(tmp_path / "ran") + "\n")
    hook.chmod(0o755)
    with pytest.raises(WorktreeError, match="config runs a program"):
        create(repo, "hooked")
    assert not (tmp_path / "ran").exists()


def test_the_sessions_browser_shows_the_branch(repo: Path) -> None:
    wt = create(repo, "browse")
    info = SessionInfo("s1", "fix it", str(wt.cwd), "m", 0.0, 0.0, 2, 0, 0, 0, 0, 0, 0.0)
    console = Console(width=120, record=True)
    with console.capture() as out:
        console.print(session_row(Row(info)))
    assert "⎇ browse" in out.get()


async def test_the_session_runs_in_the_worktree(repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    responder = calls_then_done(
        ("Write", {"file_path": "note.txt", "content": "hello"}), ("Bash", {"command": "pwd"})
    )
    async with SSEServer(responder) as server:
        code, out, err = await run_agent_tui(
            server, repo, home, "-w", "agent-work", "-p", "write a note", "--sandbox", "off",
            "--allow", "Bash(pwd)", "--allow", "Write", "--output-format", "json",
        )  # fmt: skip
        assert code == 0, err.decode()
        results = tool_results(server)
    worktree = repo.parent / "proj-agent-work"
    assert (worktree / "note.txt").read_text() == "hello" and not (repo / "note.txt").exists()
    assert str(worktree) in results[1]
    assert f"working in {worktree}" in out.decode() + err.decode()
    assert "The worktree stays" in err.decode() and worktree.is_dir()  # no terminal: kept
    import sqlite3

    [db] = [p for p in home.rglob("*.db") if "session" in p.name]
    with sqlite3.connect(db) as con:
        assert [r[0] for r in con.execute("SELECT cwd FROM sessions")] == [str(worktree)]
    result = json.loads(out.decode().strip().splitlines()[-1])
    assert result["subtype"] == "success"
