"""One plugin folder, read as Claude Code lays it out:

    my-plugin/
      .claude-plugin/plugin.json   {"name": "my-plugin", "version": "1.0.0", "description": …,
                                    "commands": "./more/", "agents": […], "skills": …,
                                    "hooks": "./hooks.json" or {…}, "mcpServers": "./x.json" or {…}}
      commands/*.md                slash commands: /my-plugin:NAME
      agents/*.md                  sub-agent types: my-plugin:NAME
      skills/NAME/SKILL.md         skills: my-plugin:NAME (files beside SKILL.md go with it)
      hooks/hooks.json             {"hooks": {"PreToolUse": [{"matcher": …, "hooks": […]}]}}
      .mcp.json                    {"mcpServers": {…}}: tools mcp__plugin_my-plugin_NAME__TOOL

The manifest's paths add to the default folders (they never replace them) and must stay inside
the plugin. `${CLAUDE_PLUGIN_ROOT}` in hooks and MCP servers is the plugin's folder (hooks also
get it in their environment). Nothing here runs anything: a plugin is read, described for the
trust dialog (`describe`) and fingerprinted (`digest`: every file in the folder, so a changed
script asks again); `plugins.session` applies it once trusted.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.hooks.config import HookCommand, HookSettings, read_table
from agent_tui.mcp_servers.config import ServerConfig, parse_servers

MANIFEST = Path(".claude-plugin") / "plugin.json"
ROOT_VAR = "${CLAUDE_PLUGIN_ROOT}"
#: a plugin's name: Claude Code's kebab-case (it prefixes commands, skills, agents and servers)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,47}")
#: what `digest` reads at most: a plugin is a few files, never a repository's worth
MAX_FILES = 2000
MAX_BYTES = 20 * 2**20
#: manifest keys read, and those Claude Code has that agent-tui leaves out (said in the dialog)
METADATA = ("name", "version", "description", "author", "homepage", "repository", "license")
COMPONENTS = ("commands", "agents", "skills", "hooks", "mcpServers")
UNUSED = {"outputStyles": "output styles", "lspServers": "LSP servers"}


class PluginError(ValueError):
    """A folder that can't be used as a plugin, in one line."""


@dataclass(frozen=True)
class Plugin:
    """A plugin folder as read: its manifest, what it holds, and its digest."""

    root: Path
    name: str
    version: str
    description: str
    #: (file, command name without the slash): `my-plugin:deploy`
    commands: tuple[tuple[Path, str], ...]
    agents: tuple[Path, ...]
    #: each skill's SKILL.md
    skills: tuple[Path, ...]
    hooks: tuple[HookCommand, ...]
    servers: tuple[ServerConfig, ...]
    #: sha256 over every file's path and content
    digest: str
    warnings: tuple[str, ...] = ()
    #: what it brings that agent-tui doesn't use ("LSP servers")
    unused: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """Its entry in the trust store (`permissions.trust`)."""
        return f"plugin:{self.root}"

    def describe(self) -> tuple[str, ...]:
        """What the trust dialog lists for it: every command, skill, type, hook and server."""
        head = f"plugin {self.name}" + (f" {self.version}" if self.version else "")
        lines = [f"{head} ({self.root})" + (f": {self.description}" if self.description else "")]
        say = f"plugin {self.name}:"
        lines += [f"{say} slash command /{name}" for _path, name in self.commands]
        lines += [f"{say} skill {self.name}:{p.parent.name}" for p in self.skills]
        lines += [f"{say} sub-agent type from {p.relative_to(self.root)}" for p in self.agents]
        lines += [f"{say} {h.describe()} (runs as you)" for h in self.hooks]
        lines += [f"{say} MCP server {s.name} runs: {s.describe()}" for s in self.servers]
        lines += [f"{say} {what} (not used by agent-tui)" for what in self.unused]
        return tuple(lines)


def read_plugin(folder: Path) -> Plugin:
    """The plugin in `folder`; raises PluginError saying why it isn't one."""
    root = folder.expanduser().resolve()
    manifest = _manifest(root)
    name = manifest.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise PluginError(
            f'{root / MANIFEST}: "name" must be letters, digits, - or _ (it is {name!r})'
        )
    warnings: list[str] = []
    extra = {key: _paths(root, manifest.get(key), key, warnings) for key in COMPONENTS[:3]}
    commands = _commands(root, name, [root / "commands", *extra["commands"]])
    agents = _markdown(root / "agents", extra["agents"])
    skills = _skills([root / "skills", *extra["skills"]])
    hooks = _hooks(root, manifest.get("hooks"), warnings)
    servers = _servers(root, name, manifest.get("mcpServers"), warnings)
    unused = tuple(what for key, what in UNUSED.items() if key in manifest)
    text = manifest.get("description")
    version = manifest.get("version")
    return Plugin(
        root,
        name,
        version if isinstance(version, str) else "",
        text if isinstance(text, str) else "",
        commands,
        agents,
        skills,
        hooks,
        servers,
        digest(root),
        tuple(warnings),
        unused,
    )


def _manifest(root: Path) -> dict[str, Any]:
    path = root / MANIFEST
    if not root.is_dir():
        raise PluginError(f"{root} is not a folder")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PluginError(f"{root} is not a plugin: it has no {MANIFEST}") from None
    except (OSError, ValueError) as exc:
        raise PluginError(f"{path} can't be read: {exc}") from None
    if not isinstance(data, dict):
        raise PluginError(f"{path} is not a JSON object")
    return data


def _inside(root: Path, value: str, key: str, warnings: list[str]) -> Path | None:
    path = (root / value).resolve()
    if not path.is_relative_to(root):
        warnings.append(f"{root / MANIFEST}: {key} {value!r} is outside the plugin; left out")
        return None
    return path


def _paths(root: Path, value: object, key: str, warnings: list[str]) -> list[Path]:
    """A manifest's `commands` / `agents` / `skills`: one path or a list, inside the plugin."""
    values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    found = []
    for v in values:
        if isinstance(v, str) and (path := _inside(root, v, key, warnings)) is not None:
            found.append(path)
    return found


def _commands(root: Path, plugin: str, places: list[Path]) -> tuple[tuple[Path, str], ...]:
    found: dict[str, Path] = {}
    for place in places:
        if place.is_file() and place.suffix == ".md":
            found.setdefault(f"{plugin}:{place.stem}", place)
        for path in sorted(place.rglob("*.md")) if place.is_dir() else ():
            parts = path.relative_to(place).with_suffix("").parts
            found.setdefault(":".join((plugin, *parts)), path)
    return tuple((path, name) for name, path in found.items())


def _markdown(folder: Path, more: list[Path]) -> tuple[Path, ...]:
    files = sorted(folder.glob("*.md")) if folder.is_dir() else []
    for place in more:
        if place.is_file():
            files.append(place)
        files += sorted(place.glob("*.md")) if place.is_dir() else []
    return tuple(dict.fromkeys(files))


def _skills(places: list[Path]) -> tuple[Path, ...]:
    files: list[Path] = []
    for place in places:
        if (place / "SKILL.md").is_file():  # the manifest named one skill's folder
            files.append(place / "SKILL.md")
        files += sorted(place.glob("*/SKILL.md")) if place.is_dir() else []
    return tuple(dict.fromkeys(files))


def _with_root(value: Any, root: Path) -> Any:
    """`${CLAUDE_PLUGIN_ROOT}` replaced in every string of a JSON value."""
    if isinstance(value, str):
        return value.replace(ROOT_VAR, str(root))
    if isinstance(value, list):
        return [_with_root(v, root) for v in value]
    if isinstance(value, dict):
        return {k: _with_root(v, root) for k, v in value.items()}
    return value


def _json_part(root: Path, value: object, default: Path, key: str, warnings: list[str]) -> Any:
    """An inline object, or the JSON file a path (or the default file) names; None: none."""
    if isinstance(value, dict):
        return value
    path = _inside(root, value, key, warnings) if isinstance(value, str) else default
    if path is None or not path.is_file():
        if isinstance(value, str) and path is not None:
            warnings.append(f"{root / MANIFEST}: {key} {value!r}: no such file")
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        warnings.append(f"{path}: not read ({exc})")
        return None


def _hooks(root: Path, value: object, warnings: list[str]) -> tuple[HookCommand, ...]:
    default = root / "hooks" / "hooks.json"
    data = _json_part(root, value, default, "hooks", warnings)
    if data is None:
        return ()
    table = data.get("hooks", data) if isinstance(data, dict) else data
    where = default if not isinstance(value, str) else root / value
    into = HookSettings()
    read_table(where, "plugin", _with_root(table, root), into)
    warnings += into.warnings
    env = (("CLAUDE_PLUGIN_ROOT", str(root)),)
    return tuple(dataclasses.replace(h, env=env) for h in into.commands)


def _servers(
    root: Path, plugin: str, value: object, warnings: list[str]
) -> tuple[ServerConfig, ...]:
    data = _json_part(root, value, root / ".mcp.json", "mcpServers", warnings)
    if data is None:
        return ()
    if isinstance(data, dict) and "mcpServers" not in data:
        data = {"mcpServers": data}  # inline in plugin.json: the table itself
    servers, problems = parse_servers(_with_root(data, root), "plugin", str(root))
    warnings += problems
    # Claude Code's naming: a plugin's server is `plugin_<plugin>_<server>`
    return tuple(dataclasses.replace(s, name=f"plugin_{plugin}_{s.name}"[:64]) for s in servers)


def digest(root: Path) -> str:
    """sha256 over the plugin's files (paths, link targets and contents, a linked file's
    wherever it is; `.git` left out): any change to what it runs or says asks for trust again.
    Raises PluginError past `MAX_FILES` or `MAX_BYTES`."""
    import hashlib

    h = hashlib.sha256()
    count = size = 0
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] == ".git" or (path.is_dir() and not path.is_symlink()):
            continue
        count += 1
        if count > MAX_FILES:
            raise PluginError(f"{root} has more than {MAX_FILES} files: too many for a plugin")
        h.update(rel.as_posix().encode() + b"\0")
        if path.is_symlink():  # its target counts too, wherever it is: a hook may run it
            h.update(b"link:" + str(path.readlink()).encode() + b"\0")
            if not path.is_file():
                continue
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise PluginError(f"{path} can't be read: {exc.strerror or exc}") from None
        size += len(data)
        if size > MAX_BYTES:
            raise PluginError(f"{root} holds more than {MAX_BYTES >> 20} MB: too big for a plugin")
        h.update(hashlib.sha256(data).digest())
    return h.hexdigest()
