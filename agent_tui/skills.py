"""Claude Code's skills: a folder with a `SKILL.md` (front matter `name`, `description`; the body
is the instructions) and whatever files it needs beside it (references, scripts, templates).

Where they come from, later ones winning on a name: the person's (`<config dir>/skills/`,
`~/.claude/skills/`), a trusted project's `.claude/skills/`, and the trusted plugins' (named
`plugin:skill`, so they never take another's name). Progressive disclosure, as in Claude Code:
the model is shown each skill's name and description only (the `Skill` tool's description);
invoking one loads its body, with the folder's path and the names of the files beside it, which
the model reads only when the instructions call for them. `disable-model-invocation: true`
keeps a skill to `/NAME`; `user-invocable: false` keeps it out of the `/` list.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui import front_matter

#: files beside SKILL.md named in a skill's launch text
FILES_LISTED = 60


@dataclass(frozen=True, slots=True)
class Skill:
    """A skill as read from its SKILL.md: its name, description and instructions."""

    name: str
    description: str
    #: its SKILL.md
    path: Path
    #: "user", "project" or "plugin NAME"
    source: str
    body: str
    model_invocable: bool = True
    user_invocable: bool = True

    @property
    def folder(self) -> Path:
        return self.path.parent

    def files_beside(self) -> list[str]:
        """The folder's other files (hidden ones left out), relative, at most `FILES_LISTED`."""
        found: list[str] = []
        for path in sorted(self.folder.rglob("*")):
            rel = path.relative_to(self.folder)
            if any(part.startswith(".") for part in rel.parts) or path == self.path:
                continue
            if path.is_file():
                found.append(rel.as_posix())
                if len(found) == FILES_LISTED:
                    break
        return found


def skill_files(
    cwd: Path, config_dir: Path, *, project_trusted: bool, plugins: Any = None
) -> list[tuple[Path, str, str]]:
    """(SKILL.md, name, source) of every skill, the winning one last on a name."""
    from agent_tui.permissions.claude_settings import claude_dir

    folders = [(config_dir / "skills", "user"), (claude_dir() / "skills", "user")]
    if project_trusted:
        folders.append((cwd / ".claude" / "skills", "project"))
    found = [
        (path, path.parent.name, source)
        for folder, source in folders
        if folder.is_dir()
        for path in sorted(folder.glob("*/SKILL.md"))
    ]
    if plugins is not None:
        found += [(p, name, f"plugin {name.split(':')[0]}") for p, name in plugins.skill_files()]
    return found


def read_skill(path: Path, name: str, source: str) -> Skill | None:
    found = front_matter.read(path)
    if found is None:
        return None
    fields, body = found
    return Skill(
        name,
        front_matter.summary(fields, body, 200),
        path,
        source,
        body,
        model_invocable=not front_matter.flag(fields, "disable-model-invocation", False),
        user_invocable=front_matter.flag(fields, "user-invocable", True),
    )


def load_skills(
    cwd: Path, config_dir: Path, *, project_trusted: bool, plugins: Any = None
) -> dict[str, Skill]:
    """Every skill by name (the later source winning), unreadable or empty ones left out."""
    found: dict[str, Skill] = {}
    for path, name, source in skill_files(
        cwd, config_dir, project_trusted=project_trusted, plugins=plugins
    ):
        skill = read_skill(path, name, source)
        if skill is not None:
            found[name] = skill
    return found
