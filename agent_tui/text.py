"""Making untrusted text safe to show: what the person reads is exactly what will run.

A terminal interprets control characters and ANSI escapes, and bidi overrides or zero-width
characters can reorder or hide part of a command. `visible` replaces every such character with a
printable spelling (`\\x1b`, `<U+202E>`) and leaves everything else, newlines and tabs included,
untouched. Backslashes are kept as they are, so a command reads the way it will run.
"""

from __future__ import annotations

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


def is_visible(text: str) -> bool:
    """True when `visible(text)` would show `text` unchanged."""
    return visible(text) == text


__all__ = ["is_visible", "visible"]
