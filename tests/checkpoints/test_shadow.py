"""Undo outside git (issue 32, item 4): a shadow repository under the data dir captures what shell
commands change in a folder that is not in git; nothing is ever created in the folder; a folder
too big to snapshot is refused with a reason said once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_tui.checkpoints import shadow
from agent_tui.checkpoints.checkpointer import Checkpointer
from agent_tui.paths import data_dir
from agent_tui.protocol.events import Event, FilesChanged, Notice


def folder(tmp_path: Path) -> Path:
    work = tmp_path / "notes"  # not in git
    work.mkdir()
    (work / "draft.md").write_text("the person's draft\n")
    (work / "keep.md").write_text("kept\n")
    (work / ".gitignore").write_text("cache/\n")
    return work


async def shell_turn(cp: Checkpointer, work: Path) -> FilesChanged | None:
    cp.begin_turn(0, "tidy")
    call = await cp.before("rm draft.md && echo new > made.md", "Bash", None, "t1")
    (work / "draft.md").unlink()
    (work / "made.md").write_text("new\n")
    (work / "cache").mkdir()
    (work / "cache" / "big.bin").write_bytes(b"\0" * 1000)  # ignored by the folder's .gitignore
    await cp.after(call)
    return await cp.end_turn()


def test_undo_outside_git_restores_a_deleted_file_and_removes_a_created_one(
    tmp_path: Path,
) -> None:
    work = folder(tmp_path)
    before = sorted(p.name for p in work.iterdir())
    cp = Checkpointer(work, lambda _e: None)
    event = asyncio.run(shell_turn(cp, work))
    assert event is not None and event.unrestorable == []
    assert sorted(Path(f["path"]).name for f in event.files) == ["draft.md", "made.md"]
    plan = cp.plan()
    assert plan is not None
    # the created file: a shell's, maybe the person's (no change set) — taken back when chosen
    done = cp.restore(plan, {f.path for f in plan.changes})
    assert sorted(Path(p).name for p in done.restored) == ["draft.md", "made.md"]
    assert (work / "draft.md").read_text() == "the person's draft\n"
    assert not (work / "made.md").exists()
    # nothing of the app's in the folder: no .git, no index, no temporary file
    assert sorted(p.name for p in work.iterdir()) == sorted([*before, "cache"])
    assert not any(p.name.startswith(".git") and p.name != ".gitignore" for p in work.rglob("*"))
    assert any((data_dir() / "shadow").iterdir())  # the repository is under the data dir


def test_a_folder_too_big_to_snapshot_is_refused_and_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shadow, "MAX_FILES", 2)
    work = folder(tmp_path)
    events: list[Event] = []
    cp = Checkpointer(work, events.append)
    event = asyncio.run(shell_turn(cp, work))
    assert event is not None and event.files == []
    assert event.unrestorable == ["rm draft.md && echo new > made.md"]

    async def again() -> None:
        cp.begin_turn(2, "again")
        await cp.after(await cp.before("touch x", "Bash", None, "t2"))
        await cp.end_turn()

    asyncio.run(again())
    said = [e.text for e in events if isinstance(e, Notice)]
    assert len(said) == 1 and "more than 2 files" in said[0] and "git init" in said[0]
    assert not (work / ".git").exists()


def test_each_folder_has_its_own_shadow_repository(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    home = tmp_path / "home"
    assert shadow.shadow_work_tree(a, home).git_dir != shadow.shadow_work_tree(b, home).git_dir
    assert shadow.shadow_work_tree(a, home).git_dir == shadow.shadow_work_tree(a, home).git_dir


def test_a_snapshot_that_fails_is_said_once_in_plain_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.checkpoints.git_tree import GitError, GitWorkTree

    def full(self: GitWorkTree, index: Path) -> str:
        raise GitError("git add: fatal: unable to write loose object file: No space left on device")

    monkeypatch.setattr(GitWorkTree, "snapshot", full)
    work = folder(tmp_path)
    events: list[Event] = []
    cp = Checkpointer(work, events.append)
    event = asyncio.run(shell_turn(cp, work))
    assert event is not None and event.unrestorable == ["rm draft.md && echo new > made.md"]
    said = [e.text for e in events if isinstance(e, Notice)]
    assert len(said) == 1 and "(the disk is full)" in said[0] and "fatal" not in said[0]


def test_the_next_session_starts_from_the_shadows_kept_index(tmp_path: Path) -> None:
    work = folder(tmp_path)
    first = Checkpointer(work, lambda _e: None)
    asyncio.run(shell_turn(first, work))
    git = first.git
    assert git is not None and git.git_dir is not None and git.index.is_file()
    later = Checkpointer(work, lambda _e: None)  # a new session in the same folder
    event = asyncio.run(shell_turn_again(later, work))
    assert event is not None and [Path(f["path"]).name for f in event.files] == ["made.md"]


async def shell_turn_again(cp: Checkpointer, work: Path) -> FilesChanged | None:
    cp.begin_turn(0, "again")
    call = await cp.before("echo more >> made.md", "Bash", None, "t1")
    (work / "made.md").write_text("new\nmore\n")
    await cp.after(call)
    return await cp.end_turn()


def test_the_changes_view_reads_a_command_s_contents_from_the_shadow(tmp_path: Path) -> None:
    from agent_tui.checkpoints.restore import blob_reader
    from agent_tui.checkpoints.shadow import readable_work_tree

    work = folder(tmp_path)
    assert readable_work_tree(work, data_dir()) is None  # reading never makes one
    cp = Checkpointer(work, lambda _e: None)
    event = asyncio.run(shell_turn(cp, work))
    assert event is not None
    gone = next(f for f in event.files if f["path"].endswith("draft.md"))
    read = blob_reader(lambda _b: None, lambda: readable_work_tree(work, data_dir()))
    assert read(gone["before"]) == b"the person's draft\n"
