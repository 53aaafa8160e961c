"""Claude Code's flags, headless, through the real CLI at the loopback API: each works (no usage
error), and does what Claude Code's does — as far as what the API was sent and what ran show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripted_calls import calls_then_done, setup, tool_results
from sse_server import SSEServer, run_agent_tui

from agent_tui.claude_flags import split_tools


def test_tool_lists_split_at_commas_outside_parentheses() -> None:
    assert split_tools(["Bash(git log *),Read", "Edit"]) == ["Bash(git log *)", "Read", "Edit"]
    assert split_tools(["Bash(git log --format=%h,%s)"]) == ["Bash(git log --format=%h,%s)"]


async def test_system_prompt_flags(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    async with SSEServer(calls_then_done()) as server:
        code, _, err = await run_agent_tui(
            server, work, home, "-p", "hi", "--system-prompt", "You are a terse reviewer.",
            "--append-system-prompt", "Answer in French.", "--verbose",
        )  # fmt: skip
        assert code == 0, err.decode()
        system = json.dumps(server.requests[0].json["system"])
    assert "You are a terse reviewer." in system and "Answer in French." in system
    assert "You are agent-tui" not in system and "Working directory" in system


@pytest.mark.parametrize(
    ("flags", "written"),
    [
        (["--permission-mode", "acceptEdits"], True),
        (["--dangerously-skip-permissions"], True),
        (["--permission-mode", "plan"], False),
        (["--dangerously-skip-permissions", "--disallowedTools", "Write"], False),
        (["--allowedTools", "Read,Write(./note.txt)"], True),
        ([], False),
    ],
)
async def test_permission_flags(tmp_path: Path, flags: list[str], written: bool) -> None:
    work, home = setup(tmp_path)
    write = ("Write", {"file_path": str(work / "note.txt"), "content": "x"})
    async with SSEServer(calls_then_done(write)) as server:
        code, _, err = await run_agent_tui(server, work, home, "-p", "go", *flags)
        assert code == 0, err.decode()
    assert (work / "note.txt").exists() is written


async def test_continue_and_resume_short_flags(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    async with SSEServer(calls_then_done()) as server:
        code, out, err = await run_agent_tui(
            server, work, home, "-p", "first prompt", "--output-format", "json"
        )
        assert code == 0, err.decode()
        session = json.loads(out)["session_id"]
        code, _, err = await run_agent_tui(server, work, home, "-c", "-p", "second prompt")
        assert code == 0, err.decode()
        assert "first prompt" in json.dumps(server.requests[-1].json["messages"])
        code, _, err = await run_agent_tui(server, work, home, "-r", session, "-p", "third")
        assert code == 0, err.decode()
        assert "second prompt" in json.dumps(server.requests[-1].json["messages"])


async def test_settings_file_and_add_dir(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.md").write_text("the notes")
    settings = tmp_path / "run-settings.json"
    settings.write_text(json.dumps({"model": "haiku", "permissions": {"allow": ["Bash(echo *)"]}}))
    calls = (
        ("Bash", {"command": "echo from-settings"}),
        ("Read", {"file_path": str(other / "notes.md")}),
    )
    async with SSEServer(calls_then_done(*calls)) as server:
        code, _, err = await run_agent_tui(
            server, work, home, "-p", "go", "--settings", str(settings), "--add-dir", str(other)
        )
        assert code == 0, err.decode()
        assert server.requests[0].json["model"] == "claude-haiku-5-5"
        said = tool_results(server)
    assert "from-settings" in said[0] and "the notes" in said[1]


@pytest.mark.parametrize(
    "flags",
    [
        ["--allowedTools", "Bash(git * main)"],
        ["--permission-mode", "plan", "--dangerously-skip-permissions"],
        ["--settings", "/no/such/settings.json"],
        ["--add-dir", "/no/such/dir"],
    ],
)
async def test_a_flag_that_cant_be_used_is_a_usage_error(tmp_path: Path, flags: list[str]) -> None:
    work, home = setup(tmp_path)
    async with SSEServer(calls_then_done()) as server:
        code, _, err = await run_agent_tui(server, work, home, "-p", "go", *flags)
        assert server.requests == []
    assert code == 2 and "error:" in err.decode()
