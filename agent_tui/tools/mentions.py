"""`@path` in a prompt: the file picker's matching (a fuzzy, gitignore-aware list of the
project's files from `rg --files`) and what a mention attaches — the file's text, or the image
itself — when the prompt is sent."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_tui import pathutil

#: characters of a mentioned text file attached at most
MAX_MENTION_CHARS = 100_000
_MENTION = re.compile(r"(?:^|(?<=\s))@([^\s@]+)")
#: the half-typed mention at the end of the prompt
_TYPING = re.compile(r"(?:^|(?<=\s))@([^\s@]*)$")


def typing_mention(text: str) -> str | None:
    """The `@partial` being typed at the end of the prompt (without the @), if any."""
    m = _TYPING.search(text)
    return m.group(1) if m else None


def project_files(cwd: Path, limit: int = 50_000) -> list[str]:
    """The project's files, as `rg --files` lists them (.gitignore respected), relative."""
    from agent_tui.tools.ripgrep import BASE_ARGS, rg_path

    try:
        done = subprocess.run(
            [rg_path(), *BASE_ARGS, "--files"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired, RuntimeError):
        return []
    return done.stdout.splitlines()[:limit]


def fuzzy_rank(query: str, paths: list[str], limit: int = 8) -> list[str]:
    """Paths whose characters contain `query`'s in order, best first: a match in the file name
    beats one spread over folders, then fewer gaps, then shorter paths."""
    if not query:
        return sorted(paths, key=len)[:limit]
    q = query.lower()
    scored: list[tuple[tuple[int, int, int], str]] = []
    for path in paths:
        low = path.lower()
        at, gaps, last = 0, 0, -1
        for ch in q:
            found = low.find(ch, at)
            if found < 0:
                break
            gaps += found - last - 1 if last >= 0 else 0
            last, at = found, found + 1
        else:
            name = low.rsplit("/", 1)[-1]
            in_name = 0 if q in name else (1 if q in low else 2)
            scored.append(((in_name, gaps, len(path)), path))
    scored.sort()
    return [path for _, path in scored[:limit]]


def mention_attachments(
    prompt: str, cwd: Path, skip: Callable[[Path], bool] = lambda _path: False
) -> tuple[list[dict[str, Any]], list[str]]:
    """Text blocks with the content of each `@file` the prompt mentions, but those `skip` says
    are attached otherwise (images, by `media.prompt_attachments`); (blocks, a note per file)."""
    from agent_tui.tools.text_files import NotText, ToolFailure, read_text_file

    blocks: list[dict[str, Any]] = []
    notes: list[str] = []
    seen: set[Path] = set()
    for raw in _MENTION.findall(prompt):
        raw = raw.rstrip(".,;:!?)")
        path = pathutil.resolve(raw, cwd)
        if path in seen or not path.is_file() or skip(path):
            continue
        seen.add(path)
        try:
            text = read_text_file(path).text
        except (ToolFailure, NotText, OSError) as exc:
            notes.append(f"could not attach {raw}: {exc}")
            continue
        cut = ""
        if len(text) > MAX_MENTION_CHARS:
            text, cut = text[:MAX_MENTION_CHARS], f"\n[cut at {MAX_MENTION_CHARS:,} characters]"
        fence = "````" if "```" in text else "```"
        blocks.append(
            {"type": "text", "text": f"Contents of {raw}:\n{fence}\n{text}\n{fence}{cut}"}
        )
        notes.append(f"attached {raw} ({len(text):,} characters)")
    return blocks, notes
