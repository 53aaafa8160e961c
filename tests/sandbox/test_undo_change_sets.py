"""Issue 44's undo: a sandboxed command's checkpoint is its change set. A file the person writes
from another terminal while the command runs is never the command's, so /undo never lists it;
a file both changed keeps the person's version in the project and the command's in the held set.
Five runs, with the machine kept busy (a CPU-bound process per core)."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from bwrap_support import needs_bwrap

from agent_tui.checkpoints.checkpointer import Checkpointer
from agent_tui.permissions.engine import PermissionEngine
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.runner import Sandbox
from agent_tui.sandbox.transaction import held_sets, remove_folder
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.bash import BashInput, BashTool

pytestmark = needs_bwrap

COMMAND = "sleep 0.8; echo done > agent_out.txt; echo agent >> both.txt"


def _burn() -> None:
    while True:
        pass


@pytest.fixture
def loaded() -> Iterator[None]:
    burners = [
        multiprocessing.Process(target=_burn, daemon=True) for _ in range(os.cpu_count() or 2)
    ]
    for b in burners:
        b.start()
    try:
        yield
    finally:
        for b in burners:
            b.kill()
            b.join()


async def one_run(root: Path) -> None:
    project = root / "p"
    project.mkdir()
    (project / "both.txt").write_text("start\n")
    events: list[object] = []
    checkpoints = Checkpointer(project, events.append)
    sandbox = Sandbox(
        SandboxConfig(mode="on"), project, PermissionEngine(project), data_dir=root / "d"
    )
    ctx = ToolContext(cwd=project, data_dir=root, sandbox=sandbox, blobs=checkpoints.blobs)
    checkpoints.begin_turn(0, "make the output")

    async def person() -> None:  # another terminal, while the command runs
        while not any((root / "d").glob("changes/*/upper")):
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
        (project / "person.txt").write_text("mine\n")
        (project / "both.txt").write_text("mine\n")

    try:
        call = await checkpoints.before(COMMAND, "Bash", None, "toolu_1", exact=True)
        out, _ = await asyncio.gather(BashTool().run(BashInput(command=COMMAND), ctx), person())
        await checkpoints.after(call, out.meta["changes"], out.meta["not_kept"])
        await checkpoints.end_turn()
        assert (project / "agent_out.txt").read_text() == "done\n"
        assert (project / "both.txt").read_text() == "mine\n"  # the person's, never overwritten
        assert "both.txt" in out.content and "held back" in out.content
        [held] = held_sets(sandbox.changes_base, project)  # the command's version is kept too
        # (it read the person's, written in place before it appended: theirs plus its line)
        assert (held.folder / "upper" / "both.txt").read_text().endswith("agent\n")
        plan = await asyncio.to_thread(checkpoints.plan)
        assert plan is not None
        planned = {f.path.name: f.action for f in plan.files}
        assert planned == {"agent_out.txt": "delete"}, planned  # never the person's files
        await asyncio.to_thread(checkpoints.restore, plan)
        assert not (project / "agent_out.txt").exists()
        assert (project / "person.txt").read_text() == "mine\n"
        assert (project / "both.txt").read_text() == "mine\n"
    finally:
        sandbox.close()


async def test_undo_keeps_what_the_person_wrote_during_the_command(loaded: None) -> None:
    for n in range(5):
        root = Path(tempfile.mkdtemp(prefix=f"agent-tui-undo-{n}-", dir="/var/tmp"))
        try:
            await one_run(root)
        finally:
            remove_folder(root)
