"""git's config files read without starting git, for the plain ones git itself writes (`[core]`,
`[remote "origin"]`, `key = value`): a repository with a hundred submodules has a hundred of
them, and a `git config` process for each took ~4 ms of the first command's check.

Anything beyond that plain form — a backslash (escapes, line continuations), a quote in a value,
a carriage return, a line that isn't a header, a key or a comment — is left to git's own parser
(`None`): this reader must never see fewer keys than git does, nor put one in another section.
"""

from __future__ import annotations

import re

_HEADER = re.compile(r'\[([A-Za-z0-9.-]+)(?:\s+"([^"\\]*)")?\](.*)')
_KEY = re.compile(r"([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?")


def plain_entries(text: str) -> list[tuple[str, str]] | None:
    """(key, value) as `git config --list` gives them, or None: left to git."""
    if any(c in text for c in '\\\r\0"'):
        return None
    section: str | None = None
    out: list[tuple[str, str]] = []
    for line in text.split("\n"):
        line = line.strip(" \t")
        if not line or line[0] in "#;":
            continue
        header = _HEADER.fullmatch(line)
        if header:
            name, sub, rest = header.groups()
            if sub is None and "." in name:  # the old `[section.subsection]`
                name, _, sub = name.partition(".")
                sub = sub.lower()
            section = name.lower() + (f".{sub}" if sub is not None else "")
            line = rest.strip(" \t")
            if not line or line[0] in "#;":
                continue
        key = _KEY.fullmatch(line)
        if section is None or key is None:
            return None
        name, value = key.groups()
        value = re.split(r"[#;]", value or "", maxsplit=1)[0].strip(" \t")
        out.append((f"{section}.{name.lower()}", value))
    return out
