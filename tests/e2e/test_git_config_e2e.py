"""Issue 29, class 7 end to end: a project that arrives with its own `.git` whose config makes git
run a program (core.fsmonitor; a hook that `git status` runs). The real CLI, the real SDK at the
loopback API, the sandbox off (the analyser is the only wall), and a model that runs `git status`
in default, plan and accept-edits modes: the program never runs — not through the model's
command, nor through the app's own `git status` for the system prompt."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from e2e.test_security_e2e import decisions, run_cli

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _hostile_repo(project: Path, marker: Path) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True, capture_output=True)
    (project / "f").write_text("a\n")
    subprocess.run(
        ["git", "-C", str(project), "config", "core.fsmonitor", f"touch {marker}; false"],
        check=True,
    )


@pytest.mark.parametrize("mode", ["default", "plan", "accept-edits"])
async def test_git_status_never_runs_the_repositorys_program(tmp_path: Path, mode: str) -> None:
    project, home, marker = tmp_path / "project", tmp_path / "home", tmp_path / "FSMONITOR-RAN"
    home.mkdir()
    _hostile_repo(project, marker)
    # the oracle: git itself would run it
    subprocess.run(["git", "status"], cwd=project, capture_output=True)
    assert marker.exists()
    marker.unlink()

    calls = [("Bash", {"command": "git status"}), ("Bash", {"command": "git log --oneline -3"})]
    code, events, err, _ = await run_cli(project, home, calls, "--mode", mode, "--sandbox", "off")
    assert code == 0, err
    assert not marker.exists()
    found = decisions(events)
    assert len(found) == 2 and all(d != "allow" for d, _ in found), found
    said = json.dumps([e for e in events if e["type"] in ("permission", "tool_result")])
    assert "core.fsmonitor" in said or mode == "plan", said


async def test_a_clean_repository_runs_git_status_unasked(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True, capture_output=True)
    calls = [("Bash", {"command": "git status"})]
    code, events, err, _ = await run_cli(project, home, calls, "--sandbox", "off")
    assert code == 0, err
    assert decisions(events) == [] or all(d == "allow" for d, _ in decisions(events))
    results = [e for e in events if e["type"] == "tool_result"]
    assert results and not results[0].get("is_error"), results
