"""A plain start says nothing on stderr (our logger has a `NullHandler`, and a speed-up standing
down is a line of the debug log, not a warning over the screen); `--debug` writes the log to a
file in the data dir, says where at the start, keeps secrets out of it, and lists which
speed-ups stood down and why (so does `/doctor`)."""

from __future__ import annotations

import argparse
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from fresh_interpreter import UNTIL_BOOTED, child_env

from agent_tui import debug_log
from agent_tui.speedups.guard import OFF_VARIABLE

KEY = "sk-ant-api03-debuglog-secret-value-0123456789"


def run(code: str, home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=home,
        env=child_env(AGENT_TUI_HOME=str(home), AGENT_TUI_OFFLINE_DELAY="0", **env),
    )


def test_a_record_of_ours_never_reaches_stderr_unconfigured(tmp_path: Path) -> None:
    """The logging path itself, as on every Python: a warning of ours, and a speed-up standing
    down (its digests no longer the library's), with nothing configured."""
    code = (
        "import logging\n"
        "import agent_tui\n"
        "logging.getLogger('agent_tui.speedups').warning('a speed-up stands down')\n"
        "logging.getLogger('agent_tui.sessions.store').error('an error of ours')\n"
        "from agent_tui.speedups.guard import Patch, fits\n"
        "assert not fits(Patch('p', 'Textual', '8.2.8', 'x', {'textual.strip:Strip.crop': 1}))\n"
        "print('done')\n"
    )
    done = run(code, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "done\n", "")


def test_without_our_handler_the_same_warning_would_show(tmp_path: Path) -> None:
    """The check above sees what it checks: Python's last-resort handler prints such a record."""
    code = (
        "import logging\nimport agent_tui\n"
        "logging.getLogger('agent_tui').handlers.clear()\n"
        "logging.getLogger('agent_tui.speedups').warning('a speed-up stands down')\n"
    )
    assert run(code, tmp_path).stderr == "a speed-up stands down\n"


# The TUI as `agent-tui --offline [ARGS]` starts it (headless), until its boot worker is done;
# the chat's notices printed at the end.
TUI = (
    UNTIL_BOOTED
    + r"""
notices = []
from agent_tui.ui.chat.messages import ChatView
append = ChatView.append

def appended(self, message, *args, **kwargs):
    notices.append(getattr(message, "text", ""))
    return append(self, message, *args, **kwargs)

ChatView.append = appended
from agent_tui.cli import main
code = main(["--offline", *sys.argv[1:]])
print(repr(notices))
raise SystemExit(code)
"""
)


def test_a_plain_start_prints_nothing_on_stderr(tmp_path: Path) -> None:
    headless = subprocess.run(
        [sys.executable, "-m", "agent_tui", "-p", "hello", "--offline"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=child_env(AGENT_TUI_HOME=str(tmp_path), AGENT_TUI_OFFLINE_DELAY="0"),
    )
    assert headless.returncode == 0 and headless.stdout.strip()
    assert headless.stderr == ""
    tui = run(TUI, tmp_path)
    assert tui.returncode == 0, tui.stderr
    assert tui.stderr == ""
    assert not (tmp_path / "debug").exists()  # no log unless asked


def test_debug_writes_the_log_in_the_data_dir_and_says_where(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", TUI, "--debug", f"tell me about {KEY}"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
        env=child_env(
            AGENT_TUI_HOME=str(tmp_path),
            AGENT_TUI_OFFLINE_DELAY="0",
            **{OFF_VARIABLE: "render_caches"},
        ),
    )
    assert done.returncode == 0, done.stderr
    said = done.stderr.splitlines()
    assert len(said) == 1 and said[0].startswith("agent-tui: debug log: ")
    path = Path(said[0].removeprefix("agent-tui: debug log: "))
    assert path.parent == tmp_path / "debug" and path.is_file()
    assert (tmp_path / "debug" / "latest.log").resolve() == path.resolve()
    assert f"Debug log: {path}" in done.stdout  # the chat says it too
    text = path.read_text("utf-8")
    assert "[INFO] agent_tui.debug: agent-tui 0.1.0 on Python" in text
    assert "Textual patch render_caches stands down: turned off by AGENT_TUI_SPEEDUPS_OFF" in text
    assert "Textual patch strip_self_cache applies" in text
    assert KEY not in text and "[REDACTED]" in text  # the prompt on its command line


def test_debug_file_names_the_file(tmp_path: Path) -> None:
    log = tmp_path / "elsewhere" / "run.log"
    done = subprocess.run(
        [sys.executable, "-m", "agent_tui", "-p", "hello", "--offline", "--debug-file", str(log)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=child_env(AGENT_TUI_HOME=str(tmp_path), AGENT_TUI_OFFLINE_DELAY="0"),
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"agent-tui: debug log: {log}\n"
    assert "agent-tui 0.1.0 on Python" in log.read_text("utf-8")


def _args(debug: str | None, initial: str | None = None) -> argparse.Namespace:
    return argparse.Namespace(debug=debug, debug_file=None, initial=initial, prompt=None)


def test_a_prompt_after_a_bare_debug_is_the_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []
    monkeypatch.setattr(debug_log, "start", lambda path, words: started.append(words) or path)
    args = _args("why is this slow")
    debug_log.from_args(args)
    assert (args.initial, started) == ("why is this slow", [""])
    args = _args("why is", "this slow")  # `--debug "why is" "this slow"`: both, in order
    debug_log.from_args(args)
    assert args.initial == "why is this slow"
    args = _args("speedups,!guard")  # Claude Code's FILTER
    debug_log.from_args(args)
    assert (args.initial, started[-1]) == (None, "speedups,!guard")
    assert debug_log.from_args(_args(None)) is None


def test_the_filter_keeps_and_leaves_out_loggers_by_name() -> None:
    def kept(words: str, name: str) -> bool:
        record = logging.LogRecord(name, logging.INFO, __file__, 1, "x", None, None)
        return debug_log._Words(words).filter(record)

    assert kept("speedups", "agent_tui.speedups") and not kept("speedups", "agent_tui.mcp")
    assert kept("mcp,hooks", "agent_tui.hooks.runner") and kept("mcp,hooks", "mcp.client")
    assert not kept("!textual", "textual.app") and kept("!textual", "agent_tui.speedups")
