"""The command line as a user runs it: a real subprocess, the offline model, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def run(
    args: list[str], tmp_path: Path, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL")
    }
    base.update({"AGENT_TUI_HOME": str(tmp_path / "home"), "AGENT_TUI_OFFLINE_DELAY": "0", **env})
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        capture_output=True,
        text=True,
        env=base,
        cwd=tmp_path,
        timeout=120,
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
    )


def test_print_mode_prints_the_answer(tmp_path: Path) -> None:
    done = run(["-p", "hi", "--offline"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Hello from the offline model" in done.stdout
    assert "```python" in done.stdout


def test_no_key_means_offline(tmp_path: Path) -> None:
    done = run(["-p", "hello"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "offline model" in done.stdout


def test_stream_json_has_one_typed_event_a_line(tmp_path: Path) -> None:
    # --sandbox on: the asking mode (by default the sandbox runs the command unasked)
    done = run(
        ["-p", "run a command", "--output-format", "stream-json", "--sandbox", "on"], tmp_path
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    types = [e["type"] for e in events]
    for expected in ("text", "tool_call", "permission", "tool_result", "turn_end"):
        assert expected in types
    permission = next(e for e in events if e["type"] == "permission")
    # Headless: an ask becomes a deny, said as a permission event.
    assert permission["decision"] == "deny" and permission["by"] == "headless"
    # our events end with turn_end; Claude Code's `result` line comes last (stream_json.py)
    ours = [e for e in events if e["type"] not in ("system", "assistant", "user", "result")]
    assert ours[-1]["type"] == "turn_end" and events[-1]["type"] == "result"


def test_headless_allow_flag_lets_the_command_run(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x" * 5000)
    # reading runs unasked; the pipeline's write to largest.txt needs the rule
    rules = ["--allow", "Edit(./largest.txt)"]
    done = run(["-p", "run a command", *rules, "--cwd", str(tmp_path)], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "notes.txt" in done.stdout


def test_deny_flag_wins_over_allow(tmp_path: Path) -> None:
    args = ["-p", "run a command", "--approve-asks", "--deny", "Bash(du:*)"]
    done = run([*args, "--output-format", "stream-json"], tmp_path)
    events = [json.loads(line) for line in done.stdout.splitlines()]
    permission = next(e for e in events if e["type"] == "permission")
    assert permission["decision"] == "deny"
    assert permission["rule"] == "Bash(du:*)"


def test_search_in_stream_json_shows_queries_and_results(tmp_path: Path) -> None:
    args = ["-p", "search the web for textual markdown", "--allow", "WebSearch"]
    done = run([*args, "--output-format", "stream-json"], tmp_path)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    queries = [e["query"] for e in events if e["type"] == "search_query"]
    assert queries and queries[-1].startswith("textual markdown")
    assert any(e["type"] == "search_results" and e["count"] > 0 for e in events)


@pytest.mark.parametrize(
    ("args", "code"),
    [(["--bogus"], 2), (["--cwd", "/nonexistent/dir", "-p", "x"], 2), (["--version"], 0)],
)
def test_exit_codes(tmp_path: Path, args: list[str], code: int) -> None:
    assert run(args, tmp_path).returncode == code


def test_sessions_are_recorded_and_listed(tmp_path: Path) -> None:
    assert run(["-p", "hello there"], tmp_path).returncode == 0
    listed = run(["sessions", "list"], tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "hello there" in listed.stdout


def test_resume_with_an_unknown_id_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    done = run(["-p", "hi", "--resume", "nosuch"], tmp_path)
    assert done.returncode == 1
    assert "could not resume" in done.stderr
    assert "Traceback" not in done.stderr


def test_continue_resumes_the_latest_session(tmp_path: Path) -> None:
    assert run(["-p", "hello there"], tmp_path).returncode == 0
    again = run(["-p", "run a command", "--continue", "--output-format", "stream-json"], tmp_path)
    assert again.returncode == 0, again.stderr
    listed = run(["sessions", "list", "--no-header"], tmp_path)
    assert listed.stdout.count("hello there") == 1  # the same session, not a new one
    assert len([line for line in listed.stdout.splitlines() if line.strip()]) == 1


@pytest.mark.parametrize("broken", ["not a database", "a directory"])
def test_a_session_database_that_wont_open_is_named_and_left_alone(
    tmp_path: Path, broken: str
) -> None:
    db = tmp_path / "home" / "sessions.db"
    db.parent.mkdir()
    if broken == "a directory":
        db.mkdir()
    else:
        db.write_bytes(b"not sqlite " * 100)
    before = db.read_bytes() if db.is_file() else None
    done = run(["-p", "hello"], tmp_path)  # the answer still comes, unrecorded: exit 1 says so
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "not recording this session: cannot open the session database" in done.stderr
    assert str(db) in done.stderr and done.stdout.strip()
    resumed = run(["-p", "hello", "--continue"], tmp_path)  # asked to resume: can't, so says so
    assert resumed.returncode == 1 and "could not resume: cannot open" in resumed.stderr
    listed = run(["sessions", "list"], tmp_path)
    assert listed.returncode == 1 and "Traceback" not in listed.stderr
    assert listed.stderr.count("cannot open the session database") == 1
    assert (db.read_bytes() if db.is_file() else None) == before


# --- the first hour (issue 12) --------------------------------------------------------------------


@pytest.mark.parametrize("args", [["-p", "hi"], []])
def test_an_unusable_home_is_one_clear_line(tmp_path: Path, args: list[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    done = run(args, tmp_path, AGENT_TUI_HOME=str(blocker / "home"))
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"agent-tui: cannot use AGENT_TUI_HOME={blocker}"
    )
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("args", [[], ["--resume"], ["--continue"]])
def test_no_terminal_is_a_usage_error_not_a_spin(tmp_path: Path, args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**os.environ, "AGENT_TUI_HOME": str(tmp_path / "home")},
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == 'agent-tui: not a terminal; use -p "PROMPT"'
    assert done.stdout == ""


@pytest.mark.parametrize("prompt", ["", "   "])
def test_an_empty_prompt_is_a_usage_error(tmp_path: Path, prompt: str) -> None:
    done = run(["-p", prompt, "--offline"], tmp_path)
    assert done.returncode == 2
    assert "-p needs a prompt" in done.stderr
    assert not (tmp_path / "home" / "sessions.db").exists()  # nothing recorded


@pytest.mark.parametrize("flag", ["--allow", "--deny"])
def test_a_malformed_rule_flag_is_a_usage_error(tmp_path: Path, flag: str) -> None:
    done = run(["-p", "hi", "--offline", flag, "Bash("], tmp_path)
    assert done.returncode == 2
    assert "Bash(" in done.stderr


def test_settings_warnings_are_shown_and_unreadable_settings_disable_approve_asks(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    # one character off: the deny rules in this file can't be read
    (home / "settings.toml").write_text('[permissions\ndeny = ["Bash(rm:*)"]\n')
    done = run(["-p", "run a command", "--offline", "--approve-asks"], tmp_path)
    assert "warning:" in done.stderr and "settings.toml" in done.stderr
    assert "--approve-asks is off for this run" in done.stderr


def test_stream_json_says_the_session_in_its_first_and_last_events(tmp_path: Path) -> None:
    done = run(["-p", "hi", "--offline", "--output-format", "stream-json"], tmp_path)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    first, last = events[0], events[-1]
    assert (first["type"], first["subtype"], last["type"]) == ("system", "init", "result")
    assert events[-2]["type"] == "turn_end" and events[1]["type"] == "turn_start"
    ids = {e["session_id"] for e in (first, last, events[1], events[-2])}
    assert len(ids) == 1 and len(first["session_id"]) == 13
    listed = run(["sessions", "list"], tmp_path)
    assert first["session_id"] in listed.stdout


def test_nothing_listening_at_the_base_url_is_named_and_given_up_quickly(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again below: nothing listens there
    done = run(
        ["-p", "hi", "--output-format", "stream-json"],
        tmp_path,
        ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port}",
        ANTHROPIC_API_KEY="sk-ant-test",
    )
    assert done.returncode == 1
    assert f"127.0.0.1:{port}" in done.stderr and "nothing is listening" in done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    retries = [e for e in events if e["type"] == "notice" and "Retrying" in e["text"]]
    assert len(retries) == 1  # one quick retry, not four with growing back-off


@pytest.mark.parametrize("value", ["0", "-1", "lots"])
def test_a_bad_spending_cap_is_a_usage_error(tmp_path: Path, value: str) -> None:
    done = run(["-p", "hi", "--offline", "--max-cost", value], tmp_path)
    assert done.returncode == 2 and "--max-cost" in done.stderr


def test_the_offline_model_never_reaches_a_cap(tmp_path: Path) -> None:
    done = run(["-p", "search the web for textual", "--offline", "--max-cost", "0.01"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Stopped:" not in done.stdout + done.stderr


def first_prompt(tmp_path: Path) -> str:
    shown = run(["sessions", "show", "--last"], tmp_path).stdout
    if "## You" not in shown:  # no --last: the newest session's id from the list
        sid = run(["sessions", "list"], tmp_path).stdout.splitlines()[1].split()[0]
        shown = run(["sessions", "show", sid], tmp_path).stdout
    return shown.split("## You", 1)[1].split("## Claude", 1)[0].strip()


def test_piped_input_joins_the_prompt(tmp_path: Path) -> None:
    done = run(["-p", "review this", "--offline"], tmp_path, stdin="+added line\n-removed\n")
    assert done.returncode == 0, done.stderr
    assert first_prompt(tmp_path) == "review this\n\n<stdin>\n+added line\n-removed\n</stdin>"


def test_piped_input_alone_is_the_prompt(tmp_path: Path) -> None:
    done = run(["-p", "--offline"], tmp_path, stdin="hello there\n")
    assert done.returncode == 0, done.stderr
    assert first_prompt(tmp_path) == "hello there"
    done = run(["-p", "--offline"], tmp_path, stdin=" \n")
    assert done.returncode == 2 and "-p needs a prompt" in done.stderr


def test_p_before_other_flags_takes_the_prompt_after_them(tmp_path: Path) -> None:
    done = run(["-p", "--offline", "hello"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert first_prompt(tmp_path) == "hello"


def test_denied_calls_are_said_on_stderr_with_the_flag_that_allows_them(tmp_path: Path) -> None:
    done = run(["-p", "run a command", "--offline", "--sandbox", "on"], tmp_path)
    assert done.returncode == 0, done.stderr  # the turn answered: as Claude Code, exit 0
    lines = done.stderr.splitlines()
    assert "agent-tui: 1 tool call denied in this run:" in lines
    assert any(line.startswith("  Bash: du -sh") for line in lines)
    assert "agent-tui: to allow them, run again with --allow 'Edit(./largest.txt)'" in lines
    # the flag it names does allow it: nothing is denied the second time
    allow = ["--allow", "Edit(./largest.txt)", "--sandbox", "on"]
    again = run(["-p", "run a command", "--offline", *allow], tmp_path)
    assert again.returncode == 0 and "denied" not in again.stderr
    assert (tmp_path / "largest.txt").exists()


def test_json_result_lists_the_denied_calls(tmp_path: Path) -> None:
    args = ["-p", "run a command", "--offline", "--output-format", "json", "--sandbox", "on"]
    done = run(args, tmp_path)
    result = json.loads(done.stdout)
    [denial] = result["permission_denials"]
    assert denial["tool_name"] == "Bash" and denial["by"] == "headless"
    assert denial["subject"].startswith("du -sh")
    assert (
        json.loads(run(["-p", "hi", "--offline", "--output-format", "json"], tmp_path).stdout)[
            "permission_denials"
        ]
        == []
    )
