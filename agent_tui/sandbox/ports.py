"""Ports a background shell's server listens on in the session's network namespace, carried to the
person's loopback once allowed: the person's `[sandbox.network] forwardPorts`, a port they said
"always" to in this project (kept in the app's data folder, never in the project), yolo mode, or
a one-key answer ("bash_1 listens on 5173 — forward it?"). Headless, only the settings do.

Watched while background shells run (a look at the namespace's socket table a second); a port
goes when its server stops, when its shell is killed, and when the app exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.sandbox.netns import Forward, Holder, owner_of

#: ask the person: (shell id, port) -> "once", "always" or "deny"
AskForward = Callable[[str, int], Awaitable[str]]


def _remembered(file: Path, project: Path) -> set[int]:
    try:
        data = json.loads(file.read_text("utf-8"))
        return {int(p) for p in data.get(str(project), [])}
    except (OSError, ValueError, TypeError, AttributeError):
        return set()


def remember(file: Path, project: Path, port: int) -> None:
    """ "Always" for `port` in `project` (best effort: said, never fatal)."""
    try:
        data = json.loads(file.read_text("utf-8")) if file.exists() else {}
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    ports = sorted({*data.get(str(project), []), port})
    data[str(project)] = ports
    with contextlib.suppress(OSError):
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp = file.with_suffix(".tmp")
        tmp.write_text(json.dumps(data), "utf-8")
        tmp.replace(file)


@dataclass
class PortWatch:
    """Watches the namespace for listening ports and forwards the allowed ones."""

    holder: Holder
    project: Path
    #: the running background shells: pgid -> shell id
    shells: Callable[[], dict[int, str]]
    ask: AskForward | None
    say: Callable[[str, str], None]
    settings: tuple[int, ...] = ()
    yolo: Callable[[], bool] = lambda: False
    remembered_file: Path | None = None
    interval_s: float = 1.0
    #: port -> its forward (the host's port is `host_port`)
    forwards: dict[int, Forward] = field(default_factory=dict)
    #: port -> the shell that listens on it
    owners: dict[int, str] = field(default_factory=dict)
    _decided: set[int] = field(default_factory=set)
    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._watch())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for port in list(self.forwards):
            await self._drop(port)

    def of(self, shell: str) -> dict[int, int]:
        """The ports of `shell` that are forwarded: namespace port -> host port."""
        return {p: f.host_port for p, f in self.forwards.items() if self.owners.get(p) == shell}

    async def _watch(self) -> None:
        while True:
            await self.look()
            if not self.shells():
                for port in list(self.forwards):
                    await self._drop(port)
            await asyncio.sleep(self.interval_s)

    async def look(self) -> None:
        """One look at the namespace: new ports decided, gone ones dropped."""
        listening = await asyncio.to_thread(self.holder.listening)
        for port in list(self.forwards):
            if port not in listening:
                await self._drop(port)
        shells = self.shells()
        for port, inode in listening.items():
            if port in self._decided or not shells:
                continue
            owner = await asyncio.to_thread(owner_of, inode, shells)
            if owner is None:
                continue  # a proxy bridge, or a foreground command's: not offered
            self._decided.add(port)
            self.owners[port] = owner
            await self._decide(owner, port)

    async def _decide(self, shell: str, port: int) -> None:
        remembered = (
            _remembered(self.remembered_file, self.project) if self.remembered_file else set()
        )
        if port in self.settings or port in remembered or self.yolo():
            await self._open(shell, port)
            return
        if self.ask is None:
            self.say(
                "info",
                f"{shell} listens on {port} in the sandbox; not forwarded to this machine "
                f"(no one to ask: [sandbox.network] forwardPorts = [{port}] allows it)",
            )
            return
        answer = await self.ask(shell, port)
        if answer == "always" and self.remembered_file is not None:
            remember(self.remembered_file, self.project, port)
        if answer in ("once", "always", "session"):
            await self._open(shell, port)

    async def _open(self, shell: str, port: int) -> None:
        forward = Forward(self.holder, port)
        try:
            host = await forward.start()
        except OSError as exc:
            self.say("warning", f"{shell} listens on {port}; it could not be forwarded ({exc})")
            return
        self.forwards[port] = forward
        where = f"http://127.0.0.1:{host}/"
        moved = "" if host == port else f" ({port} is taken on this machine)"
        self.say("info", f"{shell} listens on {port}: forwarded to {where}{moved}")

    async def _drop(self, port: int) -> None:
        forward = self.forwards.pop(port, None)
        self._decided.discard(port)
        self.owners.pop(port, None)
        if forward is not None:
            await forward.close()
