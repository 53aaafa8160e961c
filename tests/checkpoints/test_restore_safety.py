"""Restores go only where the checkpoint recorded (a symlink planted since is refused), restore
exactly the files chosen, and a kill in the middle leaves nothing once the app starts again."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent_tui.checkpoints import confined
from agent_tui.checkpoints.checkpointer import Checkpointer
from agent_tui.checkpoints.scratch import Scratch, clean_stale
from agent_tui.paths import data_dir
from agent_tui.protocol.events import FilesChanged


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


async def write_turn(cp: Checkpointer, path: Path, text: str | None, index: int = 0) -> None:
    """A turn in which a Write (text) or a shell command (text None: deletes `path`) ran."""
    cp.begin_turn(index, "turn")
    if text is None:
        call = await cp.before(f"rm {path.name}", "Bash", None)
        path.unlink()
    else:
        call = await cp.before(str(path), "Write", path)
        path.write_text(text)
    await cp.after(call)
    event = await cp.end_turn()
    assert isinstance(event, FilesChanged)


def project(tmp_path: Path) -> tuple[Path, Path]:
    work, outside = tmp_path / "work", tmp_path / "outside"
    (work / "sub").mkdir(parents=True)
    outside.mkdir()
    return work, outside


def plant_link(work: Path, outside: Path) -> None:
    """`sub` becomes a link to a folder outside the project holding files of the same names."""
    for f in (work / "sub").iterdir():
        f.unlink()
    (work / "sub").rmdir()
    (work / "sub").symlink_to(outside)


@pytest.mark.parametrize("created", [True, False], ids=["created-file", "changed-file"])
def test_a_parent_folder_symlinked_after_the_checkpoint_is_refused(
    tmp_path: Path, created: bool
) -> None:
    work, outside = project(tmp_path)
    target = work / "sub" / "notes.txt"
    if not created:
        target.write_text("before\n")
    cp = Checkpointer(work, lambda _e: None)
    asyncio.run(write_turn(cp, target, "by the agent\n"))
    plant_link(work, outside)
    (outside / "notes.txt").write_text("by the agent\n")  # what undo would delete or rewrite
    plan = cp.plan()
    assert plan is not None and plan.changes == []
    assert [f.path for f in plan.refused] == [target]
    assert "sub is now a symbolic link" in plan.refused[0].refused
    done = cp.restore(plan, {target})  # even when chosen
    assert done.restored == [] and "refused" in done.kept[0]
    assert (outside / "notes.txt").read_text() == "by the agent\n"


def test_a_link_planted_between_the_preview_and_the_restore_is_refused(tmp_path: Path) -> None:
    work, outside = project(tmp_path)
    target = work / "sub" / "notes.txt"
    cp = Checkpointer(work, lambda _e: None)
    asyncio.run(write_turn(cp, target, "by the agent\n"))
    plan = cp.plan()
    assert plan is not None and [f.action for f in plan.changes] == ["delete"]
    plant_link(work, outside)  # after the preview was made, before the person said yes
    (outside / "notes.txt").write_text("not the project's\n")
    done = cp.restore(plan, plan.safe)
    assert done.restored == [] and "symbolic link" in done.kept[0]
    assert (outside / "notes.txt").read_text() == "not the project's\n"


def test_in_git_a_shell_deletion_is_not_restored_through_a_planted_link(tmp_path: Path) -> None:
    work, outside = project(tmp_path)
    git(work, "init", "-q")
    (work / "sub" / "keep.txt").write_text("tracked\n")
    git(work, "add", "-A")
    cp = Checkpointer(work, lambda _e: None)
    asyncio.run(write_turn(cp, work / "sub" / "keep.txt", None))
    plant_link(work, outside)
    plan = cp.plan()
    assert plan is not None and plan.changes == [] and len(plan.refused) == 1
    cp.restore(plan, {work / "sub" / "keep.txt"})
    assert list(outside.iterdir()) == []  # nothing was created outside the project


def test_a_missing_folder_is_made_again_as_a_real_folder(tmp_path: Path) -> None:
    work, _ = project(tmp_path)
    git(work, "init", "-q")
    target = work / "sub" / "deep" / "a.txt"
    target.parent.mkdir()
    target.write_text("one\n")
    cp = Checkpointer(work, lambda _e: None)
    asyncio.run(write_turn(cp, target, None))
    target.parent.rmdir()
    plan = cp.plan()
    assert plan is not None
    done = cp.restore(plan)
    assert done.restored == [str(target)] and target.read_text() == "one\n"
    assert not target.parent.is_symlink()


def test_only_the_chosen_files_are_restored(tmp_path: Path) -> None:
    work, _ = project(tmp_path)
    a, b = work / "a.txt", work / "b.txt"
    a.write_text("a1\n")
    b.write_text("b1\n")
    cp = Checkpointer(work, lambda _e: None)

    async def turn() -> None:
        cp.begin_turn(0, "two writes")
        for path in (a, b):
            call = await cp.before(str(path), "Write", path)
            path.write_text("agent\n")
            await cp.after(call)
        await cp.end_turn()

    asyncio.run(turn())
    b.write_text("the person's\n")  # b is now a conflict
    plan = cp.plan()
    assert plan is not None and plan.safe == {a} and [f.path for f in plan.conflicts] == [b]
    done = cp.restore(plan, {b})  # the person keeps a, and takes b back
    assert done.restored == [str(b)] and done.kept == [str(a)]
    assert a.read_text() == "agent\n" and b.read_text() == "b1\n"


def test_the_execute_bit_follows_the_restored_mode(tmp_path: Path) -> None:
    work, _ = project(tmp_path)
    script = work / "run.sh"
    script.write_text("echo one\n")
    script.chmod(0o755)
    cp = Checkpointer(work, lambda _e: None)
    asyncio.run(write_turn(cp, script, "echo two\n"))
    script.chmod(0o644)
    plan = cp.plan()
    assert plan is not None
    cp.restore(plan, {script})
    assert script.read_text() == "echo one\n" and os.access(script, os.X_OK)


_KILLED_WRITER = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from agent_tui.checkpoints import confined
    from agent_tui.checkpoints.scratch import Scratch

    real_fsync = os.fsync
    def stall(fd):  # the content is in the temporary file: stop here until killed
        real_fsync(fd)
        print("written", flush=True)
        time.sleep(60)
    os.fsync = stall
    target = Path(sys.argv[1])
    confined.write(target.parent, target, b"restored\\n", executable=False,
                   scratch=Scratch(Path(sys.argv[2])))
    """
)


def test_a_kill_during_a_restore_leaves_no_temporary_file_after_the_next_start(
    tmp_path: Path,
) -> None:
    work, _ = project(tmp_path)
    target = work / "a.txt"
    target.write_text("the agent's\n")
    home = data_dir()
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(target), str(home)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "written\n"
    leftovers = [p.name for p in work.iterdir() if p.name not in ("a.txt", "sub")]
    assert len(leftovers) == 1 and leftovers[0].endswith(".tmp")  # what a kill leaves now
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert clean_stale(home) == [work / leftovers[0]]  # what the next start runs
    assert sorted(p.name for p in work.iterdir()) == ["a.txt", "sub"]
    assert target.read_text() == "the agent's\n"
    assert not (home / "scratch" / str(proc.pid)).exists()


def test_clean_stale_keeps_what_running_processes_and_other_files_hold(tmp_path: Path) -> None:
    home = tmp_path / "home"
    mine = Scratch(home)
    entry = mine.journal(tmp_path / ".x.agent-tui-0000.tmp")
    (tmp_path / ".x.agent-tui-0000.tmp").write_text("in flight")
    dead = home / "scratch" / "999999999" / "journal"
    dead.mkdir(parents=True)
    (dead / "1").write_bytes(os.fsencode(tmp_path / "precious.txt"))  # not a name of ours
    (tmp_path / "precious.txt").write_text("mine")
    assert clean_stale(home) == []
    assert (tmp_path / "precious.txt").exists() and entry.exists()
    assert (tmp_path / ".x.agent-tui-0000.tmp").exists()
    assert not (home / "scratch" / "999999999").exists()


def test_refusal_reads_nothing_outside(tmp_path: Path) -> None:
    work, outside = project(tmp_path)
    assert confined.refusal(work, work / "sub" / "a.txt") == ""
    plant_link(work, outside)
    assert "symbolic link" in confined.refusal(work, work / "sub" / "a.txt")
    (work / "file").write_text("")
    assert "no longer a folder" in confined.refusal(work, work / "file" / "a.txt")


_KILLED_WRITE_TOOL = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from agent_tui.tools.text_files import atomic_write

    real_fsync = os.fsync
    def stall(fd):
        real_fsync(fd)
        print("written", flush=True)
        time.sleep(60)
    os.fsync = stall
    atomic_write(Path(sys.argv[1]), b"the agent's new text\\n")
    """
)


def test_a_kill_during_a_write_leaves_no_temporary_file_after_the_next_start(
    tmp_path: Path,
) -> None:
    target = tmp_path / "notes.md"
    target.write_text("the person's text\n")
    home = data_dir()
    env = {**os.environ, "AGENT_TUI_HOME": str(home)}
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITE_TOOL, str(target)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "written\n"
    assert len(list(tmp_path.iterdir())) == 2  # the file and the temporary beside it
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    clean_stale(home)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.md"]
    assert target.read_text() == "the person's text\n"


def test_a_data_dir_that_cant_be_written_does_not_stop_a_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.tools.text_files import atomic_write

    blocker = tmp_path / "home"
    blocker.write_text("a file where the data dir should be")
    monkeypatch.setenv("AGENT_TUI_HOME", str(blocker))
    target = tmp_path / "a.txt"
    atomic_write(target, b"written\n")
    assert target.read_text() == "written\n"
