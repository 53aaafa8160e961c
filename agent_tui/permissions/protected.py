"""Protected paths: files that, once written, make a later harmless-looking command run code.

A model that can write `.git/config` (core.fsmonitor, core.pager) or `.git/hooks/*` turns the
default-allowed `git status` into code execution; the same goes for the agent's own settings,
shell start-up files and tool configs that name commands. Writes to these always ask (every mode
but yolo), whether they come from Write/Edit or from a shell redirection, `tee`, `cp`, `sed -i`.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from agent_tui.permissions.git_config import is_git_dir
from agent_tui.permissions.links import hard_linked

# A directory with one of these names, anywhere in the path, holds code-running configuration.
_DIRS = {
    ".git": "git's internals (.git/): hooks and config run programs",
    ".agent-tui": "agent-tui's own settings",
    ".claude": "agent configuration (.claude/)",
    ".husky": "git hooks (.husky/)",
    ".vscode": "editor tasks and settings (.vscode/) that can run commands",
    ".ssh": "ssh configuration and keys",
    ".cursor": "another agent's configuration (.cursor/: its MCP servers start programs)",
    ".gemini": "another agent's configuration (.gemini/: it starts programs)",
    ".roo": "another agent's configuration (.roo/: its MCP servers start programs)",
    ".codex": "another agent's configuration (.codex/)",
    ".devcontainer": "a dev container's configuration (initializeCommand runs on the host)",
    ".zed": "editor settings (.zed/) that start language servers and tasks",
    ".helix": "editor settings (.helix/) that start language servers",
    ".cargo": "cargo's project configuration (runners and wrappers run programs)",
}
# Files with one of these names run code or configure a tool to.
_FILES = {
    ".mcp.json": "MCP server configuration: it starts programs",
    ".envrc": "direnv runs it on entering the directory",
    ".npmrc": "npm configuration (script-shell, node-options)",
    ".yarnrc": "yarn configuration",
    ".yarnrc.yml": "yarn configuration (yarnPath runs code)",
    ".gitconfig": "git configuration",
    ".gitmodules": "git submodule configuration",
    ".pre-commit-config.yaml": "pre-commit hooks: commands git runs on commit",
    ".bashrc": "a shell start-up file",
    ".bash_profile": "a shell start-up file",
    ".bash_login": "a shell start-up file",
    ".bash_logout": "a shell start-up file",
    ".profile": "a shell start-up file",
    ".zshrc": "a shell start-up file",
    ".zshenv": "a shell start-up file",
    ".zprofile": "a shell start-up file",
    ".zlogin": "a shell start-up file",
    ".kshrc": "a shell start-up file",
    ".inputrc": "readline start-up file",
    "config.fish": "a shell start-up file",
    "sitecustomize.py": "Python runs it at start-up",
    "parsed-css.pickle": "an earlier agent-tui loads it at start-up (a pickle)",
    "usercustomize.py": "Python runs it at start-up",
    "pyvenv.cfg": "a virtual environment's configuration: it decides which Python runs",
    ".nvim.lua": "Neovim runs it on opening the folder (exrc)",
    ".exrc": "vi and Neovim run it on opening the folder (exrc)",
    ".aider.conf.yml": "aider's configuration (its lint and test commands run)",
    "rust-toolchain": "rustup's toolchain file (a `path` runs another cargo)",
    "rust-toolchain.toml": "rustup's toolchain file (a `path` runs another cargo)",
    "lefthook.yml": "git hooks (lefthook)",
    ".lefthook.yml": "git hooks (lefthook)",
    "lefthook-local.yml": "git hooks (lefthook)",
    ".overcommit.yml": "git hooks (overcommit)",
    ".lintstagedrc": "the commands lint-staged runs from a git hook",
    ".lintstagedrc.json": "the commands lint-staged runs from a git hook",
    ".lintstagedrc.yaml": "the commands lint-staged runs from a git hook",
    ".lintstagedrc.yml": "the commands lint-staged runs from a git hook",
    ".lintstagedrc.js": "the commands lint-staged runs from a git hook",
    ".lintstagedrc.cjs": "the commands lint-staged runs from a git hook",
    ".lintstagedrc.mjs": "the commands lint-staged runs from a git hook",
    "lint-staged.config.js": "the commands lint-staged runs from a git hook",
    "lint-staged.config.cjs": "the commands lint-staged runs from a git hook",
    "lint-staged.config.mjs": "the commands lint-staged runs from a git hook",
    ".simple-git-hooks.json": "git hooks (simple-git-hooks)",
    ".simple-git-hooks.js": "git hooks (simple-git-hooks)",
    ".simple-git-hooks.cjs": "git hooks (simple-git-hooks)",
}
#: modules Python imports at start-up, whatever their suffix (`.py`, `.pyc`, an extension module,
#: a package folder)
_STARTUP_MODULES = frozenset({"sitecustomize", "usercustomize"})


_GIT_DIR = "a git directory (its config and hooks run programs)"


def _canonical(name: str) -> str:
    """A name as case-insensitive file systems compare it: `.GIT`, `.git.` and `.git ` (NTFS
    drops trailing dots and spaces), `.g\u200cit` (HFS+ ignores some code points) and `GIT~1`
    (NTFS's short name) are all `.git`."""
    name = "".join(c for c in name if unicodedata.category(c) != "Cf")
    name = unicodedata.normalize("NFC", name).casefold().rstrip(". ")
    return ".git" if name == "git~1" else name


def protected_reason(path: Path | str, config_dir: Path | None = None) -> str | None:
    """Why writing `path` (absolute or relative) needs the person, or None."""
    p = Path(os.path.normpath(path))
    parts = [_canonical(part) for part in p.parts]
    for part in parts[:-1]:
        if part in _DIRS:
            return _DIRS[part]
        if part.endswith(".git"):
            return _GIT_DIR
    name = parts[-1] if parts else ""
    if name in _DIRS:
        return _DIRS[name]
    if name in _FILES:
        return _FILES[name]
    if name.endswith(".git"):
        return _GIT_DIR
    if name.endswith(".pth") and ("site-packages" in parts or "dist-packages" in parts):
        return "a .pth file runs code whenever Python starts"
    if name.split(".", 1)[0] in _STARTUP_MODULES:
        return "Python runs it at start-up"
    if p.is_absolute() and any(is_git_dir(parent) for parent in p.parents):
        return _GIT_DIR  # a bare repository: HEAD, objects/ and refs/ beside its config
    if config_dir is not None and p.is_absolute():
        try:
            p.relative_to(config_dir)
        except ValueError:
            pass
        else:
            return "agent-tui's user settings"
    return None


def protected(paths: list[Path | None], config_dir: Path | None = None) -> str | None:
    for p in paths:
        if p is not None:
            why = protected_reason(p, config_dir)
            if why:
                return f"{p}: {why}"
    # checked by inode too: a hard link to a protected or outside file is that file
    return next((why for why in map(hard_linked, paths) if why), None)


#: the names, for the OS sandbox (it keeps each read-only inside the working directory)
PROTECTED_DIRS: frozenset[str] = frozenset(_DIRS)
PROTECTED_FILES: frozenset[str] = frozenset(_FILES)
#: names that run code only where they sit in the home directory (shell start-up files are read
#: from ~, git reads ~/.gitconfig, ssh ~/.ssh) or in the app's cache (the stylesheet pickle): the
#: sandbox keeps one from being made only where the writable directory is the home directory
HOME_ONLY: frozenset[str] = frozenset(
    {name for name, why in _FILES.items() if "start-up file" in why}
    | {".gitconfig", ".ssh", "parsed-css.pickle"}
)
