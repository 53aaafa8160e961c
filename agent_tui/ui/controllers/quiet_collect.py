"""The app's full garbage collections wait for a pause: no turn, `!command` or replay running,
no dialog open, and no key, mouse event or resize of the terminal for `QUIET_S`. A full
collection walks the whole session (tens of ms on a slow host, BENCHMARKS.md); run at a turn's
end, as it was, it was the callback that a person typing the next prompt, or answering the
dialog of the next turn, waited behind. The counting
(every few turns, and when one has waited too long) is `startup.gc_tuning.IdleCollector`'s; a
collaborator of the app, which reports the person's input (`touched`) and each turn's end."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.app import App
    from textual.timer import Timer

    from agent_tui.ui.controllers.sessions import Sessions
    from agent_tui.ui.controllers.shortcuts import PromptShortcuts
    from agent_tui.ui.controllers.turns import TurnController
    from agent_tui.ui.startup.gc_tuning import IdleCollector

#: how long the person has not typed, clicked, scrolled or resized before a due collection runs
QUIET_S = 1.5


class QuietHost(Protocol):
    turns: TurnController
    shortcuts: PromptShortcuts
    sessions: Sessions


class QuietCollection:
    """Runs the collector's due full collection at the person's next pause (one check pending at
    most: a timer, set again for the time left while they are busy)."""

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
        #: when the person last typed, clicked, scrolled or resized the terminal (None: not yet)
        self.input_at: float | None = None
        #: the one check pending while a collection is due
        self._timer: Timer | None = None

    def touched(self) -> None:
        """A key, a mouse event or a resize: the person is here, a due collection waits."""
        self.input_at = self._clock()

    def after_turn(self) -> None:
        """A turn's answer is painted: count it, and wait for a pause if a collection is due."""
        if self.collector.after_turn() and self._timer is None:
            self._timer = self.app.set_timer(self.quiet_s, self._check, name="quiet collection")

    def quiet_left(self) -> float:
        """Seconds until the app counts as paused (0: it is)."""
        if self.busy:
            return self.quiet_s  # look again later
        if self.input_at is None:
            return 0.0
        return max(0.0, self.input_at + self.quiet_s - self._clock())

    @property
    def busy(self) -> bool:
        """Something is moving on screen, or a dialog waits for the person."""
        host = self.host
        running = host.turns.running or bool(host.shortcuts.running)
        return running or host.sessions.replay is not None or len(self.app.screen_stack) > 1

    def _check(self) -> None:
        self._timer = None
        if not self.collector.due:  # run meanwhile, overdue at a turn's end
            return
        left = self.quiet_left()
        if left > 0:
            self._timer = self.app.set_timer(left, self._check, name="quiet collection")
        else:
            self.collector.collect()
