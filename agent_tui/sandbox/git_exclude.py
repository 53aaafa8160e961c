"""Placeholders stay out of git inside the sandbox.

A protected name that doesn't exist at the project's top level (`.envrc`, `.mcp.json`,
`sitecustomize.py`, ...) is kept from being made by an empty read-only placeholder that bubblewrap
creates in the project while the command runs. To the command it is an empty file like any other:
`git status` listed it as untracked and `git add -A && git commit` committed it (the commit then
holds empty `.envrc`, `.npmrc`, ... files that the working tree no longer has once the placeholders
are removed). So inside the sandbox git is told to ignore exactly those paths: `core.excludesFile`
is pointed (through `GIT_CONFIG_COUNT`, the command-line scope, which the project's own config
can't override) at a file holding what the person's excludes file held plus one anchored pattern
per placeholder. The person's files and the project's `.git` are not touched.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Mapping
from functools import cache
from pathlib import Path

#: where the generated excludes file appears inside (the empty /run)
INSIDE = "/run/agent-tui-git-exclude"


def work_tree_top(cwd: Path) -> Path | None:
    """The top of the git work tree holding `cwd` (the folder with the `.git` entry), if any."""
    for level in (cwd, *cwd.parents):
        if (level / ".git").exists():
            return level
    return None


def patterns(top: Path, placeholders: list[Path]) -> list[str]:
    """One anchored gitignore pattern per placeholder inside the work tree (outside `.git`)."""
    out = []
    for p in placeholders:
        try:
            rel = p.relative_to(top)
        except ValueError:
            continue
        if rel.parts and rel.parts[0] != ".git":
            # the protected names hold no glob or escape characters; escape them all the same
            out.append("/" + "".join("\\" + c if c in "*?[\\!#" else c for c in rel.as_posix()))
    return out


@cache
def _person_excludes(cwd: str) -> str:
    """What the person's own excludes file holds (its `core.excludesFile`, else git's default),
    read once a session (through `git_run`: `git config --get` reads configuration and runs no
    program)."""
    from agent_tui import git_run

    try:  # exit 1 when it isn't set
        out = git_run.run(Path(cwd), "config", "--path", "--get", "core.excludesFile", check=False)
    except git_run.GitError:
        out = b""
    path = out.decode("utf-8", "replace").strip()
    if not path:
        xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        path = str(Path(xdg) / "git" / "ignore")
    try:
        return Path(path).read_text("utf-8", "replace")
    except OSError:
        return ""


def exclude_arguments(
    cwd: Path, placeholders: list[Path], where: Path, env: Mapping[str, str], *, run: bool
) -> list[str]:
    """bwrap arguments that make git inside ignore the placeholders: the excludes file (written
    under `where`, the session's folder) bound in read-only, and the configuration variables.
    `run`: whether the sandbox has its empty /run to bind the file into; else it is written in
    the session's /tmp (`where` is then that folder, seen as /tmp inside)."""
    top = work_tree_top(cwd)
    if top is None:
        return []
    lines = patterns(top, placeholders)
    if not lines:
        return []
    person = _person_excludes(str(cwd))
    text = person + ("" if not person or person.endswith("\n") else "\n")
    text += "# agent-tui sandbox: placeholders for protected names (not in the project)\n"
    text += "\n".join(lines) + "\n"
    name = f"git-exclude-{zlib.crc32(text.encode()):08x}"
    file = where / name
    if not file.exists():
        tmp = file.with_name(file.name + f".{os.getpid()}")
        tmp.write_text(text, "utf-8")
        tmp.chmod(0o444)
        tmp.replace(file)
    inside = INSIDE if run else f"/tmp/{name}"
    args = ["--ro-bind", str(file), inside] if run else []
    try:
        n = max(int(env.get("GIT_CONFIG_COUNT", "0")), 0)
    except ValueError:
        n = 0
    args += ["--setenv", "GIT_CONFIG_COUNT", str(n + 1)]
    args += ["--setenv", f"GIT_CONFIG_KEY_{n}", "core.excludesFile"]
    args += ["--setenv", f"GIT_CONFIG_VALUE_{n}", inside]
    return args
