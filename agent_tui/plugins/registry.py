"""The person's plugins: the folders `agent-tui plugin add DIR` recorded, in
`<config dir>/plugins.json` (`{"plugins": ["/abs/dir", …]}`), outside any project. A session
reads them, and `--plugin-dir DIR` adds folders for one run; either way a plugin acts only once
the person trusts it (`plugins.session`)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

FILE = "plugins.json"


def _path(config_dir: Path) -> Path:
    return config_dir / FILE


def installed(config_dir: Path) -> list[Path]:
    """The recorded folders, in the order they were added (a damaged file: none)."""
    try:
        data = json.loads(_path(config_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    found = data.get("plugins") if isinstance(data, dict) else None
    return [Path(p) for p in found if isinstance(p, str)] if isinstance(found, list) else []


def _save(config_dir: Path, folders: list[Path]) -> None:
    config_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=config_dir, prefix=".plugins.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"plugins": [str(p) for p in folders]}, f, indent=1)
        os.replace(tmp, _path(config_dir))
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def add(config_dir: Path, folder: Path) -> bool:
    """Record `folder` (resolved); False when it was there already."""
    folders = installed(config_dir)
    if folder in folders:
        return False
    _save(config_dir, [*folders, folder])
    return True


def remove(config_dir: Path, folder: Path) -> bool:
    """Forget `folder`; False when it wasn't recorded."""
    folders = installed(config_dir)
    if folder not in folders:
        return False
    _save(config_dir, [p for p in folders if p != folder])
    return True
