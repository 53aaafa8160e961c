"""Placeholders stay out of git inside the sandbox: a sandboxed `git add -A && git commit` must
commit the project's files, never the empty placeholders that keep protected names from being
made (before, the commit held empty `.envrc`, `.mcp.json`, `sitecustomize.py`, ...)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import tempfile
from pathlib import Path

from bwrap_support import needs_bwrap

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.git_exclude import exclude_arguments, patterns
from agent_tui.sandbox.runner import Sandbox
from agent_tui.sandbox.transaction import remove_folder
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.bash import BashInput, BashTool

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def test_patterns_are_anchored_at_the_work_tree_and_skip_git_internals(tmp_path: Path) -> None:
    sub = tmp_path / "app"
    found = patterns(tmp_path, [sub / ".envrc", tmp_path / ".git" / "info", Path("/else/x")])
    assert found == ["/app/.envrc"]


def test_nothing_is_set_outside_a_repository(tmp_path: Path) -> None:
    assert exclude_arguments(tmp_path, [tmp_path / ".envrc"], tmp_path, {}, run=True) == []


def test_the_persons_own_configuration_variables_are_kept(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    env = {"GIT_CONFIG_COUNT": "2"}
    args = exclude_arguments(tmp_path, [tmp_path / ".envrc"], tmp_path, env, run=True)
    pairs = dict(zip(args[1::3], args[2::3], strict=False))
    assert pairs["GIT_CONFIG_COUNT"] == "3"
    assert pairs["GIT_CONFIG_KEY_2"] == "core.excludesFile"


@needs_bwrap
def test_a_sandboxed_commit_holds_no_placeholder() -> None:
    top = Path(tempfile.mkdtemp(dir="/var/tmp"))  # not under /tmp: the sandbox's /tmp is private
    root = top / "p"
    root.mkdir()
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    (root / "app.py").write_text("print('hi')\n")
    (root / "build.log").write_text("ignored by the person's own excludes\n")
    (root / ".git" / "info" / "exclude").write_text("*.log\n")
    engine = PermissionEngine(root)
    # the direct scheme (no overlay) is the one that makes placeholders
    config = SandboxConfig(mode="on", change_sets=False)
    sandbox = Sandbox(config, root, engine, data_dir=top / "d")
    ctx = ToolContext(cwd=root, data_dir=root, sandbox=sandbox)
    identity = " ".join(f"{k}={v}" for k, v in GIT_ENV.items())
    command = f"git status --porcelain; {identity} git add -A && {identity} git commit -qm work"
    try:
        assert sandbox.layout().placeholders  # the case under test: placeholders are made
        out = asyncio.run(BashTool().run(BashInput(command=command), ctx))
        assert out.content.strip().splitlines()[0] == "?? app.py"  # nothing but the project's
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files"], capture_output=True, text=True, check=True
        ).stdout.split()
        assert listed == ["app.py"]  # not .envrc, .mcp.json, sitecustomize.py, ... nor build.log
        assert (
            subprocess.run(
                ["git", "-C", str(root), "status", "--porcelain"], capture_output=True, text=True
            ).stdout.strip()
            == ""
        )  # the placeholders are gone and nothing reads as deleted
    finally:
        sandbox.close()
        remove_folder(top)
