"""Background shells: Bash's `run_in_background`, read with `BashOutput`, stopped with `KillShell`
(Claude Code's names and inputs).

A background shell is spawned exactly as a foreground Bash call (its own process group; inside the
OS sandbox when that is on; under the reaper's guard and record otherwise), but the call returns
at once with the shell's id. Its output is kept bounded (`OUTPUT_KEPT` characters: older output is
dropped, and the next read says how much). Quitting the app kills every shell; `kill -9` of the app
leaves none (the sandbox's `--die-with-parent`, the guard's PDEATHSIG, the next start's reaper).
Textual-free: the UI reads `ShellRegistry.shells` on a timer.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_tui.tools.base import ToolContext, ToolOutput

from agent_tui.protocol.events import Notice

#: characters of a background shell's output kept (the newest); older output is dropped
OUTPUT_KEPT = 100_000


class ShellOutput:
    """A stream's newest `limit` characters, with a read cursor: `read_new()` gives what came
    since the last read and how much of it was dropped unread."""

    def __init__(self, limit: int = OUTPUT_KEPT) -> None:
        self.limit = limit
        self._text = ""
        self._start = 0  # stream offset of _text[0]
        self._read = 0  # stream offset read up to
        self.total = 0

    def add(self, text: str) -> None:
        if not text:
            return
        self._text += text
        self.total += len(text)
        if len(self._text) > 2 * self.limit:  # trim in steps: O(1) amortised per character
            cut = len(self._text) - self.limit
            self._text = self._text[cut:]
            self._start += cut

    def _trimmed(self) -> None:
        if len(self._text) > self.limit:
            cut = len(self._text) - self.limit
            self._text = self._text[cut:]
            self._start += cut

    def read_new(self) -> tuple[int, str]:
        """(characters dropped before they were read, the new text)."""
        self._trimmed()
        begin = max(self._read, self._start)
        dropped = begin - self._read
        text = self._text[begin - self._start :]
        self._read = self._start + len(self._text)
        return dropped, text

    def last_line(self) -> str:
        for line in reversed(self._text[-4_000:].splitlines()):
            if line.strip():
                return line.strip()
        return ""


@dataclass
class BackgroundShell:
    """One background shell: its command, process and bounded output, and how it ended."""

    id: str
    command: str
    started: float
    pgid: int
    proc: asyncio.subprocess.Process
    output: ShellOutput = field(default_factory=ShellOutput)
    sandboxed: bool = False
    killed: bool = False
    blocked: list[str] = field(default_factory=list)
    done: asyncio.Event = field(default_factory=asyncio.Event)
    #: its sandbox run (`sandbox.run.SandboxRun`; its `live` transaction syncs as it runs)
    run: Any = None

    @property
    def exit_code(self) -> int | None:
        rc = self.proc.returncode
        if rc is None:
            return None
        return 128 - rc if rc < 0 else rc

    @property
    def status(self) -> str:
        """Claude Code's words: running, completed, failed, killed."""
        if self.killed:
            return "killed"
        if self.proc.returncode is None:
            return "running"
        return "completed" if self.exit_code == 0 else "failed"


class ShellRegistry:
    """The session's background shells by id (`bash_1`, `bash_2`, …)."""

    kill_grace_s = 2.0
    #: seconds between two syncs of the running shells' changes while the agent works
    sync_interval_s = 1.5

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.shells: dict[str, BackgroundShell] = {}
        self._n = 0
        self._watchers: set[asyncio.Task[None]] = set()
        #: the agent's checkpoints (`attach`): where synced changes are recorded for undo
        self.checkpoints: Any = None
        self.emit: Callable[[Any], None] = lambda _event: None
        #: whether the agent is working (syncs run on a timer only then)
        self.working: Callable[[], bool] = lambda: False
        self._syncer: asyncio.Task[None] | None = None
        self.ports: Any = None

    def attach(
        self, checkpoints: Any, emit: Callable[[Any], None], working: Callable[[], bool]
    ) -> None:
        """The agent that runs the shells: its checkpoints, its events, whether it works."""
        self.checkpoints, self.emit, self.working = checkpoints, emit, working

    def running(self) -> list[BackgroundShell]:
        return [s for s in self.shells.values() if s.status == "running"]

    def get(self, shell_id: str) -> BackgroundShell | None:
        return self.shells.get(shell_id.strip())

    async def start(self, command: str, ctx: Any, *, outside: bool = False) -> BackgroundShell:
        """Spawn `command` in the background (the sandbox's wall as for any Bash call, unless
        `outside`: the person approved leaving it, or excludedCommands name it)."""
        from agent_tui.sandbox.run import start_command

        sandbox = ctx.sandbox
        inside = sandbox is not None and sandbox.active and not outside
        label = f"bash_{self._n + 1}"
        started = await start_command(
            command, sandbox, ctx.ask_host, inside=inside, label=label, background=True
        )
        argv, run = started.argv, started.run
        # Output is read as it comes: Python's own buffering would hide it until exit.
        env = {**started.env, "PYTHONUNBUFFERED": "1"}
        read_fd, write_fd = os.pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, cwd=ctx.cwd, stdin=subprocess.DEVNULL, stdout=write_fd, stderr=write_fd,
                start_new_session=True, env=env,
            )  # fmt: skip
        except BaseException:
            os.close(read_fd)
            if run is not None:
                await run.finish(command, "")
            raise
        finally:
            os.close(write_fd)
        self._n += 1
        shell = BackgroundShell(
            f"bash_{self._n}", command, self.clock(), proc.pid, proc, sandboxed=inside, run=run
        )
        record: Path | None = None
        if run is not None:
            run.started(proc.pid)
        elif sandbox is not None:
            record = sandbox.records.add(proc.pid)
        self.shells[shell.id] = shell
        task = asyncio.ensure_future(self._watch(shell, read_fd, run, record))
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)
        if (
            run is not None
            and run.live is not None
            and (self._syncer is None or self._syncer.done())
        ):
            self._syncer = asyncio.ensure_future(self._sync_loop())
        if inside and sandbox is not None:
            from agent_tui.tools.shell_ports import watch_ports

            watch_ports(self, sandbox, ctx)
        return shell

    # --- a live shell's changes ---

    def live(self) -> list[BackgroundShell]:
        return [s for s in self.running() if s.run is not None and getattr(s.run, "live", None)]

    async def sync(self, shell: BackgroundShell, *, final: bool = False) -> None:
        """Land what `shell` changed since its last sync (through the gate); record it for
        undo and say what is held."""
        live = shell.run.live
        blobs = getattr(self.checkpoints, "blobs", None)
        try:
            done = await (live.finish(blobs=blobs) if final else live.sync(blobs=blobs))
        except (OSError, RuntimeError) as exc:
            self.emit(Notice("warning", f"{shell.id}: its changes could not be synced ({exc})"))
            return
        if done.entries and self.checkpoints is not None:
            self.checkpoints.record_background(shell.id, shell.command, done.entries)
        elif done.applied:  # no checkpoints to record in: the other shells see it all the same
            self.mirror([str(shell.run.live.txn.lower / r) for r in done.applied], shell.id)
        for rel, why in done.held.items():
            self.emit(Notice("warning", f"{shell.id} changed {rel}: held back ({why}); /changes"))

    async def sync_all(self) -> None:
        for shell in self.live():
            await self.sync(shell)

    async def _sync_loop(self) -> None:
        while self.live():
            await asyncio.sleep(self.sync_interval_s)
            if self.working():
                await self.sync_all()

    def on_event(self, event: Any) -> None:
        """What the agent changed in the project reaches the running shells' views."""
        paths, origin = changed_paths(event)
        if paths:
            self.mirror(paths, origin)

    def mirror(self, paths: list[str], origin: str | None = None) -> None:
        """Write `paths` as they are now through each running shell's overlay but `origin`'s."""
        for shell in self.live():
            if shell.id == origin:
                continue
            live = shell.run.live
            rels = [str(Path(p).relative_to(live.txn.lower)) for p in paths if _under(p, live)]
            if rels:
                task = asyncio.ensure_future(live.mirror(rels))
                self._watchers.add(task)
                task.add_done_callback(self._watchers.discard)

    async def _watch(self, shell: BackgroundShell, read_fd: int, run: Any, record: Any) -> None:
        from agent_tui.tools.processes import PipeProtocol

        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        protocol = PipeProtocol(lambda data: shell.output.add(decoder.decode(data)))
        pipe = os.fdopen(read_fd, "rb", buffering=0)
        transport: asyncio.BaseTransport | None = None
        try:
            loop = asyncio.get_running_loop()
            transport, _ = await loop.connect_read_pipe(lambda: protocol, pipe)
            await shell.proc.wait()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(protocol.closed), 0.5)
        finally:
            if transport is not None:
                transport.close()
            else:
                pipe.close()
            shell.output.add(decoder.decode(b"", final=True))
            from agent_tui.sandbox.run import after_command

            with contextlib.suppress(Exception):
                shell.blocked = await after_command(run, record, shell.command, "")
            if run is not None and run.live is not None:
                await self.sync(shell, final=True)
            shell.done.set()

    async def kill(self, shell: BackgroundShell) -> None:
        """Stop the shell's whole process group (SIGTERM, then SIGKILL after a grace)."""
        from agent_tui.tools.processes import kill_group

        if shell.proc.returncode is None:
            shell.killed = True
            await kill_group(shell.pgid, self.kill_grace_s)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(shell.done.wait(), self.kill_grace_s + 1)

    async def kill_all(self) -> None:
        await asyncio.gather(*(self.kill(s) for s in self.running()), return_exceptions=True)

    def kill_all_now(self) -> None:
        """SIGKILL every running shell's group at once (no grace): for a synchronous exit."""
        import signal

        from agent_tui.tools.processes import signal_group

        for shell in self.running():
            shell.killed = True
            signal_group(shell.pgid, signal.SIGKILL)


_SHELL_ID = re.compile(r"(bash_\d+)[-:]")


def changed_paths(event: Any) -> tuple[list[str], str | None]:
    """The files an event says changed in the project (a call's change set or write, a held
    set applied, an undo, a background shell's sync), and the shell whose sync it was."""
    from agent_tui.protocol.events import ChangeRecorded, FilesChanged, FilesRestored

    if isinstance(event, ChangeRecorded):
        origin = _SHELL_ID.match(event.tool_use_id)
        return [str(f["path"]) for f in event.files], origin.group(1) if origin else None
    if isinstance(event, FilesChanged):
        origin = _SHELL_ID.match(event.prompt)
        return [str(f["path"]) for f in event.files], origin.group(1) if origin else None
    if isinstance(event, FilesRestored):
        return list(event.restored), None
    return [], None


def _under(path: str, live: Any) -> bool:
    return Path(path).is_relative_to(live.txn.lower)


async def start_background(command: str, ctx: ToolContext, *, outside: bool) -> ToolOutput:
    """Bash with `run_in_background`: the shell's id for the model, at once."""
    from agent_tui.tools.base import ToolOutput

    if ctx.shells is None:
        return ToolOutput("Background shells are not available here.", is_error=True)
    from agent_tui.sandbox.run import CannotStart

    try:
        shell = await ctx.shells.start(command, ctx, outside=outside)
    except CannotStart as exc:
        return ToolOutput(str(exc), is_error=True, summary="not started")
    except OSError as exc:
        return ToolOutput(f"Could not start bash: {exc}", is_error=True, summary="not started")
    where = " (in the sandbox)" if shell.sandboxed else ""
    return ToolOutput(
        f"Command running in background with ID: {shell.id}{where}",
        summary=f"background {shell.id}",
        meta={"background": shell.id, "sandboxed": shell.sandboxed},
    )


def describe_output(shell: BackgroundShell, pattern: str | None) -> str:
    """BashOutput's answer: the status, the exit code once there is one, and the output since the
    last read (only the lines matching `pattern`, when given: the others are consumed too)."""
    dropped, text = shell.output.read_new()
    if pattern:
        regex = re.compile(pattern)
        text = "".join(line for line in text.splitlines(True) if regex.search(line))
    parts = [f"<status>{shell.status}</status>"]
    if shell.exit_code is not None:
        parts.append(f"<exit_code>{shell.exit_code}</exit_code>")
    if dropped:
        kept = f"the newest {OUTPUT_KEPT:,} are kept"
        text = f"[… {dropped:,} characters of older output dropped unread ({kept}) …]\n{text}"
    parts.append(f"<stdout>\n{text.rstrip()}\n</stdout>" if text.strip() else "<stdout></stdout>")
    if shell.blocked:
        from agent_tui.sandbox.report import note

        parts.append(note(shell.blocked))
    return "\n".join(parts)


def age(seconds: float) -> str:
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"
