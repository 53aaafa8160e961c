"""One foreground shell command run to its end: spawned in its own session (so its own process
group: a timeout or cancel signals the whole group, reaching background jobs and grandchildren
that a plain `proc.kill()` would orphan), its output streamed through a pipe we own (so reading
stops when the shell has exited but a background job still holds the pipe open), then its
sandbox finished and its change set settled.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.protocol.events import Notice
from agent_tui.tools.processes import PipeProtocol, kill_group

if TYPE_CHECKING:
    from agent_tui.sandbox.run import SandboxRun, Started
    from agent_tui.sandbox.settle import Settled
    from agent_tui.tools.base import ToolContext, ToolOutput

log = logging.getLogger(__name__)

#: characters of output kept in the result (head and tail); the middle of longer output is cut
OUTPUT_LIMIT = 30_000


class OutputCollector:
    """Keeps the first `limit/2` characters and a bounded tail of a stream of any size.

    Memory stays O(limit) however much the command prints: once the head is full, text goes to the
    tail, which is trimmed back to `limit/2` whenever it grows past `limit`.
    """

    def __init__(self, limit: int = OUTPUT_LIMIT) -> None:
        self.head_limit = limit // 2
        self.tail_limit = limit - self.head_limit
        self._head: list[str] = []
        self._head_len = 0
        self._tail = ""
        self.total_chars = 0
        self.newlines = 0
        self._last_char = ""

    def add(self, text: str) -> None:
        if not text:
            return
        self.total_chars += len(text)
        self.newlines += text.count("\n")
        self._last_char = text[-1]
        room = self.head_limit - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += min(room, len(text))
            text = text[room:]
        if text:
            self._tail += text
            if len(self._tail) > 2 * self.tail_limit:
                self._tail = self._tail[-self.tail_limit :]

    @property
    def lines(self) -> int:
        if self.total_chars == 0:
            return 0
        return self.newlines + (self._last_char != "\n")

    def text(self) -> str:
        head = "".join(self._head)
        if self.total_chars <= self.head_limit + self.tail_limit:
            return head + self._tail
        tail = self._tail[-self.tail_limit :]
        # Cut at line boundaries when one is near, so the model doesn't see half lines.
        nl = head.rfind("\n", max(0, len(head) - 2_000))
        if nl != -1:
            head = head[: nl + 1]
        nl = tail.find("\n", 0, 2_000)
        if nl != -1:
            tail = tail[nl + 1 :]
        cut = self.total_chars - len(head) - len(tail)
        sep = "" if head.endswith("\n") else "\n"
        return f"{head}{sep}[… {cut:,} characters cut …]\n{tail}"


class _Throttle:
    """Coalesces streamed output into at most one `progress` call per `interval` seconds.

    Leading and trailing edge: the first chunk after a quiet spell goes out at once, later ones wait
    for the timer, and `flush()` sends whatever is left when the command ends.
    """

    #: a single progress message never carries more than this (a flood would choke the UI)
    max_chars = 16_000

    def __init__(self, emit: Callable[[str], None], interval: float = 0.05) -> None:
        self._emit = emit
        self._interval = interval
        self._pending: list[str] = []
        self._pending_len = 0
        self._last = float("-inf")
        self._timer: asyncio.TimerHandle | None = None
        self._dropped = False
        self._loop = asyncio.get_running_loop()

    def add(self, text: str) -> None:
        if not text:
            return
        self._pending.append(text)
        self._pending_len += len(text)
        if self._pending_len > 4 * self.max_chars:
            # Keep the pending buffer bounded between flushes, too.
            joined = "".join(self._pending)
            self._pending = [joined[-self.max_chars :]]
            self._pending_len = self.max_chars
            self._dropped = True
        wait = self._last + self._interval - self._loop.time()
        if wait <= 0:
            self.flush()
        elif self._timer is None:
            self._timer = self._loop.call_later(wait, self.flush)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._pending:
            return
        text = "".join(self._pending)
        self._pending.clear()
        self._pending_len = 0
        if len(text) > self.max_chars or self._dropped:
            text = "[… output skipped …]\n" + text[-self.max_chars :]
            self._dropped = False
        self._last = self._loop.time()
        try:
            self._emit(text)
        except Exception:
            # A broken progress sink must not stop the command or lose its result.
            log.exception("progress callback failed")


@dataclass
class Ran:
    """How a command's process ended."""

    returncode: int | None
    timed_out: bool
    detached: bool
    duration: float
    timeout_ms: int


class CommandRun:
    """One foreground command: spawned in its own session, its output streamed, a timeout or a
    cancel taking its whole group down, then its sandbox finished and its change set settled."""

    def __init__(self, text: str, started: Started, ctx: ToolContext, tool: Any) -> None:
        self.text = text
        self.started = started
        self.ctx = ctx
        self.tool = tool
        self.collector = OutputCollector()
        self.throttle = _Throttle(lambda t: ctx.progress(output=t), tool.progress_interval_s)
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.undecodable = 0
        self.record: Path | None = None
        self.blocked: list[str] = []
        self.settled: Settled | None = None
        self._after_done = False

    def on_data(self, data: bytes) -> None:
        text = self.decoder.decode(data)
        self.undecodable += text.count("\ufffd")
        self.collector.add(text)
        self.throttle.add(text)

    async def execute(self, timeout_ms: int) -> Ran | ToolOutput:
        ctx, run = self.ctx, self.started.run
        clock = ctx.clock or time.monotonic
        began = clock()
        read_fd, write_fd = os.pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                *self.started.argv,
                cwd=ctx.cwd,
                stdin=subprocess.DEVNULL,
                stdout=write_fd,
                stderr=write_fd,
                start_new_session=True,
                env=self.started.env,
            )
        except OSError as exc:
            os.close(read_fd)
            from agent_tui.tools.base import ToolOutput

            return ToolOutput(f"Could not start bash: {exc}", is_error=True, summary="not started")
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)  # the child has its copies; ours would keep the pipe from EOF
        pgid = proc.pid  # start_new_session: the shell leads its own group
        if run is not None:
            run.started(pgid)
        elif ctx.sandbox is not None:
            self.record = ctx.sandbox.records.add(pgid)
        timed_out, detached = await self._wait(proc, read_fd, pgid, timeout_ms)
        return Ran(proc.returncode, timed_out, detached, clock() - began, timeout_ms)

    async def _wait(
        self, proc: asyncio.subprocess.Process, read_fd: int, pgid: int, timeout_ms: int
    ) -> tuple[bool, bool]:
        loop = asyncio.get_running_loop()
        pipe = os.fdopen(read_fd, "rb", buffering=0)
        protocol = PipeProtocol(self.on_data)
        transport: asyncio.BaseTransport | None = None
        timed_out = detached = False
        grace = self.tool.kill_grace_s
        try:
            transport, _ = await loop.connect_read_pipe(lambda: protocol, pipe)
            try:
                async with asyncio.timeout(timeout_ms / 1000):
                    await proc.wait()
            except TimeoutError:
                timed_out = True
                self.ctx.progress(status="timed out; stopping the command")
                await kill_group(pgid, grace)
                await proc.wait()
            try:
                await asyncio.wait_for(asyncio.shield(protocol.closed), self.tool.drain_s)
            except TimeoutError:
                # The shell is gone but something it started still holds the pipe (`server &`).
                detached = True
        except BaseException:
            # Cancelled (or failed): take the whole group down, children included.
            await kill_group(pgid, grace)
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(proc.wait(), grace)
            raise
        finally:
            if transport is not None:
                transport.close()
            else:
                pipe.close()
            tail = self.decoder.decode(b"", final=True)
            self.undecodable += tail.count("\ufffd")
            self.collector.add(tail)
            self.throttle.add(tail)
            self.throttle.flush()
        return timed_out, detached

    async def after(self, *, stopped: bool) -> None:
        """The sandbox finished and the change set settled — or, for a stopped command, held:
        nothing it wrote lands unless the person says so. Shielded: a second cancel can't
        skip it."""
        if self._after_done:
            return
        self._after_done = True
        run = self.started.run
        if run is None:
            from agent_tui.sandbox.reaper import Records

            Records.remove(self.record)
            return
        task = asyncio.ensure_future(self._settle(run, stopped))
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            await asyncio.wait([task])
            raise

    async def _settle(self, run: SandboxRun, stopped: bool) -> None:
        self.blocked = await run.finish(self.text, self.collector.text())
        ctx = self.ctx
        if stopped:
            run.hold("the command was stopped before it finished")
        else:
            review = ctx.review or ctx.sandbox.config.apply == "review"
            try:
                await run.settle(ctx.review_changes, review=review, blobs=ctx.blobs)
            except OSError as exc:  # the app's own folders (a full disk): held, output kept
                from agent_tui.sandbox.run import os_error_words

                run.hold(f"could not be applied: {os_error_words(exc)}")
        self.settled = run.settled
        held = self.settled.held_id if self.settled is not None else ""
        if stopped and held:
            ctx.emit(
                Notice(
                    "info",
                    "The stopped command's file changes are held, not applied: "
                    f"/changes (or `agent-tui changes show {held}`) reviews them.",
                )
            )
