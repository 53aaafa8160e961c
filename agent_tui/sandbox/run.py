"""One command as it is started — inside the sandbox (a `SandboxRun`, from its start to its
settled change set) or outside it under the reaper's guard — and what follows its end."""

from __future__ import annotations

import asyncio
import errno
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.sandbox.reaper import Records, guarded, remove_placeholder

if TYPE_CHECKING:
    from agent_tui.sandbox.layout import Layout
    from agent_tui.sandbox.live import LiveTransaction
    from agent_tui.sandbox.network import AskHost
    from agent_tui.sandbox.proxy import Proxy
    from agent_tui.sandbox.settle import ReviewFn, Settled
    from agent_tui.sandbox.transaction import Transaction


class CannotStart(RuntimeError):
    """A command the sandbox could not start; the message says why in one line, for the person
    and the model (nothing ran)."""


def os_error_words(exc: OSError) -> str:
    """An OS error of the app's own folders in words: a full disk said as one."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full"
    return exc.strerror or str(exc)


@dataclass
class SandboxRun:
    """One command started inside the sandbox: its argv, environment, layout, proxy and
    transaction, to `finish` and `settle` once its processes are gone."""

    argv: list[str]
    env: dict[str, str]
    layout: Layout
    proxy: Proxy | None
    records: Records
    txn: Transaction | None = None
    #: this command's own folder (the cache overlays' work dirs), removed when it finishes
    work: Path | None = None
    record: Path | None = None
    #: what the boundary stopped, once finished
    blocked: list[str] = field(default_factory=list)
    settled: Settled | None = None
    home_root: bool = False
    #: a background shell's transaction, synced and mirrored as it runs (`live.py`)
    live: LiveTransaction | None = None
    #: project folders git runs hooks from (the person's core.hooksPath), for the gate
    hook_folders: tuple[str, ...] = ()

    def started(self, pgid: int) -> None:
        """The command runs as process group `pgid`: record it for the reaper."""
        self.record = self.records.add(pgid, list(self.layout.placeholders))

    async def finish(self, command: str, output: str) -> list[str]:
        """After the sandbox's processes are gone: clean up; what was blocked."""
        if self.proxy is not None:
            await self.proxy.close()
        for path, kind in self.layout.placeholders:
            remove_placeholder(path, kind)
        if self.work is not None:
            shutil.rmtree(self.work, ignore_errors=True)
        Records.remove(self.record)
        from agent_tui.sandbox import report

        refused = list(self.proxy.refused) if self.proxy is not None else []
        self.blocked = report.blocked(self.layout, command, output, refused)
        return self.blocked

    async def settle(
        self,
        ask: ReviewFn | None,
        *,
        review: bool = False,
        blobs: Any = None,
        by: str = "Bash",
        nobody: str = "no one is there to approve it",
    ) -> Settled | None:
        """Judge and apply the change set (once); None when the command had no transaction (or
        a live one, which settles as it runs)."""
        if self.txn is None or self.live is not None:
            return None
        if self.settled is None:
            from agent_tui.sandbox.settle import settle

            self.settled = await settle(
                self.txn,
                ask=ask,
                review=review,
                blobs=blobs,
                by=by,
                home_root=self.home_root,
                nobody=nobody,
                visible=self.layout.is_visible,
                hook_folders=self.hook_folders,
            )
        return self.settled

    def hold(self, reason: str) -> None:
        """The command was stopped: its change set waits for the person, nothing is applied."""
        if self.txn is not None and self.settled is None:
            from agent_tui.sandbox.settle import Settled

            if self.txn.empty():
                self.txn.discard()
                self.settled = Settled()
                return
            self.txn.hold(reason)
            self.settled = Settled(held={"(all)": reason}, held_id=self.txn.id)


@dataclass(frozen=True, slots=True)
class Started:
    """A command ready to spawn: its argv and environment, and its sandbox run (None: it runs
    outside the sandbox, under the reaper's guard)."""

    argv: list[str]
    env: dict[str, str]
    run: SandboxRun | None


async def start_command(
    command: str,
    sandbox: Any,
    ask: AskHost | None = None,
    *,
    inside: bool = True,
    label: str = "",
    background: bool = False,
) -> Started:
    """`bash -c COMMAND` as it is started: inside `sandbox` when `inside` (a transaction where
    overlays work; a live one for a `background` shell), else outside under the reaper's guard,
    so nothing it starts outlives the app. `ask`: who answers the sandbox's network questions."""
    from agent_tui.sandbox.environment import command_environment, outside_environment

    argv = ["bash", "-c", command]
    if sandbox is None:
        return Started(guarded(argv), command_environment(os.environ), None)
    if inside and sandbox.active:
        run = await sandbox.prepare(argv, ask, label=label, background=background)
        return Started(run.argv, run.env, run)
    if sandbox.active:  # the person let it run outside: their environment, less the app's keys
        return Started(guarded(argv), outside_environment(os.environ), None)
    return Started(guarded(argv), sandbox.environment(), None)


async def shell_command(
    command: str, sandbox: Any, ask: AskHost | None = None
) -> tuple[list[str], SandboxRun | None]:
    """`start_command`'s argv and run (the caller spawns with its own environment)."""
    started = await start_command(command, sandbox, ask)
    return started.argv, started.run


def loopback(host: str) -> bool:
    import ipaddress

    if host in ("localhost", "localhost.") or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


async def after_command(
    run: SandboxRun | None,
    record: Path | None,
    command: str,
    output: str,
    *,
    ask: ReviewFn | None = None,
    blobs: Any = None,
) -> list[str]:
    """After a command: the sandbox's cleanup, its change set settled (with `ask`, or by the
    rules for when no one is asked) and what it blocked, or just the reaper's record gone. Runs
    on every way out (a cancel included), shielded so a second cancel can't skip it."""
    if run is None:
        Records.remove(record)
        return []

    async def both() -> list[str]:
        blocked = await run.finish(command, output)
        await run.settle(ask, blobs=blobs)
        return blocked

    task = asyncio.ensure_future(both())
    try:
        return list(await asyncio.shield(task))
    except asyncio.CancelledError:
        await asyncio.wait([task])
        raise
