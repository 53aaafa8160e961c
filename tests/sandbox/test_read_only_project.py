"""A project the person can't write (a read-only mount, a checkout of someone else's): commands
still run in the sandbox — its overlay needs no placeholder in the project — and a write is
refused at the end with the real reason, kept in the held set, never blamed on the command."""

from __future__ import annotations

import asyncio
import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from bwrap_support import needs_bwrap

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.runner import Sandbox
from agent_tui.sandbox.transaction import held_sets, remove_folder
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.bash import BashInput, BashTool

pytestmark = needs_bwrap

GIT = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t"}
GIT |= {"GIT_COMMITTER_EMAIL": "t@x", "PATH": os.environ["PATH"]}


@pytest.fixture
def read_only() -> Iterator[tuple[Path, Path]]:
    root = Path(tempfile.mkdtemp(prefix="agent-tui-ro-", dir="/var/tmp"))
    source, project = root / "source", root / "project"
    source.mkdir()
    (source / "README.md").write_text("# theirs\n")
    subprocess.run(["git", "init", "-q"], cwd=source, check=True)
    subprocess.run(["git", "add", "-A"], cwd=source, check=True, env=GIT)
    subprocess.run(["git", "commit", "-qm", "theirs"], cwd=source, check=True, env=GIT)
    mounted = False
    if os.getuid() == 0:  # root writes through any mode: a read-only mount is what stops it
        project.mkdir()
        bind = subprocess.run(["mount", "--bind", str(source), str(project)], capture_output=True)
        ro = subprocess.run(["mount", "-o", "remount,bind,ro", str(project)], capture_output=True)
        if bind.returncode or ro.returncode:
            if not bind.returncode:
                subprocess.run(["umount", str(project)])
            remove_folder(root)
            pytest.skip("no read-only bind mount here (needs CAP_SYS_ADMIN)")
        mounted = True
    else:
        source.rename(project)
        for p in [project, *project.rglob("*")]:
            p.chmod(p.stat().st_mode & ~0o222)
    try:
        yield project, root
    finally:
        if mounted:
            subprocess.run(["umount", str(project)])
        for p in [project, *project.rglob("*")] if not mounted else []:
            p.chmod(p.stat().st_mode | 0o200)
        remove_folder(root)


async def test_reads_run_and_a_write_is_refused_with_the_real_reason(
    read_only: tuple[Path, Path],
) -> None:
    project, root = read_only
    sandbox = Sandbox(
        SandboxConfig(mode="on"), project, PermissionEngine(project), data_dir=root / "d"
    )
    ctx = ToolContext(cwd=project, data_dir=root, sandbox=sandbox)
    try:
        assert sandbox.transactional, sandbox.overlay_problem
        listing = await BashTool().run(BashInput(command="ls"), ctx)
        assert "README.md" in listing.content and listing.exit_code == 0
        log = await BashTool().run(BashInput(command="git log --oneline"), ctx)
        assert "theirs" in log.content and log.exit_code == 0, log.content
        write = await BashTool().run(BashInput(command="echo mine > notes.txt && echo wrote"), ctx)
        assert "wrote" in write.content  # the command itself did its work, in its overlay
        assert "could not be applied: notes.txt" in write.content
        assert "Read-only file system" in write.content or "Permission denied" in write.content
        assert "dangerouslyDisableSandbox" not in write.content  # not the sandbox's doing
        assert not (project / "notes.txt").exists()
        [held] = held_sets(sandbox.changes_base, project)
        assert (held.folder / "upper" / "notes.txt").read_text() == "mine\n"
    finally:
        sandbox.close()
    await asyncio.sleep(0)
