"""The one home for untrusted text (commands, tool output, pages, model text) on screen.

One policy everywhere: a terminal interprets control characters and ANSI escapes, and bidi
overrides or zero-width characters can reorder or hide text, so every such character is *spelled
out* (`\\x1b`, `<U+202E>`), never silently dropped; everything else is kept as it is, backslashes
included, so a command reads the way it will run. On top of `visible`:

- `one_line` puts text on one line for a list or a row (lines joined with ` ⏎ `, or only the first
  line and ` …` for a compact row), cut to a length with `…`;
- `clean_line` is one line of tool output: carriage-return progress resolved to what a terminal
  would show, tabs expanded, then spelled out and cut.

All of it is plain text: widgets show it as `Content`/`Text`, never parsed as markup.
"""

from __future__ import annotations

import re

_BLANKS = re.compile(r"[ \t]+")

# Characters that `str.isprintable()` accepts but that render as nothing or as blank space, so they
# could hide or disguise text: combining grapheme joiner, Hangul fillers, Khmer inherent vowels,
# Mongolian variation selectors, braille blank, and the variation selectors.
_INVISIBLE = frozenset(
    {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x2800, 0x3164, 0xFFA0}
    | set(range(0xFE00, 0xFE10))
    | set(range(0xE0100, 0xE01F0))
)


def _spell(ch: str) -> str:
    code = ord(ch)
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def _hidden(ch: str) -> bool:
    if ch in "\n\t":
        return False
    # isprintable() is False for controls (Cc), format characters (Cf: bidi overrides, zero-width
    # spaces and joiners, BOM, soft hyphen, tags), separators other than the plain space (Zs, Zl,
    # Zp), surrogates, private use and unassigned code points.
    return not ch.isprintable() or ord(ch) in _INVISIBLE


def visible(text: str) -> str:
    """`text` with control characters and invisible Unicode spelled out; \\n and \\t are kept."""
    if text.isprintable() and not any(ord(c) in _INVISIBLE for c in text):
        return text
    return "".join(_spell(c) if _hidden(c) else c for c in text)


def visible_lines(text: str) -> list[str]:
    """`text` split on real newlines, each line spelled out: nothing in it can vanish or fake a
    line break on screen (Textual drops BEL, BS, VT, FF and CR, and `str.splitlines` breaks on
    U+2028/U+2029 and more; all of those are spelled out by `visible`)."""
    return [visible(line) for line in text.split("\n")]


def is_visible(text: str) -> bool:
    """True when `visible(text)` would show `text` unchanged."""
    return visible(text) == text


def _cut(text: str, limit: int | None) -> str:
    return text if limit is None or len(text) <= limit else text[: max(0, limit - 1)] + "…"


def one_line(
    text: str, limit: int | None = None, *, first_line: bool = False, sep: str = " ⏎ "
) -> str:
    """`text` on one line, spelled out: lines joined with `sep` (or, with `first_line`, the first
    line and ` …` when there were more), runs of blanks as one space, cut to `limit`."""
    lines = [_BLANKS.sub(" ", line).strip() for line in text.strip().split("\n")]
    if first_line:
        line = visible(lines[0]) + (" …" if len(lines) > 1 else "")
    else:
        line = sep.join(visible(part) for part in lines if part or sep.strip())
    return _cut(line, limit)


def resolve_cr(raw: str) -> str:
    """What a terminal shows for a line with carriage returns: the text after the last one."""
    raw = raw.rstrip("\r")
    return raw.rsplit("\r", 1)[-1] if "\r" in raw else raw


def clean_line(text: str, limit: int | None = None) -> str:
    """One line of tool output made safe to draw: progress resolved, tabs expanded, controls and
    escapes spelled out, bounded length."""
    line = resolve_cr(text)
    if "\t" in line:
        line = line.expandtabs(4)
    return _cut(visible(line), limit)


__all__ = ["clean_line", "is_visible", "one_line", "resolve_cr", "visible", "visible_lines"]


def clause(reason: object) -> str:
    """A reason to put inside a sentence of ours (`f"… failed: {clause(exc)}. Try …"`): without
    its own closing full stop, so the sentence never reads `response.. Check`."""
    text = str(reason).strip()
    while text.endswith(".") and not text.endswith("..."):
        text = text[:-1].rstrip()
    return text
