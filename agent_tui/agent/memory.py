"""Project memory: the notes people keep for agents (`AGENTS.md`, `CLAUDE.md`), read from the
working directory up to the repository root, plus a user-level file in the config directory.

They are data the person chose to give the model, never grants: nothing in them changes a
permission. A file from a project that is not trusted is labelled so in the system prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

NAMES = ("AGENTS.md", "CLAUDE.md")
#: characters of one memory file sent to the model (a runaway file can't eat the context)
MAX_CHARS = 40_000


@dataclass(frozen=True, slots=True)
class MemoryFile:
    """One memory file as read for the system prompt: its text (cut at `MAX_CHARS`), whose it is."""

    path: Path
    text: str
    scope: Literal["user", "project"]
    truncated: bool = False

    @property
    def label(self) -> str:
        """How the person sees it listed: the path, and whose it is."""
        return f"{self.path} ({'yours' if self.scope == 'user' else 'project'})"


def _read(
    path: Path, scope: Literal["user", "project"], within: Path | None = None
) -> MemoryFile | None:
    """The memory file at `path`; a project's only where it really is inside `within` (a
    link planted to a secret, `/proc/self/environ` or another project is not followed: what the
    file holds goes to the model)."""
    try:
        if within is not None:
            real = path.resolve()
            if not real.is_relative_to(within) or real.is_relative_to("/proc"):
                return None
        text = path.read_text("utf-8", errors="replace")
    except OSError:
        return None
    if not text.strip():
        return None
    cut = len(text) > MAX_CHARS
    return MemoryFile(path, text[:MAX_CHARS], scope, cut)


def project_dirs(cwd: Path) -> list[Path]:
    """From the repository root (the nearest folder holding `.git`) down to `cwd`; just `cwd`
    outside a repository."""
    cwd = cwd.resolve()
    chain = [cwd, *cwd.parents]
    root = next((d for d in chain if (d / ".git").exists()), None)
    if root is None:
        return [cwd]
    return list(reversed(chain[: chain.index(root) + 1]))


def find_memory(cwd: Path, config_dir: Path | None) -> list[MemoryFile]:
    """The user's file first, then the project's from the outermost folder in."""
    found: list[MemoryFile] = []
    if config_dir is not None:
        from agent_tui.permissions.claude_settings import claude_dir

        for folder in (config_dir, claude_dir()):  # ours, then Claude Code's ~/.claude
            for name in NAMES:
                memory = _read(folder / name, "user")
                if memory:
                    found.append(memory)
    folders = project_dirs(cwd)
    for folder in folders:
        for name in NAMES:
            memory = _read(folder / name, "project", within=folders[0])
            if memory:
                found.append(memory)
    return found
