"""When a dialog's keys start to answer it (the type-ahead guard), owned by the dialog.

Keys handled before the dialog is painted on top were typed for what was there: they go back to
the prompt box. Typing for the prompt that goes on as the dialog appears (a key there, or the last
dialog's answer, under `guard_s` before the paint) goes to the prompt too, until it pauses for
`guard_s`. Otherwise the first key after the paint answers (a `y` a second after a dialog opened
went to the prompt, issue 50). All times are the injected clock's, so tests decide "soon"."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual import events


class TypeAheadGuard:
    def __init__(
        self,
        guard_s: float,
        clock: Callable[[], float],
        typed_at: Callable[[], float | None] = lambda: None,
        type_ahead: Callable[[str], object] | None = None,
    ) -> None:
        self.guard_s = guard_s
        self.clock = clock
        #: when the person last typed elsewhere (the prompt box, the last dialog), or None
        self.typed_at = typed_at
        #: where keys typed for the prompt go (the prompt box): characters, "\b"
        self.type_ahead = type_ahead
        #: when the dialog was painted on top (None: not yet, or not on top)
        self.shown_at: float | None = None
        #: keys answer from this time on
        self.armed_at: float | None = None
        #: the last key handed back before the paint
        self.handed_back_at: float | None = None

    @property
    def armed(self) -> bool:
        return self.armed_at is not None and self.clock() >= self.armed_at

    def hidden(self) -> None:
        """The dialog comes to the top: its keys wait for its paint."""
        self.shown_at = self.armed_at = None

    def painted(self) -> float:
        """The dialog is on screen now (returns the time)."""
        self.shown_at = now = self.clock()
        typed = max(filter(None, (self.typed_at(), self.handed_back_at)), default=None)
        typing = typed is not None and now - typed < self.guard_s
        self.armed_at = typed + self.guard_s if typing and typed is not None else now
        return now

    def hand_back(self, key: events.Key) -> None:
        """A key typed for the prompt goes there; after the paint, typing goes on, so the guard
        holds on (the next keystroke of a sentence can't answer)."""
        if self.shown_at is not None:
            self.armed_at = self.clock() + self.guard_s
        else:
            self.handed_back_at = self.clock()
        if self.type_ahead is not None:
            if key.is_printable and key.character:
                self.type_ahead(key.character)
            elif key.key == "backspace":
                self.type_ahead("\b")
