"""`@file` mentions: the picker's fuzzy order and gitignore-aware list, and the file text a
mention attaches to the prompt."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent_tui.tools.media import prompt_attachments
from agent_tui.tools.mentions import fuzzy_rank, project_files, typing_mention

PATHS = ["src/app.py", "src/api/handlers.py", "tests/test_app.py", "docs/apples.md", "README.md"]


def test_the_mention_being_typed() -> None:
    assert typing_mention("look at @src/ap") == "src/ap"
    assert typing_mention("@") == ""
    assert typing_mention("mail me at a@b.c") is None
    assert typing_mention("look at @src/app.py now") is None


def test_fuzzy_order_prefers_the_file_name() -> None:
    ranked = fuzzy_rank("app", PATHS)
    assert ranked[0] == "src/app.py"  # in the name, and the shortest
    assert set(ranked[1:3]) == {"docs/apples.md", "tests/test_app.py"}
    assert ranked.index("src/api/handlers.py") > 2  # spread over folders: last
    assert fuzzy_rank("sah", PATHS) == ["src/api/handlers.py"]
    assert fuzzy_rank("zzz", PATHS) == []


def test_project_files_respect_gitignore(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.js").write_text("x")
    (tmp_path / "main.py").write_text("x")
    assert sorted(project_files(tmp_path)) == [".gitignore", "main.py"]


def test_a_mention_attaches_the_files_text(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\nuse ``` fences\n")
    blocks, notes = prompt_attachments("summarise @notes.md, and @missing.txt please", tmp_path)
    (block,) = blocks
    assert block["text"].startswith("Contents of notes.md:\n````\n# Notes\nuse ``` fences")
    assert notes == ["attached notes.md (23 characters)"]
