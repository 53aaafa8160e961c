"""The keys a dialog or view answers to, as its bottom line shows them: ` y  restore   n  cancel`
(the key on an accent, then what it does)."""

from __future__ import annotations

from textual.content import Content


def key_hint(key: str, label: str) -> Content:
    return Content.assemble((f" {key} ", "bold $text-accent"), label)


def key_bar(*keys: tuple[str, str], sep: str = "   ") -> Content:
    """`(key, label)` pairs, one after the other."""
    return Content(sep).join(key_hint(key, label) for key, label in keys)
