"""Removing a transaction's folder never changes a file it doesn't hold (red-team R4-1: a
command left a read-only folder holding a link to the person's file; the clean-up made the
folder writable and then chmodded the link, which followed it: the person's notes.txt went from
644 to 700). Run as an unprivileged user the clean-up path is the real one (root removes a
read-only folder's entries without it); `_unlock` is also called directly, as root too."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.sandbox.transaction import _unlock, remove_folder


@pytest.fixture
def root() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="agent-tui-rm-", dir="/var/tmp"))
    try:
        yield path
    finally:
        for top, dirs, _ in os.walk(path):
            for d in dirs:
                os.chmod(os.path.join(top, d), 0o700)
        shutil.rmtree(path, ignore_errors=True)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def plant(root: Path) -> tuple[Path, Path, Path]:
    victim, public = root / "notes.txt", root / "public"
    victim.write_text("the person's\n")
    os.chmod(victim, 0o644)
    public.mkdir()
    os.chmod(public, 0o755)
    folder = root / "txn"
    locked = folder / "upper" / "locked"
    locked.mkdir(parents=True)
    (locked / "to-file").symlink_to(victim)
    (locked / "to-folder").symlink_to(public)
    (folder / "work" / "work").mkdir(parents=True)
    os.chmod(folder / "work" / "work", 0)  # as overlayfs leaves it
    os.chmod(locked, 0o555)
    return folder, victim, public


def test_the_folder_goes_and_what_its_links_point_to_keeps_its_mode(root: Path) -> None:
    folder, victim, public = plant(root)
    remove_folder(folder)
    assert not folder.exists()
    assert mode(victim) == 0o644 and mode(public) == 0o755
    assert victim.read_text() == "the person's\n"


def test_unlock_removes_a_link_without_touching_its_target(root: Path) -> None:
    folder, victim, public = plant(root)
    locked = folder / "upper" / "locked"
    assert _unlock(str(locked), "to-file") is False
    assert _unlock(str(locked), "to-folder") is False
    assert not os.path.lexists(locked / "to-file") and not os.path.lexists(locked / "to-folder")
    assert mode(victim) == 0o644 and mode(public) == 0o755
    assert _unlock(str(folder / "work"), "work") is True
    assert mode(folder / "work" / "work") == 0o700
