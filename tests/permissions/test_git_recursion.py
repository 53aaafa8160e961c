"""git's recursion (issue 46, item 3): the index is read for the gitlinks `git status` and
`git diff` descend into, in every format git writes it; `--ignore-submodules` keeps a command
out of them (and bash agrees: the submodule's program doesn't run)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from permissions.outside_oracle import Project, allowed_by, git

from agent_tui.permissions.git_links import gitlinks

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _repo_with_links(path: Path, *init: str) -> Path:
    path.mkdir()
    git("init", "-q", *init, ".", cwd=path)
    for name in ("a", "deep/er/b"):
        sub = path / name
        sub.mkdir(parents=True)
        git("init", "-q", *init, ".", cwd=sub)
        (sub / "x").write_text("1\n")
        git("add", "x", cwd=sub)
        git("commit", "-qm", "x", cwd=sub)
    for i in range(300):  # enough entries for v4's prefix compression to matter
        (path / "deep" / f"file{i:03}.txt").write_text(str(i))
    git("add", "-A", cwd=path)
    git("commit", "-qm", "x", cwd=path)
    return path


def _git_says(repo: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-s", "-z"], cwd=repo, capture_output=True, check=True
    ).stdout.decode()
    return sorted(e.split("\t", 1)[1] for e in out.split("\0") if e.startswith("160000"))


@pytest.mark.parametrize(
    ("init", "update"),
    [
        ((), ()),
        ((), ("--index-version", "3")),
        ((), ("--index-version", "4")),
        (("--object-format=sha256",), ()),
        (("--object-format=sha256",), ("--index-version", "4")),
        ((), ("--split-index",)),
    ],
)
def test_the_index_is_read_in_every_format(
    tmp_path: Path, init: tuple[str, ...], update: tuple[str, ...]
) -> None:
    repo = _repo_with_links(tmp_path / "r", *init)
    if update:
        git("update-index", *update, cwd=repo)
        (repo / "deep" / "file000.txt").write_text("changed")
        git("add", "-A", cwd=repo)  # entries written in the new format
    if update == ("--index-version", "3"):
        (repo / "new.txt").write_text("x")
        git("add", "-N", "new.txt", cwd=repo)  # an intent-to-add entry: extended flags
    assert sorted(gitlinks(repo / ".git")) == _git_says(repo) == ["a", "deep/er/b"]


def test_an_index_without_gitlinks_is_read_without_a_walk(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git("init", "-q", ".", cwd=repo)
    (repo / "f").write_text("x")
    git("add", "f", cwd=repo)
    assert gitlinks(repo / ".git") == [] and gitlinks(tmp_path) == []


def _hostile_submodule(project: Project) -> None:
    sub = project.work / "sub"
    sub.mkdir()
    git("init", "-q", ".", cwd=sub)
    (sub / "g").write_text("1\n")
    git("add", "g", cwd=sub)
    git("commit", "-qm", "x", cwd=sub)
    git("add", "sub", cwd=project.work)
    git("commit", "-qm", "link", cwd=project.work)
    git("config", "core.fsmonitor", project.spell("touch OUT/M; false"), cwd=sub)


def test_ignore_submodules_keeps_git_out_of_them(tmp_path: Path) -> None:
    project = Project(tmp_path / "p")
    _hostile_submodule(project)
    for command in ("git status --ignore-submodules", "git diff --ignore-submodules=all"):
        assert not project.fires(command), command
        assert allowed_by(project.work, command) is not None, command
    for command in ("git status", "git diff --ignore-submodules=dirty"):
        assert allowed_by(project.work, command) is None, command
    assert project.fires("git status")


def test_the_reason_names_the_submodule_and_the_way_out(tmp_path: Path) -> None:
    from agent_tui.permissions.engine import PermissionEngine

    project = Project(tmp_path / "p")
    _hostile_submodule(project)
    d = PermissionEngine(project.work).check("Bash", {"command": "git status"}, read_only=False)
    assert d.behavior == "ask"
    assert "submodule sub" in d.reason and "--ignore-submodules" in d.reason, d.reason


def test_an_unpopulated_gitlink_is_not_descended_into(tmp_path: Path) -> None:
    project = Project(tmp_path / "p")
    _hostile_submodule(project)
    shutil.rmtree(project.work / "sub")
    (project.work / "sub").mkdir()
    assert allowed_by(project.work, "git status") is not None


def test_submodules_are_followed_from_the_work_tree_git_is_given(tmp_path: Path) -> None:
    project = Project(tmp_path / "p")
    _hostile_submodule(project)
    outer = project.work.parent
    for command in (
        "git --git-dir=work/.git --work-tree=work status",
        "git -C work --work-tree=. diff",
        "git --work-tree=work --git-dir=work/.git diff",
    ):
        assert allowed_by(outer, command) is None, command
