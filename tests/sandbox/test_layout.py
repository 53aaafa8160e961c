"""The layout: what a sandboxed command may write, what stays read-only, what is hidden — and
that a hostile repository's symlinks neither break the sandbox nor open a way around it."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

import pytest
from bwrap_support import needs_bwrap

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.permissions.rules import parse_rule
from agent_tui.permissions.settings import SourcedRule
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.layout import plan_layout
from agent_tui.sandbox.runner import Sandbox
from agent_tui.sandbox.transaction import remove_folder
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.bash import BashInput, BashTool


def test_protected_names_missing_at_the_top_get_placeholders(tmp_path: Path) -> None:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / ".git" / "config").write_text("")
    layout = plan_layout(tmp_path, tmp_path / "t", home=Path("/nonexistent-home"))
    shut = {p.name for p, _ in layout.placeholders}
    assert {".envrc", ".mcp.json", ".vscode", ".claude", ".agent-tui", "info"} <= shut
    assert ".bashrc" not in shut  # start-up files matter only in the home directory
    assert tmp_path / ".git" / "config" in layout.read_only
    assert tmp_path / ".git" / "hooks" in layout.read_only
    assert tmp_path / ".git" not in layout.read_only  # commits still work


def test_the_home_directory_gets_its_start_up_files_protected(tmp_path: Path) -> None:
    layout = plan_layout(tmp_path, tmp_path / "t", home=tmp_path)
    assert ".bashrc" in {p.name for p, _ in layout.placeholders}


def test_nested_repositories_and_read_deny_rules(tmp_path: Path) -> None:
    nested = tmp_path / "vendor" / "lib" / ".git"
    (nested / "hooks").mkdir(parents=True)
    (nested / "config").write_text("")
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / ".env").write_text("SECRET=1")
    (tmp_path / "keys").mkdir()
    layout = plan_layout(
        tmp_path, tmp_path / "t", home=Path("/nonexistent-home"),
        read_deny_globs=[".env", "./keys/**"],
    )  # fmt: skip
    assert nested / "config" in layout.read_only and nested / "hooks" in layout.read_only
    assert tmp_path / "conf" / ".env" in layout.hidden
    assert tmp_path / "keys" in layout.hidden


def test_symlinked_protected_names_are_protected_where_they_point(tmp_path: Path) -> None:
    (tmp_path / ".envrc").symlink_to("envrc.real")  # dangling, inside the project
    (tmp_path / ".husky").symlink_to("sub/hooks")  # its parent is missing too
    (tmp_path / ".mcp.json").symlink_to("/nonexistent/x")  # outside: nothing can write it
    (tmp_path / "real.npmrc").write_text("")
    (tmp_path / ".npmrc").symlink_to("real.npmrc")
    layout = plan_layout(tmp_path, tmp_path / "t", home=Path("/nonexistent-home"))
    shut = {p for p, _ in layout.placeholders}
    assert tmp_path / "envrc.real" in shut and tmp_path / "sub" in shut
    assert tmp_path / "real.npmrc" in layout.read_only
    assert not any(p.is_symlink() for p in layout.read_only)


@needs_bwrap
def test_a_hostile_repositorys_links_neither_break_nor_open_the_sandbox() -> None:
    """A protected name that is a link is protected where it points: the command may write
    through it in its overlay, but the gate holds what it wrote there."""
    top = Path(tempfile.mkdtemp(dir="/var/tmp"))
    root = top / "p"
    root.mkdir()
    (root / ".envrc").symlink_to("envrc.real")
    (root / ".husky").symlink_to("sub/hooks")
    (root / ".mcp.json").symlink_to("/nonexistent/x")
    engine = PermissionEngine(root)
    sandbox = Sandbox(SandboxConfig(mode="on"), root, engine, data_dir=top / "d")
    ctx = ToolContext(cwd=root, data_dir=root, sandbox=sandbox)
    command = "echo evil > .envrc; mkdir -p sub/hooks; echo x > .husky/pre-commit; echo ran"
    try:
        out = asyncio.run(BashTool().run(BashInput(command=command), ctx))
        assert "ran" in out.content  # the command ran: links don't break the sandbox
        assert not (root / "envrc.real").exists() and not (root / "sub").exists()
        assert "held back: envrc.real — .envrc is a link to it" in out.content
        assert "held back: sub/hooks/pre-commit — .husky is a link to it" in out.content
        assert sorted(p.name for p in root.iterdir()) == [".envrc", ".husky", ".mcp.json"]
    finally:
        sandbox.close()
        remove_folder(top)


def test_a_read_deny_rule_from_the_engine_reaches_the_layout(tmp_path: Path) -> None:
    (tmp_path / "secrets.txt").write_text("x")
    engine = PermissionEngine(
        tmp_path, [SourcedRule(parse_rule("Read(./secrets.txt)"), "deny", "user")]
    )
    sandbox = Sandbox(SandboxConfig(mode="on"), tmp_path, engine, data_dir=tmp_path / "d")
    try:
        assert tmp_path / "secrets.txt" in sandbox.layout().hidden
    finally:
        sandbox.close()


@pytest.mark.parametrize("raw", ["~/.cache/demo", "rel/dir"])
def test_allow_write_paths_that_exist_become_writable(tmp_path: Path, raw: str) -> None:
    home = tmp_path / "home"
    target = home / ".cache" / "demo" if raw.startswith("~") else tmp_path / raw
    target.mkdir(parents=True)
    layout = plan_layout(tmp_path, tmp_path / "t", home=home, allow_write=[raw])
    assert target in layout.writable


def test_bare_repositories_and_case_variants_are_protected_too(tmp_path: Path) -> None:
    bare = tmp_path / "mirror.git"
    implicit = tmp_path / "deps" / "store"
    for repo in (bare, implicit):
        (repo / "hooks").mkdir(parents=True)
        (repo / "objects").mkdir()
        (repo / "refs").mkdir()
        (repo / "HEAD").write_text("ref: refs/heads/main\n")
        (repo / "config").write_text("")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".ENVRC").write_text("")  # the same file on a case-insensitive disk
    layout = plan_layout(tmp_path, tmp_path / "t", home=Path("/nonexistent-home"))
    for repo in (bare, implicit):
        assert repo / "config" in layout.read_only and repo / "hooks" in layout.read_only
        assert repo / "objects" not in layout.read_only  # pushes to it still work
    assert tmp_path / "sub" / ".ENVRC" in layout.read_only


def test_the_apps_own_python_under_tmp_stays_visible(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A virtual environment (or a checkout) under /tmp would be hidden by the private /tmp: the
    bridge's fallback interpreter and an MCP server started with it must still be there."""
    venv = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        monkeypatch.setattr("sys.prefix", str(venv))
        project = Path(tempfile.mkdtemp(dir="/var/tmp"))
        layout = plan_layout(project, tmp_path / "t", home=Path("/nonexistent-home"))
        assert venv.resolve() in layout.read_only_roots
        assert project not in layout.read_only_roots  # the project stays writable
        shutil.rmtree(project)
    finally:
        remove_folder(venv)
