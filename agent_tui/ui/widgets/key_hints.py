"""The keys a dialog or view answers to, as its bottom line shows them: ` y  restore   n  cancel`
(the key on an accent, then what it does)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.content import Content
from textual.widgets import Static


def key_hint(key: str, label: str) -> Content:
    return Content.assemble((f" {key} ", "bold $text-accent"), label)


def key_bar(*keys: tuple[str, str], sep: str = "   ") -> Content:
    """`(key, label)` pairs, one after the other."""
    return Content(sep).join(key_hint(key, label) for key, label in keys)


#: a key, what it does in words, and the same in a word or two (for a narrow dialog)
Key = tuple[str, str, str]


def fitted_bar(keys: Sequence[Key], width: int) -> Content:
    """The key line in full words where it fits on one line of `width` cells (0: unknown),
    else in short words (which wrap rather than being cut, if even they don't fit)."""
    full = key_bar(*((key, label) for key, label, _ in keys), sep="  ")
    if not width or full.cell_length <= width:
        return full
    return key_bar(*((key, short) for key, _, short in keys), sep=" ")


class KeyLine(Static):
    """A dialog's key line that fits its width: at 80 columns the full words wrapped, and in a
    one-line box the second line was cut off (`y restore the` …)."""

    def __init__(self, keys: Sequence[Key], **kwargs: Any) -> None:
        super().__init__(fitted_bar(keys, 0), **kwargs)
        self.keys = tuple(keys)

    def show(self, keys: Sequence[Key]) -> None:
        self.keys = tuple(keys)
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        fitted = fitted_bar(self.keys, self.content_size.width)
        if fitted != self.content:
            self.update(fitted)
            if self.parent is not None:  # its height may change the box's
                self.parent.refresh(layout=True)
