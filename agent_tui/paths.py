"""Where config and data live.

`AGENT_TUI_HOME=DIR` puts everything under DIR (tests, scripts, portable installs); otherwise the
platform's usual locations are used via platformdirs.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "agent-tui"


def _home() -> Path | None:
    value = os.environ.get("AGENT_TUI_HOME")
    return Path(value).expanduser() if value else None


def config_dir() -> Path:
    home = _home()
    if home is not None:
        return home
    from platformdirs import user_config_path

    return user_config_path(APP_NAME)


def data_dir() -> Path:
    home = _home()
    if home is not None:
        return home
    from platformdirs import user_data_path

    return user_data_path(APP_NAME)


def cache_dir() -> Path:
    """Things that can be rebuilt (parsed stylesheets): deleting them loses nothing."""
    home = _home()
    if home is not None:
        return home / "cache"
    from platformdirs import user_cache_path

    return user_cache_path(APP_NAME)


def package_data(name: str) -> Path:
    """A file shipped inside the package (`agent_tui/data/NAME`)."""
    return Path(__file__).parent / "data" / name


def offline_assets() -> Path:
    """The offline model's scripts ship inside the package so a wheel install has them."""
    return Path(__file__).parent / "assets" / "offline"
