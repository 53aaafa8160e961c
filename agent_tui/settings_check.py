"""The person's own settings (`<config dir>/settings.toml`) checked before anything starts: a value
agent-tui can't use is refused with one line naming the file and the setting, never ignored (an
ignored `[limits] max_cost = "5"` was no cap at all).

The sections checked here are the scalar ones the runtime reads (`[limits]`, `[model]`,
`[context]`, `[web]`, `[ui]`), each with the settings it knows; an unknown key in them is refused
too (a typo is an ignored setting). Other tables (`[permissions]` has its own loader and reports,
as it does for a file that isn't valid TOML) are left to their readers; a table agent-tui doesn't
read at all (`[permisions]`) is refused in the person's file and warned about in a project's
(`project_table_warnings`): a misspelt table is as ignored as a misspelt key. A small table rather
than pydantic: this runs before the first frame, and pydantic stays off the way to a ready app
(`tests/test_startup_imports.py`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.models import EFFORTS

COMPACTION_MODES = ("auto", "server", "client", "off")
#: what a `[prices."MODEL"]` row may set (US dollars per million tokens; agent/cost.py)
PRICE_KEYS = ("input", "output", "cache_write", "cache_read", "web_search_per_1000")


@dataclass(frozen=True, slots=True)
class Setting:
    """What a setting must be: said in words (`expected`) and checked (`valid`)."""

    expected: str
    valid: Callable[[Any], bool]


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


SCHEMA: dict[str, dict[str, Setting]] = {
    "limits": {
        "max_cost": Setting("a number of US dollars above 0", lambda v: _number(v) and v > 0),
    },
    "model": {
        "thinking": Setting("true or false", lambda v: isinstance(v, bool)),
        "thinking_budget": Setting(
            "a whole number of tokens, at least 1024", lambda v: _whole(v) and v >= 1024
        ),
        # output_config.effort, for the models that take one (agent_tui/models.py)
        "effort": Setting(" | ".join(f'"{e}"' for e in EFFORTS), lambda v: v in EFFORTS),
    },
    "context": {
        "compaction": Setting(
            " | ".join(f'"{m}"' for m in COMPACTION_MODES), lambda v: v in COMPACTION_MODES
        ),
    },
    "web": {
        # WebFetch's domain preflight off (Claude Code's skipWebFetchPreflight): web/preflight.py
        "skip_web_fetch_preflight": Setting("true or false", lambda v: isinstance(v, bool)),
    },
    "ui": {
        # the bell / desktop notification at a dialog or a long turn's end:
        # ui/controllers/notifier.py
        "notify": Setting("true or false", lambda v: isinstance(v, bool)),
        "notify_after_s": Setting(
            "a number of seconds, 0 or more", lambda v: _number(v) and v >= 0
        ),
        # the rubber-stamp guard of the approval dialog: ui/controllers/stamp_guard.py
        "approval_pause": Setting("true or false", lambda v: isinstance(v, bool)),
        "approval_fast_s": Setting(
            "a number of seconds, 0 or more", lambda v: _number(v) and v >= 0
        ),
        "approval_streak": Setting("a whole number, at least 1", lambda v: _whole(v) and v >= 1),
        "approval_pause_s": Setting(
            "a number of seconds, 0 or more", lambda v: _number(v) and v >= 0
        ),
        # a status line of the person's own: agent_tui/status_line.py
        "status_command": Setting("a shell command", lambda v: isinstance(v, str) and bool(v)),
    },
}

#: the tables a settings file may have: these and the ones read by their own loaders
TABLES = (*SCHEMA, "permissions", "hooks", "sandbox")


def _unknown_tables(data: dict[str, Any]) -> list[str]:
    return [name for name in data if name not in TABLES]


def _table_line(path: Path | str, name: str) -> str:
    import difflib

    near = difflib.get_close_matches(name, TABLES, n=1)
    hint = (
        f"did you mean [{near[0]}]?" if near else "it has: " + ", ".join(f"[{t}]" for t in TABLES)
    )
    return f"{path}: [{name}] is not a table agent-tui reads ({hint})"


def project_table_warnings(cwd: Path) -> tuple[str, ...]:
    """A project's settings files' tables that agent-tui doesn't read, one line each (warned
    about, not refused: a project's typo must not stop a person's start)."""
    from agent_tui.toml_file import TomlFileError, read_toml

    lines = []
    for name in ("settings.toml", "settings.local.toml"):
        path = cwd / ".agent-tui" / name
        try:
            data = read_toml(path)
        except TomlFileError:
            continue  # said by the permissions loader
        lines += [_table_line(path, t) for t in _unknown_tables(data or {})]
    return tuple(lines)


#: environment variables that set the same things: name -> what it must be
ENVIRONMENT: dict[str, Setting] = {
    "AGENT_TUI_COMPACTION": SCHEMA["context"]["compaction"],
    "AGENT_TUI_STALL_TIMEOUT": Setting(
        "a number of seconds above 0", lambda v: _number(_float(v)) and _float(v) > 0
    ),
}


def _float(text: Any) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return str(value)


def _check_prices(data: dict[str, Any], path: Path | str) -> str | None:
    """`[prices."MODEL"]` rows: each a table of known keys, each a number of dollars, 0 or more."""
    rows = data.get("prices", {})
    if not isinstance(rows, dict):
        return f"{path}: [prices] must be a table of models (it is {_shown(rows)})"
    for model, row in rows.items():
        if not isinstance(row, dict):
            return f'{path}: [prices."{model}"] must be a table (it is {_shown(row)})'
        for key, value in row.items():
            if key not in PRICE_KEYS:
                return f'{path}: [prices."{model}"] {key} is not a price ({", ".join(PRICE_KEYS)})'
            if not (_number(value) and value >= 0):
                return (
                    f'{path}: [prices."{model}"] {key} = {_shown(value)} is not valid: it must be '
                    "a number of US dollars, 0 or more"
                )
    return None


def check_settings(data: dict[str, Any], path: Path | str) -> str | None:
    """The first problem in a settings file's checked sections, as one line, or None."""
    if problem := _check_prices(data, path):
        return problem
    for name in _unknown_tables(data):
        return _table_line(path, name)
    for section, settings in SCHEMA.items():
        if section not in data:
            continue
        table = data[section]
        if not isinstance(table, dict):
            return f"{path}: [{section}] must be a table (it is {_shown(table)})"
        for key, value in table.items():
            setting = settings.get(key)
            if setting is None:
                known = ", ".join(settings)
                return (
                    f"{path}: [{section}] {key} is not a setting agent-tui knows "
                    f"([{section}] has: {known})"
                )
            if not setting.valid(value):
                return (
                    f"{path}: [{section}] {key} = {_shown(value)} is not valid: it must be "
                    f"{setting.expected}"
                )
    return None


def check_environment(environ: dict[str, str] | os._Environ[str] = os.environ) -> str | None:
    for name, setting in ENVIRONMENT.items():
        value = environ.get(name)
        if value and not setting.valid(value):
            return f"{name}={value} is not valid: it must be {setting.expected}"
    return None


def settings_problem() -> str | None:
    """Why agent-tui must not start with the person's settings as they are (one line), or None."""
    from agent_tui.paths import config_dir
    from agent_tui.toml_file import TomlFileError, read_toml

    path = config_dir() / "settings.toml"
    try:
        data = read_toml(path)  # no file: no TOML parser loaded on the way to the first frame
    except TomlFileError as exc:
        if exc.not_toml:
            # Not this check's to refuse: the permissions loader says so and makes every tool ask
            # until it is fixed (and headless turns --approve-asks off), a fail-safe run.
            return check_environment()
        cause = exc.__cause__
        return f"{path}: cannot be read ({getattr(cause, 'strerror', None) or cause})"
    if data is None:
        return check_environment()
    return check_settings(data, path) or check_environment()
