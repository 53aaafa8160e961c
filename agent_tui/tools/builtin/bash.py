"""The `Bash` tool: run a shell command in the working directory, stream its output, and make sure
that a timeout or a cancel leaves nothing of it running.

The command gets its own session (so its own process group): a timeout or cancel signals the whole
group, which reaches background jobs and grandchildren that a plain `proc.kill()` would orphan.
Output goes through a pipe we own (not asyncio's subprocess pipes) so that we can stop reading when
the shell has exited but a background job still holds the pipe open.
"""

from __future__ import annotations

import logging
import signal
from typing import Any, ClassVar

from pydantic import AliasChoices, BaseModel, Field

from agent_tui.tools.base import Tool, ToolContext, ToolOutput
from agent_tui.tools.command_run import OUTPUT_LIMIT, CommandRun, OutputCollector, Ran

__all__ = ["OUTPUT_LIMIT", "BashInput", "BashTool", "OutputCollector"]

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000


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


def _describe_timeout(ms: int) -> str:
    s = ms / 1000
    if s >= 60 and s % 60 == 0:
        return f"{int(s // 60)} min"
    return f"{s:g}s"


class BashTool(Tool):
    name: ClassVar[str] = "Bash"
    subject_fields: ClassVar[tuple[str, ...]] = ("command", "description")
    order: ClassVar[int] = 10
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
        "- When the sandbox is on, a command sees the project through an overlay: what it "
        "writes there lands in the project when it ends, except protected files (git's config "
        "and hooks, .envrc, .claude/, *.pth, ...), which wait for the person; the result says "
        "what landed and what was held. It can't write outside the project (but /tmp), its HOME "
        "is the sandbox's own (toolchains are there read-only; no credentials), its environment "
        "has no secrets, and it reaches the network only through a proxy that asks the person "
        "for new hosts. A result saying `blocked by the sandbox` names what was stopped; only if "
        "the task needs it, send the call again with `dangerouslyDisableSandbox: true`."
    )
    input_model: ClassVar[type[BaseModel]] = BashInput
    read_only: ClassVar[bool] = False

    #: seconds between SIGTERM and SIGKILL
    kill_grace_s: float = 2.0
    #: after the shell exits, how long to wait for background jobs to release the output pipe
    drain_s: float = 0.5
    #: minimum seconds between two streamed progress messages
    progress_interval_s: float = 0.05

    def transactional(self, params: Any, ctx: ToolContext) -> bool:
        """The call's writes come back as a change set (a sandboxed foreground command where
        overlays work): its checkpoint is that change set, no snapshot is needed."""
        p: BashInput = params
        return not p.run_in_background and _inside(p, ctx) and ctx.sandbox.transactional

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        """The phases: the timeout and what refuses the call, then the command started
        (in the background, or in the sandbox or outside it), run, settled and reported."""
        p: BashInput = params
        timeout_ms, notes = _timeout(p)
        refused = _refusal(ctx)
        if refused is not None:
            return refused
        sandbox = ctx.sandbox
        inside = _inside(p, ctx)
        if p.run_in_background:
            from agent_tui.tools.shells import start_background

            return await start_background(p.command, ctx, outside=not inside)
        from agent_tui.sandbox.run import CannotStart, start_command

        if ctx.shells is not None:  # the background shells' writes land before it looks
            await ctx.shells.sync_all()
        try:
            started = await start_command(p.command, sandbox, ctx.ask_host, inside=inside)
        except CannotStart as exc:
            return ToolOutput(str(exc), is_error=True, summary="not started")
        command = CommandRun(p.command, started, ctx, self)
        try:
            ran = await command.execute(timeout_ms)
        except BaseException:
            await command.after(stopped=True)
            raise
        if isinstance(ran, ToolOutput):
            return ran
        await command.after(stopped=False)
        return self._output(p, ctx, ran, command, notes, inside)

    def _output(
        self,
        p: BashInput,
        ctx: ToolContext,
        ran: Ran,
        command: CommandRun,
        notes: list[str],
        inside: bool,
    ) -> ToolOutput:
        """The result: the output, then the notes on how the command ended, what the sandbox
        did with it and where it ran; a one-line summary; what the checkpoint needs."""
        rc = ran.returncode if ran.returncode is not None else -signal.SIGKILL
        killed_by = signal.Signals(-rc).name if rc < 0 else None
        exit_code = 128 - rc if rc < 0 else rc  # the shell's convention for signal deaths
        body = command.collector.text() or "(no output)"
        notes += _ending_notes(ran, command, exit_code, killed_by)
        notes += _sandbox_notes(p, ctx, command, inside)
        sep = "" if body.endswith("\n") else "\n"
        return ToolOutput(
            body + sep + "\n".join(notes),
            is_error=ran.timed_out or exit_code != 0,
            summary=_summary(ran, command, exit_code, killed_by),
            exit_code=exit_code,
            meta=_meta(ran, command, inside),
        )


def _ending_notes(
    ran: Ran, command: CommandRun, exit_code: int, killed_by: str | None
) -> list[str]:
    notes = []
    if ran.timed_out:
        notes.append(
            f"[timed out after {_describe_timeout(ran.timeout_ms)}; "
            "the command and its child processes were killed]"
        )
    if ran.detached:
        notes.append(
            "[the command exited but background processes it started still hold its output; "
            "they were left running and their further output is not captured]"
        )
    if command.undecodable:
        n = command.undecodable
        notes.append(
            f"[{n:,} byte sequence{'s were' if n != 1 else ' was'} not "
            "UTF-8 text (binary output?), each shown as \ufffd; to look at binary data use "
            "`xxd FILE | head` or `file FILE`]"
        )
    notes.append(
        f"[exit code {exit_code}" + (f" (killed by {killed_by})" if killed_by else "") + "]"
    )
    return notes


def _sandbox_notes(p: BashInput, ctx: ToolContext, command: CommandRun, inside: bool) -> list[str]:
    """What landed and what was held, what the sandbox blocked, or why it ran outside."""
    notes = []
    sandbox, blocked, settled = ctx.sandbox, command.blocked, command.settled
    if settled is not None and settled.note():
        notes.append(settled.note())
    if blocked:
        from agent_tui.sandbox.report import note

        notes.append(note(blocked))
    elif sandbox is not None and sandbox.active and p.dangerouslyDisableSandbox:
        notes.append("[ran outside the sandbox, as the person approved]")
    elif sandbox is not None and sandbox.active and not inside:
        notes.append("[ran outside the sandbox: the person's excludedCommands name it]")
    return notes


def _summary(ran: Ran, command: CommandRun, exit_code: int, killed_by: str | None) -> str:
    lines = command.collector.lines
    status = "timed out" if ran.timed_out else f"exit {exit_code}"
    if killed_by and not ran.timed_out:
        status += f" ({killed_by})"
    summary = f"{status} · {lines} line{'s' if lines != 1 else ''} · {ran.duration:.1f}s"
    settled, blocked = command.settled, command.blocked
    if settled is not None and settled.summary():
        summary += f" · {settled.summary()}"
    if blocked:
        summary += " · blocked by the sandbox: " + "; ".join(blocked)
    return summary


def _meta(ran: Ran, command: CommandRun, inside: bool) -> dict[str, Any]:
    collector, settled = command.collector, command.settled
    meta: dict[str, Any] = {
        "timed_out": ran.timed_out,
        "timeout_ms": ran.timeout_ms,
        "output_chars": collector.total_chars,
        "truncated": collector.total_chars > OUTPUT_LIMIT,
        "duration_s": ran.duration,
        "sandboxed": inside,
        "blocked": command.blocked,
    }
    if settled is not None:
        meta["changes"] = settled.entries
        meta["not_kept"] = settled.not_kept
        meta["held"] = dict(settled.held)
    return meta


def _timeout(p: BashInput) -> tuple[int, list[str]]:
    """The timeout the command runs with, and a note when the one asked for was clamped."""
    requested = p.timeout or DEFAULT_TIMEOUT_MS
    if requested <= MAX_TIMEOUT_MS:
        return requested, []
    return MAX_TIMEOUT_MS, [
        f"[timeout {requested} ms is above the maximum; clamped to {MAX_TIMEOUT_MS} "
        f"({_describe_timeout(MAX_TIMEOUT_MS)})]"
    ]


def _refusal(ctx: ToolContext) -> ToolOutput | None:
    """No working directory, or a sandbox that must run and can't: the call is refused."""
    if not ctx.cwd.is_dir():
        return ToolOutput(
            f"Working directory does not exist: {ctx.cwd}", is_error=True, summary="no cwd"
        )
    if ctx.sandbox is not None and ctx.sandbox.refusal:
        return ToolOutput(ctx.sandbox.refusal, is_error=True, summary="no sandbox: refused")
    return None


def _inside(p: BashInput, ctx: ToolContext) -> bool:
    sandbox = ctx.sandbox
    return (
        sandbox is not None
        and sandbox.active
        and not p.dangerouslyDisableSandbox
        and not sandbox.excluded(p.command)
    )
