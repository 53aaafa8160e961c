"""`Skill`: the model loads one of the session's skills (`agent_tui.skills`), as Claude Code's
tool does, with its input (`skill`, optional `args`). The tool's description lists each skill's
name and description only; a call returns the skill's instructions (`$ARGUMENTS` and `$1`…
filled from `args`), the folder they live in and the names of the files beside SKILL.md, which
the model reads with Read when the instructions call for them. Skills are read again at each
call, so an edited SKILL.md counts at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.tools.base import Tool, ToolContext, ToolOutput

if TYPE_CHECKING:
    from agent_tui.skills import Skill


class SkillInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    skill: str = Field(
        min_length=1, description='The skill name. E.g., "commit", "review-pr", or "pdf"'
    )
    args: str | None = Field(default=None, description="Optional arguments for the skill")


INTRO = (
    "Execute a skill within the main conversation. A skill is a set of instructions (and the "
    "files beside them) for one kind of task. When the user's request matches a skill's "
    "description below, invoke it with this tool before doing the task, then follow what it "
    "returns. Use the exact name; pass the user's words after a /name as args. Don't invoke a "
    "skill that is already loaded in this conversation, and don't use this for built-in "
    "commands (/help, /compact…)."
)


def launch_text(skill: Skill, args: str) -> str:
    """What the model reads when it invokes `skill`."""
    from agent_tui.slash_commands import expand

    lines = [
        f"Launching skill: {skill.name}",
        f"Base directory for this skill: {skill.folder}",
        "",
        expand(skill.body, args),
    ]
    files = skill.files_beside()
    if files:
        lines += [
            "",
            "Files in the skill's folder (read one with Read, at its path under the base "
            "directory, when the instructions call for it):",
            *(f"- {f}" for f in files),
        ]
    return "\n".join(lines)


class SkillTool(Tool):
    name: ClassVar[str] = "Skill"
    description: ClassVar[str] = INTRO
    input_model: ClassVar[type[BaseModel]] = SkillInput
    # Loading instructions changes nothing: allowed in plan mode, and never asks.
    read_only: ClassVar[bool] = True

    def __init__(self, skills: Callable[[], dict[str, Skill]]) -> None:
        #: the session's skills as they are now (read again at each call)
        self.skills = skills

    def offered(self) -> dict[str, Skill]:
        return {n: s for n, s in self.skills().items() if s.model_invocable}

    def schema(self) -> dict[str, Any]:
        schema = super().schema()
        skills = self.offered()
        lines = [INTRO, "", "Available skills:"]
        lines += [f"- {n}: {s.description}" for n, s in sorted(skills.items())] or ["(none)"]
        schema["description"] = "\n".join(lines)
        return schema

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        name = params.skill.strip().lstrip("/")
        skills = self.offered()
        skill = skills.get(name)
        if skill is None:
            known = ", ".join(sorted(skills)) or "none"
            return ToolOutput(
                f"Unknown skill: {name}. The skills here: {known}.",
                is_error=True,
                summary=f"no skill {name}",
            )
        return ToolOutput(
            launch_text(skill, params.args or ""),
            summary=f"loaded skill {skill.name} ({skill.source})",
        )
