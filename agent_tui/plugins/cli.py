"""`agent-tui plugin add DIR | list | remove NAME-or-DIR`: the person's plugins.

`add` reads the folder (a plugin that can't be read is refused with why), records it and prints
what it brings; at a terminal it asks the trust question there and then (the same answer the
app's trust dialog records), else the plugin waits for the dialog of the next session. `list`
shows each with its state (trusted, waiting for trust, ignored, or why it can't be read).
Exit codes: 0 done, 1 a folder that is no plugin or a name that isn't there, 2 a usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agent_tui.permissions.trust import TrustStore
from agent_tui.plugins import registry
from agent_tui.plugins.manifest import Plugin, PluginError, read_plugin


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agent-tui plugin", description="your plugins")
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", help="add a plugin folder (.claude-plugin/plugin.json)")
    add.add_argument("folder", type=Path)
    sub.add_parser("list", help="your plugins and whether each is trusted")
    remove = sub.add_parser("remove", help="forget a plugin (its folder stays)")
    remove.add_argument("plugin", help="its name or its folder")
    return parser


def _state(store: TrustStore, plugin: Plugin) -> str:
    state = store.subject_state(plugin.key, plugin.digest)
    return {"trusted": "trusted", "ignored": "ignored"}.get(state or "", "waiting for trust")


def _ask(plugin: Plugin, store: TrustStore) -> None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("It acts once you trust it: the next session's trust dialog asks.")
        return
    try:
        answer = input(f"Trust plugin {plugin.name} now (its hooks and servers run as you)? [y/N] ")
    except EOFError:
        answer = ""
    trusted = answer.strip().lower() in ("y", "yes")
    store.record_subject(plugin.key, plugin.digest, "trusted" if trusted else "ignored")
    print("Trusted." if trusted else "Not trusted: nothing of it runs.")


def main(argv: list[str]) -> int:
    from agent_tui.paths import config_dir

    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    config = config_dir()
    store = TrustStore.at(config)
    if args.command == "add":
        try:
            plugin = read_plugin(args.folder)
        except PluginError as exc:
            print(f"agent-tui: {exc}", file=sys.stderr)
            return 1
        taken = [p for p in _readable(config) if p.name == plugin.name and p.root != plugin.root]
        if taken:
            print(f"agent-tui: {taken[0].root} has the name {plugin.name}", file=sys.stderr)
            return 1
        added = registry.add(config, plugin.root)
        print(("Added" if added else "Already added:") + f" {plugin.name} ({plugin.root})")
        for line in plugin.describe()[1:]:
            print(f"  {line}")
        for warning in plugin.warnings:
            print(f"  warning: {warning}")
        if _state(store, plugin) != "trusted":
            _ask(plugin, store)
        return 0
    if args.command == "list":
        for folder in registry.installed(config):
            try:
                plugin = read_plugin(folder)
            except PluginError as exc:
                print(f"?\t\t{folder}\tcan't be read: {exc}")
                continue
            print(f"{plugin.name}\t{plugin.version}\t{plugin.root}\t{_state(store, plugin)}")
        return 0
    return _remove(config, args.plugin)


def _readable(config: Path) -> list[Plugin]:
    found = []
    for folder in registry.installed(config):
        try:
            found.append(read_plugin(folder))
        except PluginError:
            continue
    return found


def _remove(config: Path, which: str) -> int:
    folder = Path(which).expanduser().resolve()
    named = [p.root for p in _readable(config) if p.name == which]
    target = named[0] if named else folder
    if not registry.remove(config, target):
        print(f"agent-tui: no plugin {which} is added", file=sys.stderr)
        return 1
    print(f"Removed {target}")
    return 0
