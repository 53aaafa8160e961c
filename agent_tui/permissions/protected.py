"""Protected paths: files that, once written, make a later harmless-looking command run code.

A model that can write `.git/config` (core.fsmonitor, core.pager) or `.git/hooks/*` turns the
default-allowed `git status` into code execution; the same goes for the agent's own settings,
shell start-up files and tool configs that name commands: other agents' and editors' project
configuration (MCP servers, hooks, language servers), files that choose which program a toolchain
runs (`.tool-versions`, `.python-version`, `global.json`, `gradle-wrapper.properties`, …) and
dotenv files tools load into the programs they start (`.env`, `.env.local`, …; not the
`.env.example` templates no loader reads). Writes to these always ask (every mode but yolo),
whether they come from Write/Edit or from a shell redirection, `tee`, `cp`, `sed -i`; the commit
gate holds them in a sandboxed command's change set (`sandbox/gate_files.py`).
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from agent_tui.permissions.git_config import is_git_dir
from agent_tui.permissions.links import hard_linked

_TOOLCHAIN = "chooses which program a toolchain runs"
_MISE = "mise's configuration (tools, `[env]` sources and hooks it runs on entering the folder)"
_DOTENV = (
    "variables tools load into what they start (docker compose, pipenv, VS Code, bun, vite, "
    "flask): LD_PRELOAD or NODE_OPTIONS run code"
)
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
    ".amazonq": "Amazon Q's configuration (.amazonq/: MCP servers and agent hooks start programs)",
    ".kiro": "Kiro's configuration (.kiro/: its MCP servers and hooks start programs)",
    ".continue": "Continue's configuration (.continue/: its MCP servers start programs)",
    ".windsurf": "Windsurf's configuration (.windsurf/: Cascade hooks run commands)",
    ".kilocode": "Kilo Code's configuration (.kilocode/: its MCP servers start programs)",
    ".kilo": "Kilo's configuration (.kilo/: its MCP servers start programs)",
    ".qwen": "Qwen Code's configuration (.qwen/: its MCP servers start programs)",
    ".amp": "Amp's configuration (.amp/: its MCP servers start programs)",
    ".warp": "Warp's configuration (.warp/: its MCP servers start programs)",
    ".opencode": "opencode's configuration (.opencode/: its plugins are code it runs)",
    ".mise": "mise's configuration (.mise/: tools, hooks and env it runs on entering the folder)",
    ".mvn": "Maven's project configuration (.mvn/: the wrapper's distribution, its extensions)",
    ".junie": "Junie's configuration (.junie/: its MCP servers start programs)",
    ".factory": "Factory's configuration (.factory/: its MCP servers and hooks start programs)",
    ".augment": "Augment's configuration (.augment/: its MCP servers and hooks start programs)",
    ".trae": "Trae's configuration (.trae/: its MCP servers start programs)",
    ".idea": "JetBrains IDE settings (.idea/: run configurations, external tools, file watchers)",
    ".trunk": "trunk's configuration (.trunk/: linters and actions it runs from git hooks)",
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
    ".valgrindrc": "valgrind's options, read where it runs (its log files can be anywhere)",
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
    # which program a toolchain runs: a version manager or wrapper reads these in the folder
    ".tool-versions": _TOOLCHAIN + " (asdf, mise: a `path:` version runs a program of its own)",
    ".python-version": _TOOLCHAIN + " (pyenv, uv: a name or path picks the interpreter)",
    ".pdm-python": _TOOLCHAIN + " (pdm: the interpreter's path)",
    ".ruby-version": _TOOLCHAIN + " (rbenv, chruby: a name or path picks the interpreter)",
    ".node-version": _TOOLCHAIN + " (fnm, nodenv: picks the node that runs)",
    ".nvmrc": _TOOLCHAIN + " (nvm, fnm: picks the node that runs)",
    ".java-version": _TOOLCHAIN + " (jenv: picks the JDK that runs)",
    ".go-version": _TOOLCHAIN + " (goenv: picks the go that runs)",
    ".terraform-version": _TOOLCHAIN + " (tfenv: picks the terraform that runs)",
    ".sdkmanrc": _TOOLCHAIN + " (sdkman: switches the JDK and tools on entering the folder)",
    "global.json": _TOOLCHAIN + " (.NET: `sdk.paths` runs another dotnet SDK)",
    "bunfig.toml": "bun's configuration (`preload` scripts run before every bun run and test)",
    ".bunfig.toml": "bun's configuration (`preload` scripts run before every bun run and test)",
    "mise.toml": _MISE,
    ".mise.toml": _MISE,
    "mise.local.toml": _MISE,
    ".mise.local.toml": _MISE,
    ".rtx.toml": _MISE,
    ".bazelrc": "Bazel's options (a `--run_under`, `--workspace_status_command` runs a program)",
    ".bazelversion": _TOOLCHAIN + " (bazelisk: a fork/version downloads and runs another bazel)",
    ".bazeliskrc": _TOOLCHAIN + " (bazelisk: where the bazel it runs comes from)",
    "gradle-wrapper.properties": _TOOLCHAIN + " (gradlew: `distributionUrl` is the gradle it runs)",
    # variables that tools load into the programs they start (LD_PRELOAD, NODE_OPTIONS, …)
    ".env": _DOTENV,
    ".envrc.local": "direnv runs it from .envrc (source_env_if_exists)",
    ".flaskenv": _DOTENV,
    # other agents' and editors' project files that start programs
    "opencode.json": "opencode's configuration (its MCP servers and plugins start programs)",
    "opencode.jsonc": "opencode's configuration (its MCP servers and plugins start programs)",
    "crush.json": "Crush's configuration (its MCP servers and language servers start programs)",
    ".crush.json": "Crush's configuration (its MCP servers and language servers start programs)",
    "kilo.json": "Kilo's configuration (its MCP servers start programs)",
    "kilo.jsonc": "Kilo's configuration (its MCP servers start programs)",
    ".continuerc.json": "Continue's configuration (its MCP servers start programs)",
    ".pdbrc": "pdb runs its commands when it starts in the folder",
    ".gdbinit": "gdb runs its commands when it starts in the folder",
    ".lldbinit": "lldb runs its commands when it starts in the folder",
    ".irbrc": "irb runs it when it starts in the folder",
    ".pryrc": "pry runs it when it starts in the folder",
    ".Rprofile": "R runs it when it starts in the folder",
    ".octaverc": "Octave runs it when it starts in the folder",
    ".pylintrc": "pylint's settings (an `init-hook` is Python it runs)",
    "pylintrc": "pylint's settings (an `init-hook` is Python it runs)",
    ".pnpmfile.cjs": "pnpm's hooks (.pnpmfile.cjs: code it runs on every install)",
    ".pnpmfile.mjs": "pnpm's hooks (.pnpmfile.mjs: code it runs on every install)",
    "gradle.properties": "gradle's settings (`org.gradle.jvmargs`: a -javaagent ./gradlew loads)",
    ".jvmopts": "sbt's JVM options (a -javaagent runs code when sbt starts)",
    ".rubocop.yml": "rubocop's settings (`require:` loads Ruby code it runs)",
    ".lfsconfig": "git-lfs's settings (a custom transfer agent is a program git runs)",
    "GNUmakefile": "make reads it before the Makefile: `make` runs it in the Makefile's place",
    ".sbtopts": "sbt's options (a -javaagent runs code when sbt starts)",
    # code a package manager installed, run by name later
    "gradle-wrapper.jar": "the gradle wrapper itself: ./gradlew runs it",
    ".pnp.cjs": "yarn's Plug'n'Play loader: node loads it before the project's code",
    ".pnp.js": "yarn's Plug'n'Play loader: node loads it before the project's code",
    ".pnp.loader.mjs": "yarn's Plug'n'Play loader: node loads it before the project's code",
}
#: runs of folder names that hold code-running configuration inside an ordinary folder
_PATHS: dict[tuple[str, ...], str] = {
    (".github", "hooks"): "Copilot's hooks (.github/hooks/: commands its CLI and agent run)",
    (".bundle", "config"): "bundler's settings (BUNDLE_GEMFILE: the Ruby `bundle exec` runs)",
    (".hg", "hgrc"): "Mercurial's repository config (hooks and extensions run on `hg status`)",
    (".hg", "hgrc-not-shared"): "Mercurial's repository config (hooks and extensions run)",
    (".hg", "sharedpath"): "Mercurial's shared store (its config, hooks and extensions, run)",
    (".github", "mcp.json"): "Copilot CLI's MCP servers: it starts programs",
    (".clinerules", "hooks"): "Cline's hooks (.clinerules/hooks/: scripts it runs)",
    (".config", "mise"): _MISE,
    (".config", "mise.toml"): _MISE,
    ("mise", "config.toml"): _MISE,
}
#: dotenv files a loader never reads (templates for people): free
_DOTENV_TEMPLATES = frozenset({"example", "sample", "template"})
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


#: the names as `_canonical` gives them (what a path's parts are compared with: `.Rprofile`)
_DIRS_CANON = {_canonical(name): why for name, why in _DIRS.items()}
_FILES_CANON = {_canonical(name): why for name, why in _FILES.items()}


def _holds_run(parts: list[str], run: tuple[str, ...]) -> bool:
    """`parts` has `run` as consecutive names (`.github/hooks/x.json` holds `.github, hooks`)."""
    n = len(run)
    return any(tuple(parts[i : i + n]) == run for i in range(len(parts) - n + 1))


def _dotenv(name: str) -> bool:
    """`.env.local`, `.env.production`, `.env.development.local`, … (not `.env.example`)."""
    if not name.startswith(".env."):
        return False
    return name.removeprefix(".env.").split(".")[-1] not in _DOTENV_TEMPLATES


def _mise_env(name: str) -> bool:
    """mise's per-environment files: `mise.dev.toml`, `.mise.ci.local.toml`."""
    return name.startswith(("mise.", ".mise.")) and name.endswith(".toml")


#: runs of folder names whose files are code a tool runs whatever the folder held before (what
#: else a package manager installs is judged by the commit gate, which knows what was there:
#: `sandbox/gate_envs.py`)
_PACKAGE_RUNS = {
    ("vendor", "bin"): "composer's installed programs (vendor/bin/): you run them by name",
    (".yarn", "releases"): "yarn's own release (.yarn/releases/): yarn runs it (yarnPath)",
    (".yarn", "plugins"): "yarn's plugins (.yarn/plugins/): yarn loads them",
}
#: folders Python processes `.pth` files in
_SITE_FOLDERS = frozenset({"site-packages", "dist-packages", "__pypackages__"})


#: tools run as `python -m NAME`, which imports NAME from the folder it runs in first: a module
#: or package of that name in the project runs in the tool's place
_RUN_AS_MODULES = frozenset({"pip", "venv", "ensurepip", "virtualenv", "pipx"})
_AS_MODULE = "`python -m` runs it in place of the tool of that name (pip, venv) in this folder"


def _runs_as_module(parts: list[str]) -> bool:
    """`pip.py`, `pip/__main__.py`, `venv/…` at the top of the project (a relative path: where
    `python -m` is run from; a project's own `src/pip/` is not in its way)."""
    if not parts or parts[0] == "/":
        return False
    top = parts[0] if len(parts) > 1 else parts[0].split(".", 1)[0]
    return top in _RUN_AS_MODULES and (len(parts) > 1 or parts[0].endswith((".py", ".pyc")))


def canonical_parts(path: Path | str) -> list[str]:
    """`path`'s names as the file system compares them (`_canonical`), `./` and `//` gone."""
    return [_canonical(part) for part in Path(os.path.normpath(path)).parts]


def protected_reason(path: Path | str, config_dir: Path | None = None) -> str | None:
    """Why writing `path` (absolute or relative) needs the person, or None."""
    p = Path(os.path.normpath(path))
    parts = canonical_parts(p)
    return _by_folders(parts) or _by_name(parts) or _by_place(p, config_dir)


def _by_folders(parts: list[str]) -> str | None:
    """A protected folder on the way, or a protected run of names (`.github/workflows`)."""
    for part in parts[:-1]:
        if part in _DIRS_CANON:
            return _DIRS_CANON[part]
        if part.endswith(".git"):
            return _GIT_DIR
    for run, why in _PATHS.items():
        if _holds_run(parts, run):
            return why
    for run, why in _PACKAGE_RUNS.items():
        if _holds_run(parts[:-1], run):
            return why
    return None


def _by_name(parts: list[str]) -> str | None:
    """The file's own name: a protected folder or file, a git directory, an environment file,
    a .pth in a site folder, a module Python runs at start-up, or one a tool runs as a module."""
    name = parts[-1] if parts else ""
    if name in _DIRS_CANON:
        return _DIRS_CANON[name]
    if name in _FILES_CANON:
        return _FILES_CANON[name]
    if name.endswith(".git"):
        return _GIT_DIR
    if _dotenv(name) or _mise_env(name):
        return _DOTENV if _dotenv(name) else _MISE
    if name.endswith(".pth") and _SITE_FOLDERS.intersection(parts):
        return "a .pth file runs code whenever Python starts"
    if name.split(".", 1)[0] in _STARTUP_MODULES:
        return "Python runs it at start-up"
    if _runs_as_module(parts):
        return _AS_MODULE
    return None


def _by_place(p: Path, config_dir: Path | None) -> str | None:
    """Where an absolute path is: inside a bare repository, or the app's user settings."""
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
#: the last names of the protected runs (`hooks` of `.github/hooks`), and the prefix of mise's
#: per-environment files: what a fast path must not take for an ordinary name
PROTECTED_RUN_NAMES: frozenset[str] = frozenset(run[-1] for run in _PATHS) | {"mise."}
#: names that run code only where they sit in the home directory (shell start-up files are read
#: from ~, git reads ~/.gitconfig, ssh ~/.ssh) or in the app's cache (the stylesheet pickle): the
#: sandbox keeps one from being made only where the writable directory is the home directory
HOME_ONLY: frozenset[str] = frozenset(
    {name for name, why in _FILES.items() if "start-up file" in why}
    | {".gitconfig", ".ssh", "parsed-css.pickle"}
)
