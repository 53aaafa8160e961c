"""The session's `Skill` tool (`tools.skill`): offered once there is a skill the model may
invoke — the person's, a trusted project's or a trusted plugin's (`agent_tui.skills`) — and its
list of skills renewed when a trust answer brings more."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.skills import Skill


def attach_skills(agent: Agent, cwd: Path, config_dir: Path) -> None:
    from agent_tui.skills import load_skills

    permissions = agent.permissions
    plugins = agent.config.plugins

    def current() -> dict[str, Skill]:
        trusted = permissions.project_trusted
        return load_skills(cwd, config_dir, project_trusted=trusted, plugins=plugins)

    def make() -> Any:
        from agent_tui.tools.skill import SkillTool

        return SkillTool(current)

    offered = False  # (kept here: asking the registry would load its built-in tools)

    def offer() -> None:
        nonlocal offered
        if offered:
            agent.tools.schemas_changed()  # its description lists the skills
        elif any(s.model_invocable for s in current().values()):
            agent.tools.add_lazy("Skill", make)
            offered = True

    offer()
    if hasattr(permissions, "on_trusted"):
        permissions.on_trusted.append(offer)
    if plugins is not None:
        plugins.on_trusted.append(lambda _now: offer())
