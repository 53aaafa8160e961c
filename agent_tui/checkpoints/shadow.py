"""Undo outside git (issue 32, item 4): a repository of the app's own for a folder that is not in
a git work tree, as Gemini CLI keeps one, so shell and MCP changes there can be taken back too.

The repository lives under the data dir (`<data>/shadow/<hash of the folder's path>`); git runs
with `--git-dir` there and `--work-tree` the folder, so nothing is ever created in the folder
itself. The folder's own `.gitignore` files are honoured. A folder too big to snapshot (a home
directory, a dependency cache) is refused with a reason the person is told, once: its shell
changes are then listed as not restorable, as before.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import threading
import time
from contextlib import suppress
from pathlib import Path

from agent_tui import git_run
from agent_tui.checkpoints.git_tree import GitError, GitWorkTree

#: the biggest folder kept: files git would snapshot, and their bytes
MAX_FILES = 20_000
MAX_BYTES = 200 * 1024 * 1024
#: how long counting the files may take before the folder counts as too big
SCAN_SECONDS = 10.0


class TooBig(GitError):
    pass


def _git_dir(top: Path, data_dir: Path) -> Path:
    return data_dir / "shadow" / hashlib.sha256(os.fsencode(top)).hexdigest()[:20]


def readable_work_tree(folder: Path, data_dir: Path) -> GitWorkTree | None:
    """Where a folder's snapshots can be read from (the Changes view): its git work tree, else
    its shadow repository if one was made; never makes one."""
    found = GitWorkTree.find(folder)
    if found is not None:
        return found
    top = folder.resolve()
    git_dir = _git_dir(top, data_dir)
    return GitWorkTree(top, git_dir / "index", git_dir) if (git_dir / "HEAD").is_file() else None


def shadow_work_tree(folder: Path, data_dir: Path, why: str = "") -> GitWorkTree:
    """The shadow repository for `folder` (made when first needed): for a folder outside git, or
    (`why` says so) one in a repository the app won't run git in. Raises `TooBig` for a folder
    over the bounds, GitError when git can't make one."""
    if not git_run.available():
        raise GitError("git is not installed")
    top = folder.resolve()
    git_dir = _git_dir(top, data_dir)
    if not (git_dir / "HEAD").is_file():
        git_dir.parent.mkdir(parents=True, exist_ok=True)
        git_run.run(data_dir, f"--git-dir={git_dir}", "init", "-q", "--template=")
        (git_dir / "agent-tui-folder").write_bytes(os.fsencode(top))
    work = GitWorkTree(top, git_dir / "index", git_dir)
    _check_size(work, why)
    return work


def _check_size(work: GitWorkTree, why: str) -> None:
    """Count what a snapshot would hold (the files git does not ignore), stopping at the bound."""
    assert work.git_dir is not None
    args = [
        f"--git-dir={work.git_dir}",
        "--work-tree=.",
        "ls-files",
        "--others",
        "--exclude-standard",
        "-z",
    ]
    files = size = 0
    try:
        proc = git_run.popen(work.top, *args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError as exc:
        raise GitError(f"git ls-files: {exc}") from None
    assert proc.stdout is not None
    too_big = ""
    timer = threading.Timer(SCAN_SECONDS, proc.kill)  # counting must not hold a turn up
    timer.start()
    started = time.monotonic()
    try:
        pending = b""
        out = proc.stdout.fileno()
        for chunk in iter(lambda: os.read(out, 65536), b""):
            pending += chunk
            *names, pending = pending.split(b"\0")
            for name in names:
                files += 1
                with suppress(OSError):
                    size += os.lstat(work.top / os.fsdecode(name)).st_size
            if files > MAX_FILES:
                too_big = f"more than {MAX_FILES:,} files"
            elif size > MAX_BYTES:
                too_big = f"more than {MAX_BYTES // (1024 * 1024):,} MB"
            if too_big:
                break
    finally:
        timer.cancel()
        proc.kill()
        proc.wait()
    if not too_big and time.monotonic() - started >= SCAN_SECONDS:
        too_big = f"more files than can be counted in {SCAN_SECONDS:.0f} s"
    if too_big:
        fix = (
            "Remove what makes the repository run a program to have them undone too."
            if why
            else "Run `git init` there to have them undone too."
        )
        where = (
            f"is in a git repository the app won't run git in ({why})" if why else ("is not in git")
        )
        raise TooBig(
            f"{work.top} {where} and holds {too_big}: too big to snapshot apart, so what shell "
            f"commands and MCP tools change here can't be undone (Write and Edit can). {fix}"
        )
