"""The app's own git never runs a program a project's repository configures (a project that
arrived with its `.git`): a clean filter named by `.gitattributes`, core.fsmonitor, the same
through `include.path`, a hook. Real git is the oracle (run plainly, it runs the program); the
undo snapshots go to the app's own repository instead, and undo of a shell change still works."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_tui.checkpoints.checkpointer import Checkpointer
from agent_tui.checkpoints.shadow import readable_work_tree
from agent_tui.paths import data_dir
from agent_tui.protocol.events import Event, Notice

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True)


def clean_filter(project: Path, marker: Path) -> None:
    (project / ".gitattributes").write_text("* filter=evil\n")
    _git(project, "config", "filter.evil.clean", f"sh -c 'touch {marker}; cat'")


def fsmonitor(project: Path, marker: Path) -> None:
    script = project.parent / "monitor.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    script.chmod(0o755)
    _git(project, "config", "core.fsmonitor", str(script))


def included(project: Path, marker: Path) -> None:
    other = project.parent / "other.gitconfig"
    script = project.parent / "monitor.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    script.chmod(0o755)
    other.write_text(f"[core]\n\tfsmonitor = {script}\n")
    _git(project, "config", "include.path", str(other))


def hook(project: Path, marker: Path) -> None:
    hooks = project / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "post-index-change").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (hooks / "post-index-change").chmod(0o755)


HOSTILE: dict[str, Callable[[Path, Path], None]] = {
    "clean-filter": clean_filter,
    "fsmonitor": fsmonitor,
    "include": included,
    "hook": hook,
}


def hostile_project(tmp_path: Path, kind: str) -> tuple[Path, Path]:
    project, marker = tmp_path / "project", tmp_path / "PROGRAM-RAN"
    project.mkdir()
    (project / "notes.txt").write_text("the person's notes\n")
    _git(project, "init", "-q")
    HOSTILE[kind](project, marker)
    return project, marker


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_plain_git_runs_the_program(tmp_path: Path, kind: str) -> None:
    """The oracle: what the app ran before (`git add -A`, the snapshot) runs the program."""
    project, marker = hostile_project(tmp_path, kind)
    subprocess.run(["git", "add", "-A"], cwd=project, capture_output=True)
    subprocess.run(["git", "status"], cwd=project, capture_output=True)
    assert marker.exists()


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_snapshots_never_run_it_and_undo_still_works(tmp_path: Path, kind: str) -> None:
    project, marker = hostile_project(tmp_path, kind)
    said: list[Event] = []
    cp = Checkpointer(project, said.append)

    async def turn() -> None:
        cp.begin_turn(0, "edit")
        call = await cp.before("rm notes.txt; echo new > made.txt", "Bash", None, "t1")
        (project / "notes.txt").unlink()
        (project / "made.txt").write_text("new\n")
        await cp.after(call)
        await cp.end_turn()

    asyncio.run(turn())
    assert not marker.exists()
    git = cp.git
    assert git is not None and git.git_dir is not None  # the app's own repository
    assert git.git_dir.is_relative_to(data_dir())
    plan = cp.plan()
    assert plan is not None
    # the created file: a shell's, maybe the person's (no change set) — taken back when chosen
    done = cp.restore(plan, {f.path for f in plan.changes})
    assert sorted(Path(p).name for p in done.restored) == ["made.txt", "notes.txt"]
    assert (project / "notes.txt").read_text() == "the person's notes\n"
    assert not (project / "made.txt").exists()
    assert not marker.exists()
    # the Changes view reads the same repository; the project's own is left as it was
    readable = readable_work_tree(project, data_dir())
    assert readable is not None and readable.git_dir == git.git_dir
    assert not (project / ".git" / "refs" / "agent-tui").exists()
    assert not [e for e in said if isinstance(e, Notice) and e.level != "info"]


def test_a_repository_that_turns_hostile_gets_no_more_snapshots(tmp_path: Path) -> None:
    """A clean repository at the start, then (mid-session) a filter in its config: the next
    snapshot doesn't run git there, says why once, and lists the command as not restorable."""
    project, marker = tmp_path / "project", tmp_path / "PROGRAM-RAN"
    project.mkdir()
    (project / "a.txt").write_text("a\n")
    _git(project, "init", "-q")
    said: list[Event] = []
    cp = Checkpointer(project, said.append)

    async def call(command: str) -> None:
        c = await cp.before(command, "Bash", None, command)
        (project / "a.txt").write_text(command)
        await cp.after(c)

    async def turn() -> list[str]:
        cp.begin_turn(0, "go")
        await call("first")
        clean_filter(project, marker)
        await call("second")
        await call("third")
        event = await cp.end_turn()
        return list(event.unrestorable) if event is not None else []

    unrestorable = asyncio.run(turn())
    assert not marker.exists()
    assert cp.git is not None and cp.git.git_dir is None  # still the project's repository
    assert unrestorable == ["second", "third"]
    warnings = [e.text for e in said if isinstance(e, Notice) and e.level == "warning"]
    assert len(warnings) == 1 and "filter.evil.clean" in warnings[0], warnings
