"""Checkpoints and restores against real files and a real git repository."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from agent_tui.checkpoints.blobs import MemoryBlobs, blob_id
from agent_tui.checkpoints.checkpointer import Checkpointer
from agent_tui.checkpoints.git_tree import ANCHOR_REF, GitWorkTree
from agent_tui.checkpoints.restore import apply_restore, blob_reader, file_diff, plan_restore
from agent_tui.protocol.events import Event, FilesChanged


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "p@example.com")
    git(tmp_path, "config", "user.name", "P")
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "keep.txt").write_text("keep\n")
    (tmp_path / "gone.txt").write_text("to be removed by the shell\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "start")
    return tmp_path


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def make(cwd: Path) -> tuple[Checkpointer, list[Event]]:
    events: list[Event] = []
    return Checkpointer(cwd, events.append), events


async def write_turn(cp: Checkpointer, path: Path, text: str, index: int = 0) -> FilesChanged:
    cp.begin_turn(index, f"write {path.name}")
    call = await cp.before(str(path), "Write", path)
    path.write_text(text)
    await cp.after(call)
    event = await cp.end_turn()
    assert event is not None
    return event


def reader(cp: Checkpointer):  # type: ignore[no-untyped-def]
    return blob_reader(cp.blobs.get_blob, lambda: cp.git)


def test_outside_git_a_write_is_recorded_and_undone(tmp_path: Path) -> None:
    cp, events = make(tmp_path)
    target = tmp_path / "a.txt"
    target.write_text("one\n")
    first = run(write_turn(cp, target, "two\n"))
    assert first.files == [
        {
            "path": str(target),
            "before": blob_id(b"one\n"),
            "before_mode": "100644",
            "after": blob_id(b"two\n"),
            "after_mode": "100644",
            "by": "Write",
        }
    ]
    assert first.trees == [] and [type(e).__name__ for e in events] == [
        "ChangeStarted",
        "ChangeRecorded",
        "FilesChanged",
    ]
    assert events[1].files == first.files  # recorded as soon as the call finished
    plan = plan_restore(cp.history, first.checkpoint, reader(cp))
    assert [(f.action, f.conflict) for f in plan.files] == [("restore", "")]
    assert "-two" in file_diff(plan.files[0].current, plan.files[0].target, "a.txt")
    assert apply_restore(plan, None, cp.scratch) == ([str(target)], [])
    assert target.read_text() == "one\n"


def test_a_created_file_is_removed_and_a_turn_without_changes_records_nothing(
    tmp_path: Path,
) -> None:
    cp, events = make(tmp_path)
    new = tmp_path / "sub" / "new.py"
    new.parent.mkdir()
    event = run(write_turn(cp, new, "print(1)\n"))
    assert event.files[0]["before"] is None
    plan = plan_restore(cp.history, 0, reader(cp))
    assert plan.files[0].action == "delete"
    apply_restore(plan, None, cp.scratch)
    assert not new.exists()
    # a turn whose write changed nothing (same content) leaves no checkpoint
    same = tmp_path / "same.txt"
    same.write_text("x")

    async def noop() -> None:
        cp.begin_turn(3, "again")
        await cp.after(await cp.before(str(same), "Write", same))
        assert await cp.end_turn() is None

    run(noop())
    assert sum(isinstance(e, FilesChanged) for e in events) == 1


def test_outside_git_shell_commands_are_listed_as_not_restorable_without_a_shadow(
    tmp_path: Path,
) -> None:
    cp, _ = make(tmp_path)
    cp.shadow = False  # as when the folder is too big for a shadow repository, or git is missing

    async def turn() -> FilesChanged | None:
        cp.begin_turn(0, "clean up")
        await cp.after(await cp.before("rm -rf build", "Bash", None))
        return await cp.end_turn()

    event = run(turn())
    assert event is not None and event.files == [] and event.unrestorable == ["rm -rf build"]
    plan = plan_restore(cp.history, 0, reader(cp))
    assert plan.unrestorable == ["rm -rf build"] and plan.changes == []


def test_a_file_changed_by_the_person_since_is_a_conflict(tmp_path: Path) -> None:
    cp, _ = make(tmp_path)
    target = tmp_path / "a.txt"
    target.write_text("one\n")
    run(write_turn(cp, target, "two\n"))
    target.write_text("the person's own edit\n")
    plan = plan_restore(cp.history, 0, reader(cp))
    assert [f.conflict for f in plan.conflicts] == ["changed since the agent's last change to it"]
    assert apply_restore(plan, None, cp.scratch) == ([], [str(target)])
    assert target.read_text() == "the person's own edit\n"
    assert apply_restore(plan, {target}, cp.scratch) == ([str(target)], [])
    assert target.read_text() == "one\n"


def test_a_change_between_two_turns_is_a_conflict_for_a_rewind_past_both(
    tmp_path: Path,
) -> None:
    cp, _ = make(tmp_path)
    target = tmp_path / "a.txt"
    target.write_text("v1\n")
    run(write_turn(cp, target, "v2\n", 0))
    target.write_text("person\n")  # between the turns
    run(write_turn(cp, target, "v3\n", 2))
    # undoing the last turn alone is clean: back to the person's text
    last = plan_restore(cp.history, 1, reader(cp))
    assert last.conflicts == [] and last.files[0].target == b"person\n"
    both = plan_restore(cp.history, 0, reader(cp))
    assert [f.conflict for f in both.conflicts] == [
        "changed between two of the agent's changes to it"
    ]


def test_in_git_a_shell_change_is_captured_and_undone_without_touching_index_or_branch(
    repo: Path,
) -> None:
    head = git(repo, "rev-parse", "HEAD")
    (repo / "staged.txt").write_text("staged by the person\n")
    git(repo, "add", "staged.txt")
    index_before = git(repo, "diff", "--cached", "--name-status")
    cp, _ = make(repo)

    async def turn() -> FilesChanged | None:
        cp.begin_turn(0, "tidy")
        call = await cp.before("rm gone.txt && echo hi > made.txt", "Bash", None)
        (repo / "gone.txt").unlink()
        (repo / "made.txt").write_text("hi\n")
        (repo / "build").mkdir()
        (repo / "build" / "out.o").write_text("ignored\n")
        await cp.after(call)
        return await cp.end_turn()

    event = run(turn())
    assert event is not None and len(event.trees) == 2 and event.unrestorable == []
    by_path = {Path(f["path"]).name: f for f in event.files}
    assert set(by_path) == {"gone.txt", "made.txt"}  # build/ is ignored
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "diff", "--cached", "--name-status") == index_before
    assert git(repo, "rev-parse", ANCHOR_REF).strip()
    assert git(repo, "branch", "--list") == "* main\n"

    plan = plan_restore(cp.history, 0, reader(cp))
    assert {(f.path.name, f.action) for f in plan.files} == {
        ("gone.txt", "create"),
        ("made.txt", "delete"),
    }
    # made.txt might be the person's (snapshots can't tell): kept unless chosen
    assert [f.path.name for f in plan.conflicts] == ["made.txt"]
    restored, kept = apply_restore(plan, {f.path for f in plan.changes}, cp.scratch)
    assert kept == [] and len(restored) == 2
    assert (repo / "gone.txt").read_text() == "to be removed by the shell\n"
    assert not (repo / "made.txt").exists()
    assert git(repo, "diff", "--cached", "--name-status") == index_before


def test_snapshots_survive_git_gc(repo: Path) -> None:
    work = GitWorkTree.find(repo)
    assert work is not None
    (repo / "untracked.txt").write_text("only in the snapshot\n")
    tree = work.snapshot(repo.parent / "private-index")
    work.anchor([tree], "test")
    (repo / "untracked.txt").unlink()
    git(repo, "gc", "-q", "--prune=now")
    blob = blob_id(b"only in the snapshot\n")
    assert work.blob(blob) == b"only in the snapshot\n"


def test_a_sub_directory_of_a_repository_is_found(repo: Path) -> None:
    (repo / "pkg").mkdir()
    work = GitWorkTree.find(repo / "pkg")
    assert work is not None and work.top == repo
    assert GitWorkTree.find(repo.parent / "elsewhere-not-a-repo") is None


def test_restoring_needs_content_that_is_gone_says_so(tmp_path: Path) -> None:
    cp, _ = make(tmp_path)
    target = tmp_path / "a.txt"
    target.write_text("one\n")
    run(write_turn(cp, target, "two\n"))
    plan = plan_restore(cp.history, 0, MemoryBlobs().get_blob)  # an empty store
    assert plan.missing == [str(target)] and plan.files == []


def test_undo_goes_one_turn_further_back_each_time(tmp_path: Path) -> None:
    cp, events = make(tmp_path)
    target = tmp_path / "a.txt"
    target.write_text("v1\n")
    run(write_turn(cp, target, "v2\n", 0))
    run(write_turn(cp, target, "v3\n", 2))
    first = cp.plan()
    assert first is not None and first.to == 1
    cp.restore(first)
    assert target.read_text() == "v2\n"
    second = cp.plan()
    assert second is not None and second.to == 0
    done = cp.restore(second)
    assert target.read_text() == "v1\n" and done.restored == [str(target)]
    assert cp.plan() is None
    assert [type(e).__name__ for e in events][-2:] == ["FilesRestored", "FilesRestored"]
