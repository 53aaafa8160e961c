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


def _lines(text: str) -> list[str]:
    """Lines with their ends exactly (CRLF kept), split on "\\n" only (str.splitlines also
    splits on \\f, \\x1c, …)."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _split(text: str) -> list[str]:
    """`_lines` for display: CRLF shown as LF (the person reviews content; the tools preserve
    line endings themselves)."""
    return [line[:-2] + "\n" if line.endswith("\r\n") else line for line in _lines(text)]


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


# --------------------------------------------------------------------------- hunks, one by one


@dataclass(frozen=True, slots=True)
class Hunk:
    #: the hunk as a unified diff ("@@ … @@" and its lines), for the person to read
    text: str
    #: the replacements it makes: (old start, old end, new start, new end) line ranges
    ops: tuple[tuple[int, int, int, int], ...]


def hunks(old: str | None, new: str, context: int = 3) -> list[Hunk]:
    """The change from `old` to `new` as separate hunks (as in a unified diff)."""
    a, b = _lines(old or ""), _lines(new)
    shown_a, shown_b = _split(old or ""), _split(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    found: list[Hunk] = []
    for group in matcher.get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        i1, i2, j1, j2 = first[1], last[2], first[3], last[4]
        out = [f"@@ -{i1 + 1},{i2 - i1} +{j1 + 1},{j2 - j1} @@"]
        ops = []
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                out.extend(" " + line.rstrip("\n") for line in shown_a[x1:x2])
                continue
            out.extend("-" + line.rstrip("\n") for line in shown_a[x1:x2])
            out.extend("+" + line.rstrip("\n") for line in shown_b[y1:y2])
            ops.append((x1, x2, y1, y2))
        found.append(Hunk("\n".join(out), tuple(ops)))
    return found


def apply_hunks(old: str | None, new: str, chosen: set[int], context: int = 3) -> str:
    """`old` with only the chosen hunks (indexes into `hunks(old, new)`) of the change applied."""
    a, b = _lines(old or ""), _lines(new)
    out: list[str] = []
    pos = 0
    for n, hunk in enumerate(hunks(old, new, context)):
        for i1, i2, j1, j2 in hunk.ops:
            out.extend(a[pos:i1])
            out.extend(b[j1:j2] if n in chosen else a[i1:i2])
            pos = i2
    out.extend(a[pos:])
    return "".join(out)


class HunksChanged(Exception):
    """The change is no longer the one whose hunks the person chose from."""


def partial_change(
    old: str | None, new: str, choice: tuple[tuple[int, ...], tuple[str, ...]]
) -> tuple[str, str]:
    """A partly approved change: the text to write (only the kept hunks applied) and what to
    tell the model about the hunks left out. Raises HunksChanged when the hunks differ from
    the ones the person was shown (the file changed meanwhile)."""
    kept, shown = choice
    now = hunks(old, new)
    if tuple(h.text for h in now) != shown:
        raise HunksChanged(
            "The file changed while the person was choosing which hunks to keep; nothing was "
            "written. Read the file again and repeat the change."
        )
    left = [n for n in range(len(now)) if n not in kept]
    written = ", ".join(str(n + 1) for n in kept) or "none"
    note = (
        f"The person approved only part of this change: hunk(s) {written} of {len(now)} were "
        "written. These hunks were left out and are NOT in the file; don't make them again "
        "unless the person asks:\n" + "\n".join(now[n].text for n in left)
    )
    return apply_hunks(old, new, set(kept)), note
