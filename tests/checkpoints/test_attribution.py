"""Only the agent's own calls' changes are the agent's: per-call snapshots, the app's own writes
taken out, a turn cut by a kill rebuilt from what was recorded as it happened."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from agent_tui.checkpoints.attribution import join, rebuild
from agent_tui.checkpoints.blobs import blob_id
from agent_tui.checkpoints.checkpointer import Checkpointer
from agent_tui.protocol.events import (
    ChangeRecorded,
    ChangeStarted,
    Event,
    FilesChanged,
    FilesRestored,
)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    (tmp_path / "keep.txt").write_text("the person's file\n")
    (tmp_path / "code.py").write_text("x = 1\n")
    git(tmp_path, "add", "-A")
    return tmp_path


def names(event: FilesChanged | None) -> list[str]:
    assert event is not None
    return [Path(f["path"]).name for f in event.files]


def test_what_the_person_does_between_two_shell_calls_is_not_the_agents(repo: Path) -> None:
    cp = Checkpointer(repo, lambda _e: None)

    async def turn() -> FilesChanged | None:
        cp.begin_turn(0, "two commands")
        call = await cp.before("sed -i s/1/2/ code.py", "Bash", None, "t1")
        (repo / "code.py").write_text("x = 2\n")
        await cp.after(call)
        # another terminal, while the turn runs: a new file and an edit of the person's
        (repo / "my_work.txt").write_text("mine\n")
        (repo / "keep.txt").write_text("the person's file, edited\n")
        call = await cp.before("touch made.txt", "Bash", None, "t2")
        (repo / "made.txt").write_text("")
        await cp.after(call)
        return await cp.end_turn()

    event = asyncio.run(turn())
    assert names(event) == ["code.py", "made.txt"]
    plan = cp.plan()
    assert plan is not None
    # a file a shell command made (without the sandbox's change sets) might be the person's:
    # never ticked for deletion; taken back only when chosen
    assert [(f.path.name, "maybe yours" in f.conflict) for f in plan.conflicts] == [
        ("made.txt", True)
    ]
    done = cp.restore(plan, {f.path for f in plan.changes})
    assert sorted(Path(p).name for p in done.restored) == ["code.py", "made.txt"]
    assert (repo / "my_work.txt").read_text() == "mine\n"
    assert (repo / "keep.txt").read_text() == "the person's file, edited\n"
    assert (repo / "code.py").read_text() == "x = 1\n" and not (repo / "made.txt").exists()


def test_a_file_the_person_changes_between_two_agent_calls_is_a_conflict(repo: Path) -> None:
    cp = Checkpointer(repo, lambda _e: None)
    code = repo / "code.py"

    async def turn() -> FilesChanged | None:
        cp.begin_turn(0, "edit twice")
        call = await cp.before(str(code), "Edit", code, "t1")
        code.write_text("x = 2\n")
        await cp.after(call)
        code.write_text("x = 2  # the person's note\n")
        call = await cp.before("sed", "Bash", None, "t2")
        code.write_text("x = 3  # the person's note\n")
        await cp.after(call)
        return await cp.end_turn()

    event = asyncio.run(turn())
    assert names(event) == ["code.py", "code.py"]  # the break is kept
    plan = cp.plan()
    assert plan is not None and [f.path for f in plan.conflicts] == [code]
    assert "between two of the agent's changes" in plan.conflicts[0].conflict
    cp.restore(plan)  # the default is what is safe: the person's note stays
    assert code.read_text() == "x = 3  # the person's note\n"


def test_the_apps_own_writes_during_a_call_are_not_the_agents(repo: Path) -> None:
    cp = Checkpointer(repo, lambda _e: None)
    gitignore, settings = repo / ".gitignore", repo / ".agent-tui" / "settings.local.toml"

    async def turn() -> FilesChanged | None:
        cp.begin_turn(0, "build")
        call = await cp.before("make", "Bash", None, "t1")
        (repo / "out.txt").write_text("built\n")
        # a parallel sub-agent's "always" answer is saved while this call runs
        with cp.own_writes([settings, gitignore]):
            settings.parent.mkdir()
            settings.write_text('[permissions]\nallow = ["Bash(make:*)"]\n')
            gitignore.write_text("# agent-tui\n.agent-tui/settings.local.toml\n")
        await cp.after(call)
        return await cp.end_turn()

    event = asyncio.run(turn())
    assert names(event) == ["out.txt"]
    plan = cp.plan()
    assert plan is not None
    cp.restore(plan, {f.path for f in plan.changes})  # out.txt: made by a shell, so chosen
    assert gitignore.read_text().endswith(".agent-tui/settings.local.toml\n")
    assert settings.exists() and not (repo / "out.txt").exists()


def test_a_call_that_also_changes_a_file_the_app_wrote_keeps_the_apps_part(repo: Path) -> None:
    cp = Checkpointer(repo, lambda _e: None)
    gitignore = repo / ".gitignore"
    gitignore.write_text("build/\n")

    async def turn() -> FilesChanged | None:
        cp.begin_turn(0, "ignore dist")
        call = await cp.before("echo dist/ >> .gitignore", "Bash", None, "t1")
        with cp.own_writes([gitignore]):
            gitignore.write_text("build/\n.agent-tui/settings.local.toml\n")
        gitignore.write_text("build/\n.agent-tui/settings.local.toml\ndist/\n")
        await cp.after(call)
        return await cp.end_turn()

    event = asyncio.run(turn())
    assert event is not None
    assert event.files[0]["before"] == blob_id(b"build/\n.agent-tui/settings.local.toml\n")
    plan = cp.plan()
    assert plan is not None
    cp.restore(plan)
    assert gitignore.read_text() == "build/\n.agent-tui/settings.local.toml\n"


def test_every_call_is_recorded_as_it_happens(tmp_path: Path) -> None:
    events: list[Event] = []
    cp = Checkpointer(tmp_path, events.append)
    target = tmp_path / "a.txt"

    async def first_call() -> None:
        cp.begin_turn(0, "write")
        call = await cp.before(str(target), "Write", target, "toolu_1")
        assert [type(e) for e in events] == [ChangeStarted]  # before the call runs
        target.write_text("new\n")
        await cp.after(call)

    asyncio.run(first_call())  # the turn never ends: the app is killed here
    assert [type(e) for e in events] == [ChangeStarted, ChangeRecorded]
    rebuilt = rebuild([e for e in events if isinstance(e, ChangeStarted | ChangeRecorded)])
    assert len(rebuilt) == 1 and isinstance(rebuilt[0], FilesChanged)
    assert rebuilt[0].files[0]["after"] == blob_id(b"new\n")
    assert rebuilt[0].interrupted == []


def test_a_call_cut_by_a_kill_is_offered_as_a_conflict_naming_it(repo: Path) -> None:
    events: list[Event] = []
    cp = Checkpointer(repo, events.append)

    async def killed_turn() -> None:
        cp.begin_turn(0, "long build")
        call = await cp.before(str(repo / "code.py"), "Write", repo / "code.py", "t1")
        (repo / "code.py").write_text("x = 5\n")
        await cp.after(call)
        await cp.before("./build.sh", "Bash", None, "t2")  # killed while it runs
        (repo / "half.txt").write_text("partial\n")

    asyncio.run(killed_turn())
    stored = [e for e in events if isinstance(e, ChangeStarted | ChangeRecorded)]
    resumed = Checkpointer(repo, lambda _e: None)
    resumed.blobs = cp.blobs
    resumed.history = [e for e in rebuild(stored) if isinstance(e, FilesChanged)]
    plan = resumed.plan()
    assert plan is not None and plan.interrupted == ["Bash: ./build.sh"]
    assert {f.path.name: bool(f.conflict) for f in plan.changes} == {
        "code.py": False,
        "half.txt": True,
    }
    assert "never recorded" in plan.conflicts[0].conflict
    resumed.restore(plan)
    assert (repo / "code.py").read_text() == "x = 1\n" and (repo / "half.txt").exists()


def test_rebuild_keeps_ended_turns_and_restores_in_order() -> None:
    ended = FilesChanged(0, 0, "p", [{"path": "/a", "before": None, "after": "1", "by": "Write"}])
    started = ChangeStarted(1, 2, "q", "t9", "Write", "/b", "/b", None, "")
    out = rebuild([ended, started, FilesRestored(0, ["/a"], [])])
    assert [type(e).__name__ for e in out] == ["FilesChanged", "FilesChanged", "FilesRestored"]
    assert out[1].interrupted[0]["path"] == "/b"


def test_join_merges_a_chain_and_counts_a_repeated_record_once() -> None:
    a = {"path": "/a", "before": None, "after": "1", "before_mode": "", "after_mode": "100644"}
    b = {**a, "before": "1", "after": "2", "before_mode": "100644"}
    joined = join([{**a, "by": "Write"}, {**a, "by": "Bash"}, {**b, "by": "Bash"}])
    assert joined == [{**a, "after": "2", "by": "Write, Bash"}]
