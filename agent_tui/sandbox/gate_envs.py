"""The commit gate in the project's environments: which of a command's changes to a virtual or
conda environment, a `node_modules/`, yarn's or bundler's installed packages a later command of
the person's would run without the person naming it, or would put before the person's programs.

Held, in an environment that was there before the command (a folder with `pyvenv.cfg` or
`conda-meta/`; a `node_modules/`, `.yarn/cache/`, `.yarn/unplugged/`, `vendor/bundle/` or
`__pypackages__/` that was there), as one unit per environment:
- a Python environment's start-up path and programs: `pyvenv.cfg`; anything in its `bin/`
  (`Scripts/`), new or changed (activated, a new name comes before your commands); conda's
  activation scripts (`etc/conda/activate.d/`) and whatever else of `etc/` and `share/jupyter/`
  its tools read (Jupyter's config, kernel specs); a file in its top folder (`pip.conf`); every
  `.pth` file; `sitecustomize` and
  `usercustomize`; every top-level module of its site-packages a `.pth` file's `import` line could
  import (each identifier and string literal of such lines, in the `.pth` files as they were and
  as the command leaves them: `__import__('_distutils_hack')` names `_distutils_hack`); pip's own
  package (`pip --version` runs it);
- `node_modules/.bin/` entries, new or changed, and the files they link to (npx and npm scripts
  run them by name); bundler's programs (`vendor/bundle/**/bin/`, on `bundle exec`'s PATH); an
  archive of yarn's cache or a file of its unplugged packages the command replaced (an install
  adds them, never rewrites one).
Everything else an install writes there lands — a new or upgraded package's modules,
`node_modules/<package>/**`, build tools' caches (`node_modules/.cache/`, `.vite/`, …): code like
the project's own, run when the project's code imports it. A new environment lands whole: its
`.pth` files and start-up modules are held by name (`permissions/protected.py`), a new
`pyvenv.cfg` whose `home` is not a Python outside the project by `gate_files.py`.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from pathlib import Path

from agent_tui.sandbox.changes import Change

_PROGRAMS = frozenset({"bin", "Scripts"})
_SITES = frozenset({"site-packages", "dist-packages"})
#: folders build tools keep their caches in, inside node_modules (webpack's loaders, babel,
#: eslint and terser through find-cache-dir; vite's and vitest's dependency caches; astro's)
_NODE_CACHES = frozenset({".cache", ".vite", ".vitest", ".astro"})
#: package folders that are an environment of their own: (the run of names, what's held there)
_PACKAGE_RUNS = (
    ((".yarn", "cache"), "replaced"),
    ((".yarn", "unplugged"), "replaced"),
    (("vendor", "bundle"), "bin"),
    (("__pypackages__",), "bin"),
)
_LIBS = frozenset({"lib", "lib64", "Lib"})
_REPLACED = "it puts something else in the place of the environment {place}/"
_PIP = "pip's own package: `pip` runs it (`pip --version` as well)"
_ENV_CONFIG = "the environment's own {name} (pip.conf: the index its pip installs from)"
_TOOL_CONFIG = (
    "configuration its tools read (etc/: Jupyter's config is Python it runs; share/jupyter/: "
    "a kernel's argv is the program Jupyter starts)"
)
_PTH_MODULE = "a module a .pth file of the environment imports at every start of its python"
_PROGRAM = "a program of the environment ({where}): activated, it comes before your commands"
_NODE_BIN = "a program of node_modules/.bin/: npx and npm scripts run it by name"
_BIN_TARGET = "node_modules/.bin/{name} runs it (npx and npm scripts run it by name)"
_PACKAGE = {
    "replaced": "it replaces installed code of {place}/ (an install adds packages, never "
    "rewrites one)",
    "bin": "a program of {place}/ (its bin/: run by name on `bundle exec`'s and pdm's PATH)",
}
#: a .pth line Python executes (site.addpackage's own test)
_EXEC_LINE = ("import ", "import\t")
_WORD = re.compile(r"[^\W\d]\w*")
_READ_LIMIT = 1 << 20


def pth_names(text: str) -> set[str]:
    """Every top-level module name an executed line of a `.pth` file could import: its
    identifiers and string literals (literals joined with `+` or side by side also as one),
    each read for the names in it (`'_distutils_hack'`, `'a.b'` → `a`, `b`)."""
    names: set[str] = set()
    for line in text.splitlines():
        if line.startswith(_EXEC_LINE):
            names |= set(_WORD.findall(line))
            for value in _literals(line):
                names |= set(_WORD.findall(value))
    return names


def _literals(line: str) -> list[str]:
    """The values of `line`'s string literals, and of each run of them joined with `+`."""
    values: list[str] = []
    run: list[str] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line).readline))
    except (tokenize.TokenError, SyntaxError):
        return values
    for token in tokens:
        if token.type == tokenize.STRING:
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):
                continue
            text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
            values.append(text)
            run.append(text)
        elif not (token.type == tokenize.OP and token.string == "+"):
            if len(run) > 1:
                values.append("".join(run))
            run = []
    return values


def _on_the_way_to_site(inner: list[str]) -> bool:
    """`lib`, `lib/python3.X`, `lib/python3.X/site-packages` (`Lib/site-packages`)."""
    if inner[0] not in _LIBS or len(inner) > 3:
        return False
    if len(inner) == 3:
        return inner[1].startswith("python") and inner[2] in _SITES
    return len(inner) == 1 or inner[1].startswith("python") or inner[1] in _SITES


#: where a shim script in `.bin/` (pnpm's, cmd-shim's) finds the program it runs
_SHIM_TARGET = re.compile(r"""(?:\$basedir|%~dp0|%dp0%|\$PSScriptRoot)[/\\]([^"'\s$%]+)""")


def _bin_entry_targets(entry: Path) -> list[str]:
    """What a `.bin/` entry runs, relative to `.bin/`: a link's target, the paths a shim
    script names by its own folder."""
    try:
        if entry.is_symlink():
            return [os.readlink(entry)]
        with open(entry, "rb") as f:
            text = f.read(_READ_LIMIT).decode("utf-8", "replace")
    except OSError:
        return []
    return [m.replace("\\", "/") for m in _SHIM_TARGET.findall(text)]


class Environments:
    """What a change set does to the environments the project held before the command."""

    def __init__(self, root: Path, by_rel: dict[str, Change], *, home_root: bool) -> None:
        self.root, self.by_rel, self.home_root = root, by_rel, home_root
        self._existed: dict[str, bool] = {}
        self._folders: dict[str, bool] = {}
        self._names: dict[str, frozenset[str]] = {}
        self._targets: dict[str, dict[str, str]] = {}

    def held(self, change: Change) -> tuple[str, str] | None:
        """(the environment, why) when `change` is one of its programs or its start-up code."""
        if change.kind == "delete":
            return None  # deleting code runs nothing
        parts = change.rel.split("/")
        if "node_modules" in parts[:-1] or parts[-1] == "node_modules":
            return self._node(change, parts)
        for run, rule in _PACKAGE_RUNS:
            found = self._package(change, parts, run, rule)
            if found is not None:
                place, why = found
                return (place, why) if why else None
        if self.home_root and parts[0] == ".local" and len(parts) > 2:
            return self._user_site(parts)
        return self._python(change, parts)

    # --- Python ---

    def _python(self, change: Change, parts: list[str]) -> tuple[str, str] | None:
        if change.kind != "dir" and self._python_env(change.rel):
            return change.rel, _REPLACED.format(place=change.rel)  # a link in its place
        for n in range(len(parts) - 1, -1, -1):
            env = "/".join(parts[:n])
            if self._python_env(env):
                why = self._python_inner(env, parts[n:], change)
                return (env or ".", why) if why else None
        return None

    def _python_env(self, env: str) -> bool:
        if env not in self._existed:
            self._existed[env] = any(
                os.path.lexists(self.root / env / marker) for marker in ("pyvenv.cfg", "conda-meta")
            )
        return self._existed[env]

    def _python_inner(self, env: str, inner: list[str], change: Change) -> str | None:
        name = inner[-1]
        if change.kind != "dir" and _on_the_way_to_site(inner):
            # `lib`, `lib/python3.X` or its site-packages made a link: python would find its
            # packages, and process .pth files, somewhere else
            return "it changes where the environment's python finds its packages"
        if inner == ["pyvenv.cfg"]:
            return "the environment's configuration: it decides which Python runs"
        if inner[0] in _PROGRAMS:
            return _PROGRAM.format(where=f"{env or '.'}/{inner[0]}/")
        if inner[:2] == ["etc", "conda"] and inner[2:3] in (["activate.d"], ["deactivate.d"]):
            return "conda runs it on activating the environment"
        if len(inner) == 1 and change.kind != "dir":
            return _ENV_CONFIG.format(name=name)  # pip.conf: where its pip installs from
        if inner[0] == "etc" or inner[:2] == ["share", "jupyter"]:
            return _TOOL_CONFIG
        if name.endswith(".pth"):
            return "a .pth file runs code whenever the environment's python starts"
        if name.split(".", 1)[0] in ("sitecustomize", "usercustomize"):
            return "Python runs it at start-up"
        at = next((i for i, part in enumerate(inner[:-1]) if part in _SITES), None)
        if at is None:
            return None
        module = inner[at + 1].split(".", 1)[0]
        if module == "pip":
            return _PIP
        return _PTH_MODULE if module in self._pth_names(env) else None

    def _pth_names(self, env: str) -> frozenset[str]:
        """What the environment's `.pth` files import, before and after the change set."""
        if env not in self._names:
            names: set[str] = set()
            for path in self._pth_files(env):
                try:
                    with open(path, "rb") as f:
                        names |= pth_names(f.read(_READ_LIMIT).decode("utf-8", "replace"))
                except OSError:
                    continue
            self._names[env] = frozenset(names)
        return self._names[env]

    def _pth_files(self, env: str) -> list[Path]:
        base = self.root / env
        found: list[Path] = []
        for lib in ("lib", "lib64", "Lib"):
            for site in (*base.glob(f"{lib}/python*/*-packages"), *base.glob(f"{lib}/*-packages")):
                if site.name in _SITES and not site.is_symlink():
                    found += [p for p in site.glob("*.pth") if not p.is_symlink()]
        prefix = f"{env}/" if env else ""
        for rel, change in self.by_rel.items():
            if rel.startswith(prefix) and rel.endswith(".pth") and change.kind == "file":
                found += [change.upper] if change.upper is not None else []
        return found

    def _user_site(self, parts: list[str]) -> tuple[str, str] | None:
        """The project is the home folder: `~/.local/bin` is on PATH, the user site-packages
        comes before the system's (each of its modules stands in for one your tools import)."""
        if parts[1] == "bin":
            return ".local", _PROGRAM.format(where="~/.local/bin/")
        if parts[1] == "lib" and any(part in _SITES for part in parts[3:-1]):
            return ".local", "your user site-packages: Python puts it before the system's"
        return None

    # --- node_modules, yarn, bundler ---

    def _node(self, change: Change, parts: list[str]) -> tuple[str, str] | None:
        top = parts.index("node_modules")
        env = "/".join(parts[: top + 1])
        if not self._folder_existed(env):
            return None  # a first install: it lands whole
        inner = parts[top + 1 :]
        if not inner:
            return (env, _REPLACED.format(place=env)) if change.kind != "dir" else None
        if inner[0] in _NODE_CACHES:
            return None
        for i in range(top, len(parts) - 1):
            if parts[i] == "node_modules" and parts[i + 1] == ".bin":
                return env, _NODE_BIN
        name = self._bin_targets(env).get(change.rel)
        return (env, _BIN_TARGET.format(name=name)) if name else None

    def _bin_targets(self, env: str) -> dict[str, str]:
        """The files `env/.bin/*` links to (project-relative), as they were and as they'll be."""
        if env not in self._targets:
            entries: list[tuple[str, Path]] = []
            try:
                with os.scandir(self.root / env / ".bin") as found:
                    entries += [(e.name, Path(e.path)) for e in found]
            except OSError:
                pass
            prefix = f"{env}/.bin/"
            for rel, change in self.by_rel.items():
                if rel.startswith(prefix) and change.upper is not None:
                    entries.append((rel.removeprefix(prefix), change.upper))
            targets: dict[str, str] = {}
            for name, entry in entries:
                for raw in _bin_entry_targets(entry):
                    target = Path(os.path.normpath(self.root / env / ".bin" / raw))
                    if target.is_relative_to(self.root):
                        targets[target.relative_to(self.root).as_posix()] = name
            self._targets[env] = targets
        return self._targets[env]

    def _package(
        self, change: Change, parts: list[str], run: tuple[str, ...], rule: str
    ) -> tuple[str, str | None] | None:
        """(the folder, why it's held or None) when `change` is in a `run` folder, else None."""
        n = len(run)
        at = next((i for i in range(len(parts) - n) if tuple(parts[i : i + n]) == run), None)
        if at is None:
            return None
        place = "/".join(parts[: at + n])
        held = self._folder_existed(place) and (
            change.below != "none" if rule == "replaced" else "bin" in parts[at + n : -1]
        )
        return place, _PACKAGE[rule].format(place=place) if held else None

    def _folder_existed(self, folder: str) -> bool:
        if folder not in self._folders:
            path = self.root / folder
            self._folders[folder] = path.is_dir() and not path.is_symlink()
        return self._folders[folder]
