"""The garbage collector in a headless run (issue 49): start-up's objects walked once at most,
and the heap left to the OS at exit.

**Start-up.** Our modules, the SDK's ~1,550 pydantic model classes with their fields and schemas,
the tools' schemas: ~300,000 objects made before the first answer arrives, and all of them live as
long as the process. With the default thresholds the collector walked them again and again on the
way there: ~350 young, ~30 middle and 3 full collections, ~0.28 s of CPU of a ~1.7 s turn
(BENCHMARKS.md, issue 49). So young collections wait (`STARTUP_THRESHOLD` net allocations) until
the first event of the first response, when the SDK is imported, its client made and the request
sent: what is alive then is frozen (`gc.freeze`, never walked again) and the thresholds that were
in force come back for what the turns make. What start-up left as cyclic garbage stays, once a
process (the UI does the same with its imports, `ui.startup.gc_tuning`).

**Exit.** As the interpreter tears itself down it runs full collections while it clears the
modules, each walking all that is left: 0.5-1.0 s of CPU and wall time after the answer was
printed, for memory the OS takes back anyway. Nothing of ours waits for the collector: the session
store is flushed and closed, the code caches written, the shells killed and the sandbox closed
before `main` returns, and the interpreter still runs every atexit handler and flushes stdout and
stderr. So the last atexit handler freezes the heap too: the closing collections then walk only
what teardown itself leaves, and objects freed by their reference counts are freed (and
finalized) as before. `tests/e2e/test_headless_gc_e2e.py` checks that a run's session is whole
and its database closed cleanly when the process is gone.
"""

from __future__ import annotations

import atexit
import gc

from agent_tui.protocol.events import Event, MessageStarted

#: the young generation's threshold from a headless run's start to its first response event
STARTUP_THRESHOLD = 1_000_000

#: the thresholds to come back to, while start-up lasts (None: it doesn't)
_restore: tuple[int, int, int] | None = None
_exit_registered = False


def start() -> None:
    """As a headless run begins: young collections wait for its first response, and the heap
    is frozen at the process's exit (registered once a process)."""
    global _restore, _exit_registered
    if not _exit_registered:
        _exit_registered = True
        # atexit calls its handlers last registered first; none of them, before or after this
        # one (logging's shutdown, weakref finalizers), needs the collector: each is a call.
        atexit.register(gc.freeze)
    if _restore is None:
        _restore = gc.get_threshold()
        young, middle, old = _restore
        gc.set_threshold(max(young, STARTUP_THRESHOLD), middle, old)


def on_event(event: Event) -> None:
    """An agent listener: the first response's first event ends start-up."""
    if _restore is not None and isinstance(event, MessageStarted):
        settle()


def settle() -> None:
    """Start-up is over: what it made is frozen (once a process, so that a test process running
    many sessions doesn't pin each one's objects) and the collector goes on as it was."""
    global _restore
    if _restore is not None:
        if gc.get_freeze_count() == 0:
            gc.freeze()
        gc.set_threshold(*_restore)
        _restore = None


def finish() -> None:
    """As the run ends, whether or not a response came: the thresholds as they were."""
    global _restore
    if _restore is not None:
        gc.set_threshold(*_restore)
        _restore = None
