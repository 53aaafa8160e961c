"""Grep and Glob on ripgrep: Claude Code's inputs, .gitignore respected, output capped with the
truncation said, newest first, bad patterns and paths reported, deny rules honoured."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.permissions.rules import parse_rule
from agent_tui.permissions.settings import SourcedRule
from agent_tui.tools.base import ToolContext, ToolOutput
from agent_tui.tools.builtin.search_files import GLOB_LIMIT, GlobTool, GrepTool


def make_engine(cwd: Path, deny: list[str] = (), mode: str = "default") -> PermissionEngine:  # type: ignore[assignment]
    rules = [SourcedRule(parse_rule(r), "deny", "cli") for r in deny]
    return PermissionEngine(cwd, rules, mode=mode)  # type: ignore[arg-type]


async def call(tool: Any, ctx: ToolContext, **raw: Any) -> ToolOutput:
    return await tool.run(tool.validate(raw), ctx)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("def main():\n    return 'Hello'\n")
    (tmp_path / "src" / "util.py").write_text("HELLO = 1\nprint(HELLO)\n")
    (tmp_path / "README.md").write_text("say hello\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.py").write_text("hello from build\n")
    (tmp_path / ".env").write_text("TOKEN=hello\n")
    for n, name in enumerate(["README.md", "src/util.py", "src/app.py"]):
        os.utime(tmp_path / name, (1_000_000 + n * 100, 1_000_000 + n * 100))
    return tmp_path


async def test_grep_lists_files_newest_first_and_skips_gitignored(
    ctx: ToolContext, project: Path
) -> None:
    out = await call(GrepTool(), ctx, pattern="hello", **{"-i": True})
    names = out.content.splitlines()
    assert "build/out.py" not in names
    assert names.index("src/app.py") < names.index("src/util.py") < names.index("README.md")


async def test_grep_content_with_line_numbers_context_and_count(
    ctx: ToolContext, project: Path
) -> None:
    out = await call(GrepTool(), ctx, pattern="HELLO", path="src", output_mode="content")
    assert out.content.splitlines() == ["src/util.py:1:HELLO = 1", "src/util.py:2:print(HELLO)"]
    out = await call(GrepTool(), ctx, pattern="return", output_mode="content", **{"-B": 1})
    assert out.content.splitlines() == [
        "src/app.py-1-def main():",
        "src/app.py:2:    return 'Hello'",
    ]
    out = await call(GrepTool(), ctx, pattern="HELLO", output_mode="count")
    assert out.content == "src/util.py:2" and out.summary == "2 matches in 1 file"
    out = await call(GrepTool(), ctx, pattern="hello", glob="*.md")
    assert out.content == "README.md"
    out = await call(GrepTool(), ctx, pattern="hello", type="py", **{"-i": True})
    assert "README.md" not in out.content and "src/app.py" in out.content


async def test_grep_multiline_and_no_matches(ctx: ToolContext, project: Path) -> None:
    out = await call(GrepTool(), ctx, pattern=r"main\(\):.*return", multiline=True)
    assert out.content == "src/app.py"
    out = await call(GrepTool(), ctx, pattern="nowhere to be found")
    assert out.content == "No matches found." and not out.is_error


async def test_grep_caps_its_output_and_says_so(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_text("match\n" * 1000)
    out = await call(GrepTool(), ctx, pattern="match", output_mode="content")
    assert len(out.content.splitlines()) < 300
    assert "[showing 250 lines; 750 more not shown" in out.content
    out = await call(GrepTool(), ctx, pattern="match", output_mode="content", head_limit=3)
    assert out.content.startswith("many.txt:1:match\nmany.txt:2:match\nmany.txt:3:match\n\n[")
    assert out.summary == "3 of 1,000 lines"


async def test_grep_reports_bad_patterns_and_paths(ctx: ToolContext, project: Path) -> None:
    out = await call(GrepTool(), ctx, pattern="(unclosed")
    assert out.is_error and "unclosed group" in out.content
    out = await call(GrepTool(), ctx, pattern="x", path="no/such/dir")
    assert out.is_error and "does not exist" in out.content


async def test_glob_top_level_and_recursive_newest_first(ctx: ToolContext, project: Path) -> None:
    out = await call(GlobTool(), ctx, pattern="*.md")
    assert out.content == "README.md"
    out = await call(GlobTool(), ctx, pattern="**/*.py")
    assert out.content.splitlines() == ["src/app.py", "src/util.py"]  # newest first, no build/
    out = await call(GlobTool(), ctx, pattern="*.py", path="src")
    assert set(out.content.splitlines()) == {"src/app.py", "src/util.py"}
    out = await call(GlobTool(), ctx, pattern="*.rs")
    assert out.content == "No files found."


async def test_glob_caps_at_its_limit(ctx: ToolContext, tmp_path: Path) -> None:
    for n in range(GLOB_LIMIT + 20):
        (tmp_path / f"f{n:03}.txt").write_text("")
    out = await call(GlobTool(), ctx, pattern="*.txt")
    assert len(out.content.split("\n\n")[0].splitlines()) == GLOB_LIMIT
    assert "20 more not shown" in out.content and out.summary == f"{GLOB_LIMIT + 20} files"


async def test_deny_rules_keep_files_out_of_results(project: Path, tmp_path: Path) -> None:
    engine = make_engine(project, deny=["Read(.env)"])
    ctx = ToolContext(cwd=project, data_dir=tmp_path / "data", read_denied=engine.read_denied)
    out = await call(GrepTool(), ctx, pattern="hello", **{"-i": True})
    assert ".env" not in out.content.splitlines() and "README.md" in out.content
    out = await call(GlobTool(), ctx, pattern=".env")
    assert out.content == "No files found."


def test_permissions_search_inside_freely_and_ask_outside(project: Path, tmp_path: Path) -> None:
    engine = make_engine(project, deny=["Read(secrets/)"])
    assert engine.check("Grep", {"pattern": "x"}, read_only=True).behavior == "allow"
    assert engine.check("Glob", {"pattern": "*", "path": "src"}, read_only=True).behavior == "allow"
    outside = engine.check("Grep", {"pattern": "x", "path": "/etc"}, read_only=True)
    assert outside.behavior == "ask" and "outside the working directory" in outside.reason
    denied = engine.check("Grep", {"pattern": "x", "path": "secrets/key.txt"}, read_only=True)
    assert denied.behavior == "deny"
    assert engine.check("TodoWrite", {"todos": []}, read_only=True).behavior == "allow"
    engine_plan = make_engine(project, mode="plan")
    assert engine_plan.check("Grep", {"pattern": "x"}, read_only=True).behavior == "allow"


async def test_a_search_past_the_output_cap_stops_rg_and_says_more(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.tools.builtin import search_files

    for n in range(300):
        (tmp_path / f"file_{n:03}.txt").write_text("needle\n")
    monkeypatch.setattr(search_files, "MAX_NAMES_BYTES", 2000)  # ~200 names
    out = await call(GrepTool(), ctx, pattern="needle")
    shown = out.content.split("\n\n")[0].splitlines()
    assert 100 < len(shown) < 300 and all(n.startswith("file_") for n in shown)
    assert "more not shown" in out.content and out.summary.endswith("of more files")
