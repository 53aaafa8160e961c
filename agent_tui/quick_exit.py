"""A headless run's exit without the interpreter's closing collections walking the whole heap.

With the SDK imported the heap holds its ~1,550 pydantic model classes, their fields and
schemas. As the interpreter tears itself down it runs full collections while it clears the
modules, and each walks all of that: 0.5-1.0 s of CPU and wall time after the answer was printed
(BENCHMARKS.md, issue 49), for memory the OS takes back anyway.

Nothing of ours waits for the collector: the session store is flushed and closed, the code
caches written, the shells killed and the sandbox closed before `main` returns, and the
interpreter still runs every atexit handler and flushes stdout and stderr. So the last atexit
handler moves what is alive to the permanent generation (`gc.freeze`): the closing collections
then walk only what teardown itself leaves, and objects freed by their reference counts are
freed (and finalized) as before. `tests/e2e/test_headless_exit_e2e.py` checks that a run's
session is whole and its database closed cleanly when the process is gone.
"""

from __future__ import annotations

import atexit
import gc

_registered = False


def skip_closing_collections() -> None:
    """At this process's exit, leave the heap to the OS (once a process; harmless in a test
    process, whose own exit is the one sped up)."""
    global _registered
    if not _registered:
        _registered = True
        # atexit calls its handlers last registered first; none of them, before or after this
        # one (logging's shutdown, weakref finalizers), needs the collector: each is a call.
        atexit.register(gc.freeze)
