"""The `Bash` tool: run a shell command in the working directory, stream its output, and make sure
that a timeout or a cancel leaves nothing of it running.

The command gets its own session (so its own process group): a timeout or cancel signals the whole
group, which reaches background jobs and grandchildren that a plain `proc.kill()` would orphan.
Output goes through a pipe we own (not asyncio's subprocess pipes) so that we can stop reading when
the shell has exited but a background job still holds the pipe open.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import signal
import subprocess
import time
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import AliasChoices, BaseModel, Field

from agent_tui.tools.base import Tool, ToolContext, ToolOutput
from agent_tui.tools.processes import PipeProtocol, kill_group

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
#: characters of output kept in the result (head and tail); the middle of longer output is cut
OUTPUT_LIMIT = 30_000


class BashInput(BaseModel):
    command: str = Field(min_length=1, description="The shell command to run (with `bash -c`).")
    timeout: int | None = Field(
        default=None,
        ge=1,
        # Claude Code's name; `timeout_ms` is still read, for sessions stored before the rename
        validation_alias=AliasChoices("timeout", "timeout_ms"),
        description=(
            f"Timeout in milliseconds (default {DEFAULT_TIMEOUT_MS}, max {MAX_TIMEOUT_MS}; "
            "larger values are clamped)."
        ),
    )
    description: str | None = Field(
        default=None,
        description="A few words saying what the command does, shown to the person.",
    )
    run_in_background: bool | None = Field(
        default=None,
        description="Run the command in the background; read its output later with BashOutput.",
    )
    dangerouslyDisableSandbox: bool | None = Field(
        default=None,
        description=(
            "Run this command outside the OS sandbox. Only after the sandbox blocked something "
            "the task really needs; the person is always asked."
        ),
    )


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


def _describe_timeout(ms: int) -> str:
    s = ms / 1000
    if s >= 60 and s % 60 == 0:
        return f"{int(s // 60)} min"
    return f"{s:g}s"


class BashTool(Tool):
    name: ClassVar[str] = "Bash"
    description: ClassVar[str] = (
        "Run a shell command with `bash -c` in the session's working directory and return its "
        "combined stdout and stderr, followed by the exit code.\n"
        "- Each call starts a fresh shell: `cd`, variables and aliases do not carry over to the "
        "next call. Use absolute paths or `cd dir && ...` within one command.\n"
        "- stdin is /dev/null and there is no terminal: interactive programs (editors, pagers, "
        "prompts) will not work; pass flags such as `--yes`/`-y` or `--no-pager`.\n"
        f"- Default timeout {DEFAULT_TIMEOUT_MS // 60_000} min, at most "
        f"{MAX_TIMEOUT_MS // 60_000} min via `timeout` (milliseconds); on timeout the command "
        "and all its child processes are killed.\n"
        f"- Output beyond {OUTPUT_LIMIT:,} characters is cut in the middle (start and end are "
        "kept); pipe through `head`, `tail` or `grep` to see the part you need.\n"
        "- Prefer the Read, Write and Edit tools over `cat`, `sed -i` or `echo >` for files.\n"
        "- Quote paths containing spaces. Chain dependent commands with `&&`.\n"
        "- `run_in_background: true` for servers and watchers: the call returns a shell ID at "
        "once; read new output with BashOutput and stop it with KillShell (never `&`).\n"
        "- Give `description` a few words on what the command does; the person sees it when "
        "approving.\n"
        "- When the sandbox is on, commands can write only inside the working directory and "
        "/tmp, can't read credentials, and reach the network only through a proxy that asks the "
        "person for new hosts. A result saying `blocked by the sandbox` names what was stopped; "
        "only if the task needs it, send the call again with `dangerouslyDisableSandbox: true`."
    )
    input_model: ClassVar[type[BaseModel]] = BashInput
    read_only: ClassVar[bool] = False

    #: seconds between SIGTERM and SIGKILL
    kill_grace_s: float = 2.0
    #: after the shell exits, how long to wait for background jobs to release the output pipe
    drain_s: float = 0.5
    #: minimum seconds between two streamed progress messages
    progress_interval_s: float = 0.05

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        p: BashInput = params
        clock = ctx.clock or time.monotonic
        requested = p.timeout or DEFAULT_TIMEOUT_MS
        timeout_ms = min(requested, MAX_TIMEOUT_MS)
        notes: list[str] = []
        if requested > MAX_TIMEOUT_MS:
            notes.append(
                f"[timeout {requested} ms is above the maximum; clamped to {MAX_TIMEOUT_MS} "
                f"({_describe_timeout(MAX_TIMEOUT_MS)})]"
            )
        if not ctx.cwd.is_dir():
            return ToolOutput(
                f"Working directory does not exist: {ctx.cwd}", is_error=True, summary="no cwd"
            )

        collector = OutputCollector()
        throttle = _Throttle(lambda text: ctx.progress(output=text), self.progress_interval_s)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

        undecodable = 0  # U+FFFD stand-ins for bytes that were not UTF-8 (binary output)

        def on_data(data: bytes) -> None:
            nonlocal undecodable
            text = decoder.decode(data)
            undecodable += text.count("\ufffd")
            collector.add(text)
            throttle.add(text)

        loop = asyncio.get_running_loop()
        started = clock()
        sandbox = ctx.sandbox
        if sandbox is not None and sandbox.refusal:
            return ToolOutput(sandbox.refusal, is_error=True, summary="no sandbox: refused")
        inside = (
            sandbox is not None
            and sandbox.active
            and not p.dangerouslyDisableSandbox
            and not sandbox.excluded(p.command)
        )
        if p.run_in_background:
            from agent_tui.tools.shells import start_background

            return await start_background(p.command, ctx, outside=not inside)
        from agent_tui.sandbox.runner import shell_command

        argv, run = await shell_command(p.command, sandbox if inside else None, ctx.ask_host)
        read_fd, write_fd = os.pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                cwd=ctx.cwd,
                stdin=subprocess.DEVNULL,
                stdout=write_fd,
                stderr=write_fd,
                start_new_session=True,
            )
        except BaseException as exc:
            os.close(read_fd)
            if run is not None:
                await run.finish(p.command, "")
            if not isinstance(exc, OSError):
                raise
            return ToolOutput(f"Could not start bash: {exc}", is_error=True, summary="not started")
        finally:
            os.close(write_fd)  # the child has its copies; ours would keep the pipe from EOF
        pgid = proc.pid  # start_new_session: the shell leads its own group
        record = None
        if run is not None:
            run.started(pgid)
        elif sandbox is not None:
            record = sandbox.records.add(pgid)
        pipe = os.fdopen(read_fd, "rb", buffering=0)
        protocol = PipeProtocol(on_data)
        transport: asyncio.BaseTransport | None = None
        timed_out = detached = False
        blocked: list[str] = []
        try:
            transport, _ = await loop.connect_read_pipe(lambda: protocol, pipe)
            try:
                async with asyncio.timeout(timeout_ms / 1000):
                    await proc.wait()
            except TimeoutError:
                timed_out = True
                ctx.progress(status="timed out; stopping the command")
                await kill_group(pgid, self.kill_grace_s)
                await proc.wait()
            try:
                await asyncio.wait_for(asyncio.shield(protocol.closed), self.drain_s)
            except TimeoutError:
                # The shell is gone but something it started still holds the pipe (`server &`).
                detached = True
        except BaseException:
            # Cancelled (or failed): take the whole group down, children included.
            await kill_group(pgid, self.kill_grace_s)
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(proc.wait(), self.kill_grace_s)
            raise
        finally:
            if transport is not None:
                transport.close()
            else:
                pipe.close()
            tail = decoder.decode(b"", final=True)
            undecodable += tail.count("\ufffd")
            collector.add(tail)
            throttle.add(tail)
            throttle.flush()
            if run is not None or record is not None:
                from agent_tui.sandbox.runner import after_command

                blocked = await after_command(run, record, p.command, collector.text())

        duration = clock() - started
        rc = proc.returncode if proc.returncode is not None else -signal.SIGKILL
        killed_by = signal.Signals(-rc).name if rc < 0 else None
        exit_code = 128 - rc if rc < 0 else rc  # the shell's convention for signal deaths

        body = collector.text() or "(no output)"
        if timed_out:
            notes.append(
                f"[timed out after {_describe_timeout(timeout_ms)}; "
                "the command and its child processes were killed]"
            )
        if detached:
            notes.append(
                "[the command exited but background processes it started still hold its output; "
                "they were left running and their further output is not captured]"
            )
        if undecodable:
            notes.append(
                f"[{undecodable:,} byte sequence{'s were' if undecodable != 1 else ' was'} not "
                "UTF-8 text (binary output?), each shown as \ufffd; to look at binary data use "
                "`xxd FILE | head` or `file FILE`]"
            )
        notes.append(
            f"[exit code {exit_code}" + (f" (killed by {killed_by})" if killed_by else "") + "]"
        )
        if blocked:
            from agent_tui.sandbox.report import note

            notes.append(note(blocked))
        elif sandbox is not None and sandbox.active and p.dangerouslyDisableSandbox:
            notes.append("[ran outside the sandbox, as the person approved]")
        elif sandbox is not None and sandbox.active and not inside:
            notes.append("[ran outside the sandbox: the person's excludedCommands name it]")
        sep = "" if body.endswith("\n") else "\n"
        content = body + sep + "\n".join(notes)

        lines = collector.lines
        status = "timed out" if timed_out else f"exit {exit_code}"
        if killed_by and not timed_out:
            status += f" ({killed_by})"
        summary = f"{status} · {lines} line{'s' if lines != 1 else ''} · {duration:.1f}s"
        if blocked:
            summary += " · blocked by the sandbox: " + "; ".join(blocked)
        return ToolOutput(
            content,
            is_error=timed_out or exit_code != 0,
            summary=summary,
            exit_code=exit_code,
            meta={
                "timed_out": timed_out,
                "timeout_ms": timeout_ms,
                "output_chars": collector.total_chars,
                "truncated": collector.total_chars > OUTPUT_LIMIT,
                "duration_s": duration,
                "sandboxed": inside,
                "blocked": blocked,
            },
        )
