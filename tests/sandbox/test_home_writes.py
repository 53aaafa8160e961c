"""The session's home is the commands' to write, so what the app writes there itself (the
person's git configuration, filtered) never follows a link a command planted (red-team R3-4:
`~/.gitconfig` → `~/.ssh/id_rsa`, `~/.config/git` → the project's `.git`, overwritten before the
next command). Unit cases, then the real thing: two commands in real bubblewrap, HOME off /tmp."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from bwrap_support import needs_bwrap

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.home import write_own
from agent_tui.sandbox.runner import Sandbox
from agent_tui.sandbox.transaction import remove_folder
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.bash import BashInput, BashTool


@pytest.fixture
def root() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="agent-tui-home-", dir="/var/tmp"))
    try:
        yield path
    finally:
        remove_folder(path)


def test_a_link_in_the_files_place_is_replaced_not_followed(root: Path) -> None:
    own, secret = root / "own", root / "id_rsa"
    own.mkdir()
    secret.write_text("KEY\n")
    (own / ".gitconfig").symlink_to(secret)
    write_own(own, ".gitconfig", b"[user]\n")
    assert secret.read_text() == "KEY\n"
    assert (
        not (own / ".gitconfig").is_symlink() and (own / ".gitconfig").read_bytes() == b"[user]\n"
    )


def test_a_link_or_file_in_a_folders_place_is_taken_away(root: Path) -> None:
    own, elsewhere = root / "own", root / "dotgit"
    own.mkdir()
    elsewhere.mkdir()
    (own / ".config").symlink_to(elsewhere)
    write_own(own, ".config/git/config", b"a\n")
    assert list(elsewhere.iterdir()) == []
    assert (own / ".config" / "git" / "config").read_bytes() == b"a\n"
    shutil.rmtree(own / ".config" / "git")
    (own / ".config" / "git").write_text("a file\n")
    write_own(own, ".config/git/config", b"b\n")
    assert (own / ".config" / "git" / "config").read_bytes() == b"b\n"


def test_a_folder_in_the_files_place_goes_and_the_same_content_is_left_alone(root: Path) -> None:
    own = root / "own"
    (own / ".gitconfig" / "inner").mkdir(parents=True)
    write_own(own, ".gitconfig", b"x\n")
    assert (own / ".gitconfig").read_bytes() == b"x\n"
    before = os.stat(own / ".gitconfig").st_ino
    write_own(own, ".gitconfig", b"x\n")
    assert os.stat(own / ".gitconfig").st_ino == before


@needs_bwrap
async def test_a_planted_link_in_the_sandboxs_home_reaches_nothing_of_the_persons(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project = root / "home", root / "project"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("THE KEY\n")
    (home / ".gitconfig").write_text("[user]\n\tname = Pat Person\n")
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "config").write_text("[core]\n\tbare = false\n")
    monkeypatch.setenv("HOME", str(home))
    sandbox = Sandbox(
        SandboxConfig(mode="on"), project, PermissionEngine(project), data_dir=root / "data"
    )
    ctx = ToolContext(cwd=project, data_dir=root, sandbox=sandbox)
    plant = (
        f"ln -sfn {home}/.ssh/id_rsa ~/.gitconfig && mkdir -p ~/.config && "
        f"rm -rf ~/.config/git && ln -sfn {project}/.git ~/.config/git && echo planted"
    )
    try:
        first = await BashTool().run(BashInput(command=plant), ctx)
        assert "planted" in first.content, first.content
        second = await BashTool().run(BashInput(command="git config user.name"), ctx)
    finally:
        sandbox.close()
    assert (home / ".ssh" / "id_rsa").read_text() == "THE KEY\n"
    assert (project / ".git" / "config").read_text() == "[core]\n\tbare = false\n"
    assert "Pat Person" in second.content, second.content
