from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tui.sessions import SessionStore
from agent_tui.sessions.cli import main

Turn = list[dict[str, Any]]
Rec = Callable[[SessionStore, str, Turn], None]


@pytest.fixture
def home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, turn: Turn, record: Rec
) -> tuple[str, str]:
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    with SessionStore.open_default() as store:
        first = store.sessions.create(tmp_path / "a", "claude-test", created_at=1_700_000_000)
        record(store, first, turn)
        store.runs.record(first, "toolu_01", "Bash", {"command": "git status"},
                              decision="allow", decided_by="rule", rule="Bash(git status)",
                              exit_code=0)  # fmt: skip
        second = store.sessions.create(tmp_path / "b", "claude-test")
        store.messages.add(second, "user", "second session prompt")
    return first, second


def test_list(home: tuple[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    first, second = home
    assert main(["list"]) == 0
    header, *lines = capsys.readouterr().out.splitlines()
    assert header.split()[:4] == ["ID", "UPDATED", "MSGS", "COST"]
    assert [ln.split()[0] for ln in lines] == [second, first]
    assert "second session prompt" in lines[0]

    assert main(["list", "--json", "--limit", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["id"] for d in data] == [second] and data[0]["message_count"] == 1

    assert main(["list", "--cwd", str(tmp_path / "a"), "--json"]) == 0
    assert [d["id"] for d in json.loads(capsys.readouterr().out)] == [first]


def test_show(home: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    first, _ = home
    assert main(["show", first[:11]]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# What is new in Python 3.13?")
    assert "**Tool call** `Bash` — allowed by rule `Bash(git status)`" in out
    assert "git status" in out and "**Web search:** python 3.13 release notes" in out
    assert main(["show", first, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == first


def test_search(home: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    first, _ = home
    assert main(["search", "working", "tree"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{first}  #2 tool_output") and "[working] [tree]" in out
    assert main(["search", '"(unbalanced']) == 0
    assert "no matches" in capsys.readouterr().err


def test_export(
    home: tuple[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path, turn: Turn
) -> None:
    first, _ = home
    assert main(["export", first, "--format", "jsonl"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(ln) for ln in lines] == turn
    out = tmp_path / "t.md"
    assert main(["export", first, "--format", "md", "-o", str(out)]) == 0
    text = out.read_text()
    assert "## You" in text and "## Claude" in text and "**Result**" in text
    assert "[What's New In Python 3.13](https://docs.python.org/3/whatsnew/3.13.html)" in text


def test_delete(
    home: tuple[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = home
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))  # not a terminal: --yes required
    assert main(["delete", first]) == 1
    assert "--yes" in capsys.readouterr().err
    assert main(["delete", first, "--yes"]) == 0
    assert main(["show", first]) == 1
    assert main(["list", "--json"]) == 0
    assert [d["id"] for d in json.loads(capsys.readouterr().out)] == [second]


def test_errors_and_usage(home: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "zzzzzz"]) == 1
    assert "no session matches 'zzzzzz'" in capsys.readouterr().err
    assert main(["export", "zzzz", "--format", "jsonl"]) == 1
    assert main(["show", "1"]) == 1  # both ids start with "1": ambiguous
    assert "ambiguous" in capsys.readouterr().err
    assert main([]) == 2
    assert main(["frobnicate"]) == 2
    assert main(["export", home[0], "--format", "pdf"]) == 2
    assert main(["list", "--limit", "many"]) == 2
    assert main(["--help"]) == 0
    capsys.readouterr()
    assert main(["sessions", "list"]) == 0  # the full sub-command line is accepted too


def test_list_can_hide_empty_and_failed_sessions(
    home: tuple[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from agent_tui.protocol.events import Usage

    first, second = home
    assert main(["list", "--hide-empty", "--no-header"]) == 0
    assert [ln.split()[0] for ln in capsys.readouterr().out.splitlines()] == [first]
    with SessionStore.open_default() as store:
        store.turns.record(first, Usage(), 0.0, stop_reason=None)  # the last turn failed
    assert main(["list", "--hide-failed", "--no-header"]) == 0
    assert [ln.split()[0] for ln in capsys.readouterr().out.splitlines()] == [second]
