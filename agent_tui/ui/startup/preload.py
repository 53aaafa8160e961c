"""A resumed session's reading modules, imported while the first frame waits for its tick.

Textual paints on a timer: once the first screen is mounted and styled, its first frame waits for
the screen's update timer, most of a frame (1/60 s) with the event loop idle. A resumed session's
boot reads the session's end and draws it after that frame (`booting.read_ahead`,
`Sessions.show_early`): `IdleImports` imports what that takes in the wait instead, one module per
event-loop step, until the frame is painted (`stop`, when the boot starts); the boot imports what
is left. The frame the person waits for there is the one that shows their conversation, so the
empty frame before it may wait for a step.

A new session imports nothing early: the boot worker imports the agent's modules after the
first frame. (Until 2026-12-07 a new session imported the boot's modules in that wait too. The
list was sized for imports that the dataclass code cache made cheap; without it (issue 48) one
module took up to 10 ms, the steps overran the wait and ran between the first frame's own, and
the first frame came 6-8 ms later, measured from the screen's mount: BENCHMARKS.md.)

`READ_AHEAD_MODULES` is in the order the imports complete (a module after the ones it imports),
so each step imports one module (a package whose `__init__` imports its modules: those too).
`tests/ui/test_preload.py` keeps it so.
"""

from __future__ import annotations

import asyncio
import importlib
import logging

log = logging.getLogger(__name__)

#: what the boot of a resumed session (`--resume ID`, `--continue`) imports to read the session's
#: end ahead and draw it (`booting.read_ahead`, `Sessions.show_early`), in the order the imports
#: complete: that boot's idle steps. Only those: the agent is built after that frame is painted
#: (`BootFlow._show_early`), so its modules, imported before, would only take CPU from the frame
#: the person waits for (issue 34). The events' module comes after that frame too, with reading
#: the whole (`ReadAhead.read_all`), unless the end shows a tool call (`history._called`).
READ_AHEAD_MODULES = (
    "agent_tui.ui.startup.booting",
    "agent_tui.protocol.usage",
    "agent_tui.protocol.values",
    "agent_tui.sessions.records",
    "agent_tui.sessions.repair",
    "sqlite3",
    "agent_tui.redact",
    "agent_tui.protocol.content",
    "agent_tui.sessions.search",
    "json",
    "agent_tui.sessions.audit",
    "agent_tui.sessions.chain",
    "agent_tui.sessions.event_buffer",
    "agent_tui.sessions.schema",
    "agent_tui.sessions.faults",
    "agent_tui.sessions.database",
    "agent_tui.sessions.catalog",
    "agent_tui.checkpoints",
    "agent_tui.checkpoints.blobs",
    "agent_tui.sessions.event_log",
    "agent_tui.sessions.checkpoint_log",
    "agent_tui.sessions.message_log",
    "agent_tui.sessions.run_log",
    "agent_tui.sessions.store",
    "agent_tui.sessions",
    "agent_tui.sessions.faults",
    "agent_tui.sessions.session_lock",
    "agent_tui.sessions.stored_session",
    "agent_tui.ui.widgets.history",
)


class IdleImports:
    """Imports `modules` one per event-loop step from `start` until `stop` (or the end)."""

    def __init__(self, modules: tuple[str, ...]) -> None:
        self._next = iter(modules)
        self._stopped = False
        #: how many steps ran (for tests and benchmarks)
        self.steps = 0

    def start(self) -> None:
        """From the UI thread, in the app's event loop (the first screen just mounted)."""
        asyncio.get_running_loop().call_soon(self._step)

    def stop(self) -> None:
        self._stopped = True

    def _step(self) -> None:
        if self._stopped:
            return
        name = next(self._next, None)
        if name is None:
            return
        try:
            importlib.import_module(name)
        except Exception:  # a broken install: the boot meets it too, and says so in the chat
            log.debug("preloading %s failed", name, exc_info=True)
            return
        self.steps += 1
        asyncio.get_running_loop().call_soon(self._step)
