"""A command's process group and its output pipe: what the Bash tool and background shells share."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable


class PipeProtocol(asyncio.Protocol):
    def __init__(self, on_data: Callable[[bytes], None]) -> None:
        self._on_data = on_data
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        self._on_data(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


def signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to the group; False when no process of it is left."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        # PermissionError: macOS reports it for a group of only zombies.
        return False
    return True


async def kill_group(pgid: int, grace: float) -> None:
    """SIGTERM the group, give it `grace` seconds to exit, then SIGKILL whatever is left."""
    try:
        if not signal_group(pgid, signal.SIGTERM):
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while loop.time() < deadline and signal_group(pgid, 0):
            await asyncio.sleep(0.02)
    finally:
        # Also on a second cancel while waiting: never leave the group running.
        signal_group(pgid, signal.SIGKILL)
