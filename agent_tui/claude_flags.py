"""Claude Code's command-line flags, as aliases of ours: what `cli.py` needs to read them.

`--allowedTools` / `--disallowedTools` take rules separated by spaces (several arguments) or
commas (outside parentheses: `Bash(git log --format=%h,%s)` stays one rule), in Claude Code's
spelling (`Bash(git log *)`), translated as its settings files' rules are. `--permission-mode`
takes Claude Code's mode names; `--dangerously-skip-permissions` is `--mode yolo`.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: Claude Code's permission modes, as `--permission-mode` takes them, and ours
PERMISSION_MODES = {
    "default": "default",
    "acceptEdits": "accept-edits",
    "plan": "plan",
    "bypassPermissions": "yolo",
}


def split_tools(values: Iterable[str]) -> list[str]:
    """The rules in `--allowedTools A B,C`: each argument split at commas outside parentheses."""
    from agent_tui.permissions.rules import split_rules

    return [rule for value in values for rule in split_rules(value)]


def tool_rules(values: list[list[str]] | None, flag: str) -> list[str]:
    """Our rules for a `--allowedTools`/`--disallowedTools` list; a usage error (`ArgumentTypeError`
    message) for a rule that can't be read or has no equivalent here. (Without the flag, the
    rules' modules are left to the boot: they aren't on the way to the first frame.)"""
    if not values:
        return []
    from agent_tui.permissions.claude_rules import Untranslatable, translate
    from agent_tui.permissions.rules import RuleError, parse_rule

    rules = []
    for text in split_tools(v for group in values or [] for v in group):
        try:
            ours = translate(text)
            if ours is None:
                raise Untranslatable(f"{text}: agent-tui has no such tool")
            parse_rule(ours)
        except (Untranslatable, RuleError) as exc:
            raise argparse.ArgumentTypeError(f"{flag}: {exc}") from None
        rules.append(ours)
    return rules


def permission_mode(args: argparse.Namespace, cwd: Path) -> tuple[str, str | None]:
    """(the session's mode, a conflict to report or None): `--mode`, `--permission-mode`,
    `--dangerously-skip-permissions`, else Claude Code's `permissions.defaultMode` setting,
    else default."""
    given = [
        m
        for m in (
            args.mode,
            PERMISSION_MODES.get(args.permission_mode or ""),
            "yolo" if args.dangerously_skip_permissions else None,
        )
        if m is not None
    ]
    if len(set(given)) > 1:
        return given[0], "--mode, --permission-mode and --dangerously-skip-permissions disagree"
    if given:
        return given[0], None
    from agent_tui.permissions.claude_settings import default_mode

    found = default_mode(cwd)
    return (found[0] if found else "default"), None


def add_claude_flags(parser: argparse.ArgumentParser) -> None:
    """Claude Code's flags that have no spelling of ours (the others are aliases where ours are
    declared)."""
    parser.add_argument(
        "--permission-mode",
        choices=tuple(PERMISSION_MODES),
        help="Claude Code's name for --mode (acceptEdits = accept-edits, bypassPermissions = yolo)",
    )
    parser.add_argument(
        "--dangerously-skip-permissions",
        action="store_true",
        help="--mode yolo: no questions (deny rules and the sandbox still hold)",
    )
    for flag, spelled, what in (
        ("--allowedTools", "--allowed-tools", "allow"),
        ("--disallowedTools", "--disallowed-tools", "deny"),
    ):
        parser.add_argument(
            flag,
            spelled,
            dest=flag.lstrip("-").lower(),
            action="append",
            nargs="+",
            metavar="RULE",
            help=f"{what} rules in Claude Code's spelling, comma or space separated",
        )
    parser.add_argument(
        "--append-system-prompt", metavar="TEXT", help="added at the end of the system prompt"
    )
    parser.add_argument(
        "--system-prompt",
        metavar="TEXT",
        help="instead of agent-tui's own instructions (the environment and memory stay)",
    )
    parser.add_argument(
        "--max-turns",
        type=_positive,
        metavar="N",
        help="headless: stop after N model responses (result error_max_turns, exit 1)",
    )
    parser.add_argument("--verbose", action="store_true", help="accepted, as in Claude Code")
    from agent_tui.debug_log import add_flags

    add_flags(parser)  # -d/--debug [FILTER], --debug-file PATH
    parser.add_argument(
        "--settings",
        action="append",
        default=[],
        metavar="FILE-OR-JSON",
        help="a Claude Code settings file (or its JSON) for this run, above the project's",
    )
    parser.add_argument(
        "--add-dir",
        action="append",
        nargs="+",
        type=Path,
        metavar="DIR",
        help="more folders the file tools read (and, with a rule or mode, edit) as the project's",
    )
    parser.add_argument(
        "-w",
        "--worktree",
        nargs="?",
        const="",
        metavar="NAME",
        help="run the session in a new git worktree ../<repo>-NAME on a new branch NAME "
        "(default: session-<date>); leaving asks whether to keep it",
    )
    parser.add_argument(
        "--json-schema",
        metavar="SCHEMA",
        help="-p: the final answer is JSON matching this JSON Schema (a file, or the JSON "
        "itself), the json result's structured_output; one retry, then exit 1",
    )
    parser.add_argument(
        "--plugin-dir",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="a plugin folder (.claude-plugin/plugin.json) for this run; it acts once trusted",
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("at least 1")
    return value


def claude_options(args: argparse.Namespace, cwd: Path) -> tuple[dict[str, Any], str | None]:
    """What Claude Code's flags and settings files give the session's options, and a usage error
    (or None). Registers `--settings` and sets the settings files' `env` in this process (a
    variable the environment has is left alone), before anything reads them."""
    from agent_tui.permissions import claude_settings

    for value in args.settings:
        if not value.lstrip().startswith("{") and not Path(value).expanduser().is_file():
            return {}, f"--settings {value}: no such file"
    claude_settings.use_cli_settings(args.settings)
    mode, conflict = permission_mode(args, cwd)
    if conflict:
        return {}, conflict
    try:
        allow = tool_rules(args.allowedtools, "--allowedTools")
        deny = tool_rules(args.disallowedtools, "--disallowedTools")
    except argparse.ArgumentTypeError as exc:
        return {}, str(exc)
    dirs = [d.expanduser().resolve() for group in args.add_dir or [] for d in group]
    missing = [d for d in dirs if not d.is_dir()]
    if missing:
        return {}, f"--add-dir {missing[0]} is not a directory"
    plugins = [d.expanduser().resolve() for d in args.plugin_dir]
    if missing := [d for d in plugins if not d.is_dir()]:
        return {}, f"--plugin-dir {missing[0]} is not a directory"
    schema = None
    if args.json_schema is not None:
        from agent_tui.structured_output import SchemaError, load_schema

        if args.prompt is None:
            return {}, "--json-schema is for -p runs"
        try:
            schema = load_schema(args.json_schema)
        except SchemaError as exc:
            return {}, str(exc)
    claude_settings.apply_env(cwd)
    found = {"mode": mode, "allow": allow, "deny": deny, "add_dirs": dirs, "plugin_dirs": plugins}
    return {**found, "json_schema": schema}, None
