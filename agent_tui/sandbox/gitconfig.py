"""The person's git configuration as a sandboxed command sees it: everything but what grants
access. A token in `url."https://TOKEN@github.com/".insteadOf`, an `http.extraHeader` with a
bearer, `credential.*`, `github.token`, a password or an include of another file — all left out;
the identity, aliases, colours and the rest kept, so commits carry the person's name and git
behaves as theirs does. Read with git's own parser (`git config --list`, `git_run`)."""

from __future__ import annotations

import re
from pathlib import Path

_SECRET_KEY = re.compile(
    r"^(credential|http|include|includeif|github|hub|gitlab|sendemail)\.|token|pass(word|wd)?\b"
    r"|secret|key$|cookie",
    re.IGNORECASE,
)
_USERINFO = re.compile(r"://[^/\s@]+@")


def _quote(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def filtered(path: Path) -> str | None:
    """The configuration file at `path` less what grants access, as a config file's text
    (None: no such file, or one git can't read)."""
    from agent_tui import git_run

    if not path.is_file():
        return None
    try:
        out = git_run.run(Path("/"), "config", "--file", str(path), "--list", "-z", check=True)
    except git_run.GitError:
        return None
    sections: dict[tuple[str, str | None], list[tuple[str, str]]] = {}
    for record in out.decode("utf-8", "replace").split("\0"):
        if not record:
            continue
        key, _, value = record.partition("\n")
        if _SECRET_KEY.search(key) or _USERINFO.search(key) or _USERINFO.search(value):
            continue
        section, _, rest = key.partition(".")
        sub, _, name = rest.rpartition(".")
        sections.setdefault((section, sub or None), []).append((name, value))
    lines = ["# your git configuration, without its credentials (agent-tui's sandbox)"]
    for (section, subsection), pairs in sections.items():
        title = section if subsection is None else f"{section} {_quote(subsection)}"
        lines.append(f"[{title}]")
        lines += [f"\t{name} = {_quote(value)}" for name, value in pairs]
    return "\n".join(lines) + "\n"
