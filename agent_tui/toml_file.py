"""Reading a TOML settings file that may not be there, without loading the TOML parser when it
isn't: most projects have none of them, and `tomllib` is ~1 ms of every start (issue 34)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


class TomlFileError(Exception):
    """The file is there but can't be read, or isn't TOML (the message says why; the error met is
    its `__cause__`)."""

    def __init__(self, message: str, *, not_toml: bool = False) -> None:
        super().__init__(message)
        #: read, but not TOML (rather than unreadable)
        self.not_toml = not_toml


def read_toml(path: Path) -> dict[str, Any] | None:
    """The file's top-level table, or None when there is no such file."""
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise TomlFileError(str(exc)) from exc
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlFileError(str(exc), not_toml=True) from exc
