"""Claude Code's `Skill` tool: its input schema, the skills it lists (name and description only:
progressive disclosure), what a call loads (body with its arguments, the folder, the files beside
SKILL.md), skills kept to `/NAME` or to the model, an untrusted project's left out, and an edit
counted at the next call."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from agent_tui.skills import load_skills
from agent_tui.slash_commands import load_user_commands
from agent_tui.tools.base import ToolContext
from agent_tui.tools.skill import SkillTool


def write_skill(folder: Path, name: str, text: str) -> Path:
    (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / name / "SKILL.md").write_text(text)
    return folder / name


def tool_for(cwd: Path, home: Path, trusted: bool = False) -> SkillTool:
    return SkillTool(lambda: load_skills(cwd, home, project_trusted=trusted))


def call(tool: SkillTool, cwd: Path, **raw: str) -> tuple[str, bool]:
    out = asyncio.run(tool.run(tool.validate(raw), ToolContext(cwd=cwd, data_dir=cwd)))
    return out.content, out.is_error


def test_the_schema_is_claude_codes_and_lists_names_and_descriptions(tmp_path: Path) -> None:
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "skills"
    write_skill(claude, "pdf", "---\nname: pdf\ndescription: Fill PDF forms\n---\nSECRET BODY")
    schema = tool_for(tmp_path, tmp_path / "home").schema()
    assert schema["name"] == "Skill"
    assert schema["input_schema"]["required"] == ["skill"]
    assert set(schema["input_schema"]["properties"]) == {"skill", "args"}
    assert schema["input_schema"]["additionalProperties"] is False
    assert "- pdf: Fill PDF forms" in schema["description"]
    assert "SECRET BODY" not in schema["description"]  # the body loads only when invoked


def test_a_call_loads_the_body_with_arguments_and_the_files_beside(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = write_skill(
        home / "skills", "release", "---\ndescription: cut a release\n---\nRelease $ARGUMENTS."
    )
    (folder / "scripts").mkdir()
    (folder / "scripts" / "bump.py").write_text("")
    (folder / "CHECKLIST.md").write_text("")
    (folder / ".hidden").write_text("")
    text, error = call(tool_for(tmp_path, home), tmp_path, skill="release", args="v2")
    assert not error
    assert text.splitlines()[:4] == [
        "Launching skill: release",
        f"Base directory for this skill: {folder}",
        "",
        "Release v2.",
    ]
    assert "- CHECKLIST.md" in text and "- scripts/bump.py" in text and ".hidden" not in text
    (folder / "SKILL.md").write_text("Release $ARGUMENTS, carefully.")
    assert "Release v2, carefully." in call(tool_for(tmp_path, home), tmp_path, skill="release",
                                             args="v2")[0]  # fmt: skip


def test_unknown_and_model_disabled_skills_are_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_skill(home / "skills", "deploy", "---\ndisable-model-invocation: true\n---\nDeploy.")
    tool = tool_for(tmp_path, home)
    text, error = call(tool, tmp_path, skill="deploy")
    assert error and text.startswith("Unknown skill: deploy.")
    assert "deploy" not in tool.schema()["description"]
    assert "deploy" in {c.name for c in load_user_commands(tmp_path, home, project_trusted=False)}


def test_a_skill_for_the_model_alone_is_no_slash_command(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_skill(home / "skills", "style", "---\nuser-invocable: false\n---\nHouse style.")
    commands = load_user_commands(tmp_path, home, project_trusted=False)
    assert "style" not in {c.name for c in commands}
    assert not call(tool_for(tmp_path, home), tmp_path, skill="style")[1]


def test_an_untrusted_projects_skills_are_not_offered(tmp_path: Path) -> None:
    write_skill(tmp_path / ".claude" / "skills", "mine", "---\ndescription: the repo's\n---\nDo.")
    home = tmp_path / "home"
    assert "mine" not in load_skills(tmp_path, home, project_trusted=False)
    assert call(tool_for(tmp_path, home, trusted=True), tmp_path, skill="mine")[1] is False
