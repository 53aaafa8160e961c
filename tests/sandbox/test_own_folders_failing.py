"""The sandbox's own folders failing under a Bash call (the app's data disk full, most often):
the call gets one clear line and the turn goes on. A transaction that can't begin runs nothing
(never the command without its change set); a change set that can't be written down or settled
keeps the command's output and holds what it wrote, nothing half applied. The full disk itself,
through the real command line on a small tmpfs: tests/e2e/test_store_faults_e2e.py."""

from __future__ import annotations

import builtins
import errno
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from bwrap_support import needs_bwrap

from agent_tui.checkpoints.blobs import MemoryBlobs
from agent_tui.checkpoints.scratch import Scratch
from agent_tui.permissions.engine import PermissionEngine
from agent_tui.sandbox import apply_journal as apply_journal_module
from agent_tui.sandbox import settle as settle_module
from agent_tui.sandbox.apply_journal import ApplyJournal
from agent_tui.sandbox.commit import apply_changes
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.runner import Sandbox
from agent_tui.sandbox.transaction import Transaction, held_sets
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.bash import BashInput, BashTool

pytestmark = needs_bwrap


def setup(tmp_path: Path) -> tuple[Sandbox, ToolContext, Path]:
    project = tmp_path / "p"
    project.mkdir(parents=True)
    sandbox = Sandbox(
        SandboxConfig(mode="on"), project, PermissionEngine(project), data_dir=tmp_path / "d"
    )
    assert sandbox.transactional, sandbox.overlay_problem
    return sandbox, ToolContext(cwd=project, data_dir=tmp_path, sandbox=sandbox), project


async def test_a_transaction_that_cannot_begin_runs_nothing_and_says_so(tmp_path: Path) -> None:
    sandbox, ctx, project = setup(tmp_path)
    try:
        # the change sets' folder can't be made any more (after the start's probe found it fine)
        shutil.rmtree(sandbox.changes_base)
        sandbox.changes_base.write_text("")
        out = await BashTool().run(BashInput(command="touch ran.marker; echo ran"), ctx)
    finally:
        sandbox.close()
    assert out.is_error and out.summary == "not started"
    assert out.content.startswith("The sandbox could not start the command, so it did not run: ")
    assert str(sandbox.changes_base) in out.content and "\n" not in out.content
    assert not (project / "ran.marker").exists()


async def test_a_change_set_that_cannot_be_settled_keeps_the_output_and_is_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def no_room(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(settle_module, "settle", no_room)
    sandbox, ctx, project = setup(tmp_path)
    try:
        out = await BashTool().run(BashInput(command="echo made > made.txt; echo ran"), ctx)
    finally:
        sandbox.close()
    assert not out.is_error and out.content.startswith("ran\n")
    assert "held back: (all) — could not be applied: the disk is full" in out.content
    assert not (project / "made.txt").exists()
    [held] = held_sets(sandbox.changes_base, project)
    assert (held.transaction().upper / "made.txt").read_text() == "made\n"


def test_an_apply_whose_journal_the_disk_refuses_lands_nothing_and_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    txn = Transaction.begin(tmp_path / "changes", project, "echo new > new.txt")
    (txn.upper / "new.txt").write_text("new\n")
    journal = ApplyJournal(txn.folder, txn.upper, txn.lower)

    def full_disk(path: Any, mode: str, **kwargs: Any) -> Any:  # every write: ENOSPC
        assert Path(path) == journal.folder / "entries.jsonl"
        return builtins.open("/dev/full", mode, **kwargs)

    monkeypatch.setattr(apply_journal_module, "open", full_disk, raising=False)
    changes = txn.changes()
    assert [c.rel for c in changes] == ["new.txt"]
    scratch = Scratch(tmp_path / "data")
    applied = apply_changes(
        txn.lower, changes, blobs=MemoryBlobs(), by="Bash", scratch=scratch, journal=journal
    )
    assert applied.applied == [] and [rel for rel, _ in applied.failed] == ["new.txt"]
    assert "No space left on device" in applied.failed[0][1]
    assert not (project / "new.txt").exists() and not journal.folder.exists()
