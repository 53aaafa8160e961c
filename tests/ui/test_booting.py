"""`ui/booting.boot_agent`: the agent's build, run in the boot worker as a plain function —
the agent, its recorder, and what the person is told when the session can't be had as asked."""

from __future__ import annotations

from pathlib import Path

from agent_tui.paths import data_dir
from agent_tui.runtime import Options
from agent_tui.ui.startup.booting import boot_agent


def never_asked(question: str) -> bool:
    raise AssertionError(f"asked: {question}")


def test_an_unrecorded_boot_is_just_the_agent(tmp_path: Path) -> None:
    booted = boot_agent(Options(offline=True, cwd=tmp_path), record=False, ask_yes_no=never_asked)
    assert booted.agent.provider.name == "offline"
    assert booted.recorder is None and booted.note is None and not booted.store_unavailable


def test_a_recorded_boot_has_a_recorder_and_an_unknown_resume_says_so(tmp_path: Path) -> None:
    booted = boot_agent(Options(offline=True, cwd=tmp_path), record=True, ask_yes_no=never_asked)
    assert booted.recorder is not None and booted.note is None
    booted.recorder.close()
    options = Options(offline=True, cwd=tmp_path, resume="zzzz")
    booted = boot_agent(options, record=True, ask_yes_no=never_asked)
    assert booted.recorder is not None  # a new session all the same
    assert booted.note is not None and booted.note.startswith("Could not resume")
    booted.recorder.close()


def test_a_database_that_wont_open_leaves_the_session_unrecorded_and_said(tmp_path: Path) -> None:
    (data_dir() / "sessions.db").mkdir(parents=True)  # a directory where the file should be
    booted = boot_agent(Options(offline=True, cwd=tmp_path), record=True, ask_yes_no=never_asked)
    assert booted.recorder is None and booted.store_unavailable
    assert booted.note is not None and "not being recorded" in booted.note
