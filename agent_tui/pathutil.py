"""Resolving a tool's path argument against the working directory, symlinks included.

Confinement is checked on resolved paths with `Path.is_relative_to`, never by string prefix (a
string-prefix check lets `/work/app-evil` pass for `/work/app`).
"""

from __future__ import annotations

import os
from pathlib import Path


def resolve(path: str | os.PathLike[str], cwd: Path) -> Path:
    """The absolute, symlink-resolved form of `path` (relative paths are taken from `cwd`)."""
    p = Path(os.path.expanduser(os.fspath(path)))
    if not p.is_absolute():
        p = cwd / p
    # strict=False: a file about to be written need not exist; its existing parents are resolved.
    return p.resolve(strict=False)


def is_inside(path: str | os.PathLike[str], cwd: Path) -> bool:
    """True when `path`, resolved, is `cwd` or below it (cwd resolved too)."""
    return resolve(path, cwd).is_relative_to(cwd.resolve(strict=False))
