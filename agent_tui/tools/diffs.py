"""Unified diffs of a file change, for the approval dialog and tool summaries."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

#: a preview longer than this is cut; the dialog is for reading, not for the whole of a huge file
MAX_DIFF_LINES = 400
MAX_DIFF_CHARS = 40_000
NO_EOL = "\\ No newline at end of file"


@dataclass(frozen=True, slots=True)
class DiffStats:
    added: int
    removed: int

    def __str__(self) -> str:
        return f"+{self.added} −{self.removed}"


def _split(text: str) -> list[str]:
    """Lines with their ends, split on "\\n" only (str.splitlines also splits on \\f, \\x1c, …)."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    # CRLF shown as LF: the person reviews content; the tools preserve line endings themselves.
    return [line[:-2] + "\n" if line.endswith("\r\n") else line for line in lines]


def unified_diff(
    old: str | None,
    new: str,
    path: str,
    *,
    context: int = 3,
    max_lines: int = MAX_DIFF_LINES,
    max_chars: int = MAX_DIFF_CHARS,
) -> str:
    """A unified diff from `old` (None: the file does not exist yet) to `new`, cut for display."""
    a = _split(old or "")
    b = _split(new)
    fromfile = "/dev/null" if old is None else f"a/{path}"
    out: list[str] = []
    for line in difflib.unified_diff(a, b, fromfile, f"b/{path}", n=context, lineterm="\n"):
        if line.endswith("\n"):
            out.append(line[:-1])
        else:
            out.extend((line, NO_EOL))
    if not out:
        return f"(no changes to {path})"
    return _cap(out, max_lines, max_chars)


def _cap(lines: list[str], max_lines: int, max_chars: int) -> str:
    kept: list[str] = []
    size = 0
    for line in lines:
        if len(kept) >= max_lines or size + len(line) + 1 > max_chars:
            break
        kept.append(line)
        size += len(line) + 1
    cut = len(lines) - len(kept)
    if cut:
        kept.append(f"[… diff cut: {cut:,} more lines …]")
    return "\n".join(kept)


def diff_stats(old: str | None, new: str) -> DiffStats:
    added = removed = 0
    diff = difflib.unified_diff(_split(old or ""), _split(new), n=0)
    for i, line in enumerate(diff):
        if i < 2:  # the ---/+++ header
            continue
        if line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
    return DiffStats(added, removed)
