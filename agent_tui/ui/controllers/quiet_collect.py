"""The app's full garbage collections wait for a pause: `QUIET_S` with no key, paste, mouse
event or resize of the terminal, and as long since a turn, a `!command` or a replay last ran or
a screen (a dialog, the palette, a browser) was last open over the main one. A full collection
walks the whole session (tens of ms on a slow host, BENCHMARKS.md); run at a turn's end, as it
was, it was the callback that a person typing the next prompt, or answering the dialog of the
next turn, waited behind. The counting (every few turns, and when one has waited too long) is
`startup.gc_tuning.IdleCollector`'s; a collaborator of the app, which hands it every Textual
event it gets (`saw`) and each turn's end."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from textual import events

if TYPE_CHECKING:
    from textual.app import App
    from textual.timer import Timer

    from agent_tui.ui.controllers.sessions import Sessions
    from agent_tui.ui.controllers.shortcuts import PromptShortcuts
    from agent_tui.ui.controllers.turns import TurnController
    from agent_tui.ui.startup.gc_tuning import IdleCollector

#: how long nothing has happened before a due collection runs
QUIET_S = 1.5
#: while something runs, it is looked at again this many times a `QUIET_S`
BUSY_CHECKS = 4
#: the Textual events that are the person's: a key, a mouse event, a paste, a resize
PERSON: tuple[type[events.Event], ...] = (events.InputEvent, events.Paste, events.Resize)


class QuietHost(Protocol):
    turns: TurnController
    shortcuts: PromptShortcuts
    sessions: Sessions


class QuietCollection:
    """Runs the collector's due full collection at the person's next pause (one check pending at
    most: a timer, set again for the time left while the app is busy)."""

    def __init__(
        self,
        app: App[Any],
        host: QuietHost,
        collector: IdleCollector,
        *,
        quiet_s: float = QUIET_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.host = host
        self.collector = collector
        self.quiet_s = quiet_s
        self._clock = clock
        #: when the person last typed, pasted, clicked, scrolled or resized the terminal, a turn
        #: last ended, or the app was first seen no longer busy (None: not yet)
        self.active_at: float | None = None
        #: the one check pending while a collection is due
        self._timer: Timer | None = None
        #: the last check found the app busy: the pause starts when a check finds it not
        self._was_busy = False

    @property
    def waiting(self) -> bool:
        """A check is pending: a due collection waits for a pause."""
        return self._timer is not None

    def saw(self, message: events.Event) -> None:
        """Each Textual event the app gets: one of the person's (`PERSON`) means they are here,
        and a due collection waits."""
        if isinstance(message, PERSON):
            self.active_at = self._clock()

    def after_turn(self) -> None:
        """A turn's answer is painted: count it, and wait for a pause if a collection is due."""
        self.active_at = self._clock()
        if self.collector.after_turn():
            self._check_in(self.quiet_s)

    @property
    def busy(self) -> bool:
        """A turn, a `!command` or a replay runs, or a screen is open over the main one."""
        host, replay = self.host, self.host.sessions.replay
        running = host.turns.running or bool(host.shortcuts.running)
        replaying = replay is not None and replay.running
        return running or replaying or len(self.app.screen_stack) > 1

    def quiet_left(self) -> float:
        """Seconds until the app counts as paused (0: it is)."""
        if self.busy:
            return self.quiet_s
        if self.active_at is None:
            return 0.0
        return max(0.0, self.active_at + self.quiet_s - self._clock())

    def _check_in(self, delay: float) -> None:
        if self._timer is None:
            self._timer = self.app.set_timer(delay, self._check, name="quiet collection")

    def _check(self) -> None:
        self._timer = None
        if not self.collector.due:  # run meanwhile, overdue at a turn's end
            return
        if self.busy:  # its end is seen within a fraction of the pause, which counts from then
            self._was_busy = True
            self._check_in(self.quiet_s / BUSY_CHECKS)
        elif self._was_busy:
            self._was_busy = False
            self.active_at = self._clock()
            self._check_in(self.quiet_s)
        elif (left := self.quiet_left()) > 0:
            self._check_in(left)
        else:
            self.collector.collect()
