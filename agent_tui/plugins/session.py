"""A session's plugins: the person's (`registry`) and this run's `--plugin-dir` folders, each
waiting at the one trust gate until the person says yes for its present files.

`SessionPlugins` is a `permissions.trust.TrustSubject` of the engine: the trust dialog lists
what each waiting plugin brings (every command, skill, sub-agent type, hook and MCP server), and
its answer is recorded in the same store as the project's (`plugin:/its/folder`, with the digest
of all its files: any change asks again). Until then nothing of it is used: its commands and
skills aren't listed, its types can't be started, its hooks don't run and its servers don't
start. Once trusted, its hooks run as the person's own (outside the sandbox, as Claude Code runs
them: they are the person's choice, and the plugin's folder is outside the project) and so do its
MCP servers. A headless run uses a plugin trusted before, or all of them with `--trust-project`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from agent_tui.permissions.trust import State, TrustStore
from agent_tui.plugins.manifest import Plugin, PluginError, read_plugin


class SessionPlugins:
    def __init__(self, plugins: Iterable[Plugin], store: TrustStore, *, trust_all: bool) -> None:
        self.plugins = list(plugins)
        self.store = store
        self.states: dict[str, State | None] = {
            p.key: "trusted" if trust_all else store.subject_state(p.key, p.digest)
            for p in self.plugins
        }
        #: what the session does with plugins the person trusts mid-session (their hooks run,
        #: their servers start, their types load)
        self.on_trusted: list[Callable[[list[Plugin]], None]] = []
        #: plugins that couldn't be read, manifests' problems: said at the start
        self.warnings: list[str] = []

    @property
    def trusted(self) -> list[Plugin]:
        return [p for p in self.plugins if self.states[p.key] == "trusted"]

    def pending(self) -> list[Plugin]:
        """The plugins with no answer for their present files."""
        return [p for p in self.plugins if self.states[p.key] is None]

    def is_trusted(self, root: Path | str) -> bool:
        return self.states.get(f"plugin:{root}") == "trusted"

    @property
    def waiting(self) -> tuple[str, ...]:
        return tuple(line for p in self.pending() for line in p.describe())

    def decide(self, trusted: bool) -> None:
        now = self.pending()
        state: State = "trusted" if trusted else "ignored"
        for plugin in now:
            self.states[plugin.key] = state
            with contextlib.suppress(OSError):
                self.store.record_subject(plugin.key, plugin.digest, state)
        if trusted and now:
            for then in self.on_trusted:
                then(now)

    # --- what the trusted ones bring, for the session's parts ---

    def command_files(self) -> list[tuple[Path, str]]:
        """(file, command name) of the trusted plugins' commands: `plugin:name`."""
        return [c for p in self.trusted for c in p.commands]

    def skill_files(self) -> list[tuple[Path, str]]:
        """(SKILL.md, skill name) of the trusted plugins' skills: `plugin:skill`."""
        return [(s, f"{p.name}:{s.parent.name}") for p in self.trusted for s in p.skills]

    def agent_files(self) -> list[tuple[Path, str]]:
        """(file, name prefix) of the trusted plugins' sub-agent types."""
        return [(a, p.name) for p in self.trusted for a in p.agents]


def load_plugins(config_dir: Path, extra: Iterable[Path], *, trust_all: bool) -> SessionPlugins:
    """The person's plugins, then `--plugin-dir` ones; one that can't be read, or whose name an
    earlier one took, is left out with a warning."""
    from agent_tui.plugins.registry import installed

    found: dict[str, Plugin] = {}
    warnings: list[str] = []
    for folder in dict.fromkeys([*installed(config_dir), *(p.resolve() for p in extra)]):
        try:
            plugin = read_plugin(folder)
        except PluginError as exc:
            warnings.append(f"plugin not loaded: {exc}")
            continue
        if plugin.name in found:
            warnings.append(
                f"plugin {plugin.name} ({plugin.root}) not loaded: "
                f"{found[plugin.name].root} has that name"
            )
            continue
        found[plugin.name] = plugin
        warnings += [f"plugin {plugin.name}: {w}" for w in plugin.warnings]
    session = SessionPlugins(found.values(), TrustStore.at(config_dir), trust_all=trust_all)
    session.warnings = warnings
    return session


def attach_plugins(
    config: Any, permissions: Any, extra: Iterable[Path], *, trust_all: bool
) -> SessionPlugins:
    """Read the session's plugins into `config.plugins` and put them at the engine's trust gate;
    the trusted ones' hooks join the session's (a runner is made for them if there is none).
    Called before the agent is built: its approvals keep the hook runner."""
    from agent_tui.hooks.runner import session_hooks
    from agent_tui.paths import config_dir

    plugins = load_plugins(config_dir(), extra, trust_all=trust_all)
    config.plugins = plugins
    if not plugins.plugins:
        return plugins
    if hasattr(permissions, "subjects"):
        permissions.subjects.append(plugins)
    if hasattr(permissions, "load_warnings"):
        permissions.load_warnings = (*permissions.load_warnings, *plugins.warnings)
    if any(p.hooks for p in plugins.plugins):
        if config.hooks is None:
            config.hooks = session_hooks(config.cwd, permissions, config.sandbox, always=True)
        runner = config.hooks

        def add_hooks(now: list[Plugin]) -> None:
            runner.settings.commands.extend(h for p in now for h in p.hooks)

        add_hooks(plugins.trusted)
        plugins.on_trusted.append(add_hooks)
    return plugins
