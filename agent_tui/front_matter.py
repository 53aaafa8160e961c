"""Claude Code's markdown files with front matter (commands, skills, sub-agent types): a block
of `key: value` lines between `---` lines at the top, then the body. Only flat values are read
(quotes stripped), as those files use them; keys are lower-cased."""

from __future__ import annotations

import re
from pathlib import Path

_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.DOTALL)


def split(text: str) -> tuple[dict[str, str], str]:
    """(the front matter's fields, the body after it); no front matter: ({}, text)."""
    m = _FRONT.match(text)
    if m is None:
        return {}, text
    fields: dict[str, str] = {}
    for line in m.group(1).splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and not line[:1].isspace():
            fields[key.strip().lower()] = value.strip().strip("\"'")
    return fields, text[m.end() :]


def flag(fields: dict[str, str], key: str, default: bool) -> bool:
    """A yes/no field (`disable-model-invocation: true`)."""
    value = fields.get(key, "").lower()
    if value in ("true", "yes", "1"):
        return True
    if value in ("false", "no", "0"):
        return False
    return default


def read(path: Path) -> tuple[dict[str, str], str] | None:
    """A file's (fields, body stripped); None when it can't be read or has no body."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    fields, body = split(text)
    body = body.strip()
    return (fields, body) if body else None


def summary(fields: dict[str, str], body: str, limit: int) -> str:
    """Its `description`, else its first line (a heading's `#` left out), at most `limit`."""
    return fields.get("description") or body.splitlines()[0].lstrip("# ").strip()[:limit]
