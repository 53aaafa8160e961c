"""Running hooks: every command matching an event (and, for tool events, the tool's name) runs at
once, in its own process group, with the event's JSON on stdin and `CLAUDE_PROJECT_DIR` set. Each
has its timeout (then its whole group is killed), so a hook never hangs the app; what a hook that
can't start or fails does is its `onFailure`'s (`outcome.judge`).

The person's own hooks (their settings.toml, ~/.claude/settings.json, `--settings`, a managed
file) run outside the OS sandbox, as the person's code, with their whole environment, as Claude
Code runs them: a logger writes its log where it likes, a script under /tmp is there. They run
under the reaper's guard, so none outlives the app. A project's hooks run only once the person
trusts the project (`trusted()` is asked each time, so trusting it in the dialog takes effect at
once), and inside the sandbox when it is on: they are the repository's code, which any commit
can change.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.hooks.config import HookCommand, HookSettings
from agent_tui.tools.processes import PipeProtocol

#: characters of a hook's stdout and stderr kept
OUTPUT_KEPT = 20_000
#: bytes of each kept in memory (room for OUTPUT_KEPT characters of UTF-8): the rest is read and
#: dropped as it arrives, so a hook that writes without end costs the app no more than this
BYTES_KEPT = OUTPUT_KEPT * 4
#: how long a hook's pipes are read after it exits or is killed (something it started that left
#: its group may hold them open)
DRAIN_S = 1.0


@dataclass
class HookRun:
    """One hook command's run: its exit code (None: timed out or didn't start) and its output."""

    hook: HookCommand
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    error: str = ""


class HookRunner:
    def __init__(
        self,
        settings: HookSettings,
        cwd: Path,
        *,
        trusted: Callable[[], bool] = lambda: False,
        sandbox: Any = None,
        session_id: Callable[[], str] = lambda: "",
        mode: Callable[[], str] = lambda: "default",
    ) -> None:
        self.settings = settings
        self.cwd = cwd
        self.trusted = trusted
        self.sandbox = sandbox
        self.session_id = session_id
        self.mode = mode
        #: how many times a Stop hook sent the model on in this turn (`agent.turn_hooks`), and
        #: a SubagentStop hook each sub-agent (by its conversation's id)
        self.stop_runs = 0
        self.subagent_stops: dict[int, int] = {}
        #: SessionStart's `source` for the next prompt (None: it ran for this session)
        self.session_source: str | None = "startup"

    @property
    def warnings(self) -> list[str]:
        return self.settings.warnings

    @property
    def untrusted(self) -> tuple[str, ...]:
        """The project's hooks, as the trust dialog lists them (they wait for trust)."""
        if self.trusted():
            return ()
        return tuple(
            f"{c.describe()}  ({_shown(c.path, self.cwd)})"
            for c in self.settings.commands
            if not c.own
        )

    def matching(self, event: str, tool: str | None = None) -> list[HookCommand]:
        trusted = self.trusted()
        return [
            c
            for c in self.settings.commands
            if c.event == event and (c.own or trusted) and c.matches(tool)
        ]

    def payload(self, event: str, fields: dict[str, Any]) -> dict[str, Any]:
        """Claude Code's common input fields, then the event's own."""
        return {
            "session_id": self.session_id(),
            "transcript_path": "",
            "cwd": str(self.cwd),
            "permission_mode": _claude_mode(self.mode()),
            "hook_event_name": event,
            **fields,
        }

    async def run(
        self, event: str, fields: dict[str, Any], tool: str | None = None
    ) -> list[HookRun]:
        hooks = self.matching(event, tool)
        if not hooks:
            return []
        data = json.dumps(self.payload(event, fields), ensure_ascii=False, default=str).encode()
        return list(await asyncio.gather(*(self._one(h, data) for h in hooks)))

    async def _one(self, hook: HookCommand, data: bytes) -> HookRun:
        from agent_tui.tools.processes import kill_group

        run: Any = None
        pipes: _OutputPipes | None = None
        try:
            argv, run = await self._argv(hook)
            env = {
                # a project's hook inside the sandbox gets its allow-list; the person's, theirs
                **(run.env if run is not None else os.environ),
                "CLAUDE_PROJECT_DIR": str(self.cwd),
                "AGENT_TUI_PROJECT_DIR": str(self.cwd),
                **dict(hook.env),
            }
            pipes = _OutputPipes()
            try:
                proc = await asyncio.create_subprocess_exec(
                    *argv, cwd=self.cwd, stdin=subprocess.PIPE, stdout=pipes.stdout_w,
                    stderr=pipes.stderr_w, start_new_session=True, env=env,
                )  # fmt: skip
            finally:
                pipes.started()
        except (OSError, RuntimeError) as exc:
            if pipes is not None:
                pipes.close()
            if run is not None:
                await run.finish(hook.command, "")
            return HookRun(hook, None, "", "", error=f"could not start: {exc}")
        if run is not None:
            run.started(proc.pid)
        try:
            await pipes.connect()
            async with asyncio.timeout(hook.timeout):
                await asyncio.gather(_feed(proc, data), proc.wait())
                await pipes.drained()
        except TimeoutError:
            await kill_group(proc.pid, 1.0)
            with contextlib.suppress(Exception):
                await proc.wait()
            return HookRun(hook, None, "", "", timed_out=True)
        except BaseException:
            await kill_group(proc.pid, 1.0)
            raise
        finally:
            pipes.close()
            if run is not None:
                from agent_tui.sandbox.run import after_command

                with contextlib.suppress(Exception):
                    # its change set lands by the gate's rules: no one is asked from a hook
                    await after_command(run, None, hook.command, "")
        code = proc.returncode
        if code is not None and code < 0:  # killed by a signal: it crashed
            return HookRun(hook, code, "", "", error=f"was killed by signal {-code}")
        return HookRun(hook, code, pipes.stdout.text(), pipes.stderr.text())

    async def _argv(self, hook: HookCommand) -> tuple[list[str], Any]:
        """How `hook` is started: the person's own outside the sandbox, under the guard; a
        project's inside the sandbox when it is on (its run, to finish after)."""
        from agent_tui.sandbox.reaper import guarded

        sandbox = self.sandbox
        if hook.own or sandbox is None or not sandbox.active:
            return guarded(["bash", "-c", hook.command]), None
        from agent_tui.sandbox.run import shell_command

        return await shell_command(hook.command, sandbox)


async def _feed(proc: asyncio.subprocess.Process, data: bytes) -> None:
    """The event's JSON on the hook's stdin; a hook needn't read it (a closed pipe is fine)."""
    stdin = proc.stdin
    assert stdin is not None
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.write(data)
        await stdin.drain()
    stdin.close()


class _Kept:
    """One output pipe's first BYTES_KEPT bytes; what comes after is dropped as it arrives."""

    def __init__(self) -> None:
        self.kept = bytearray()

    def add(self, data: bytes) -> None:
        room = BYTES_KEPT - len(self.kept)
        if room > 0:
            self.kept += data[:room]

    def text(self) -> str:
        return self.kept.decode("utf-8", "replace")[:OUTPUT_KEPT]


class _OutputPipes:
    """A hook's stdout and stderr through pipes of our own, read as the data comes (asyncio's
    `communicate` keeps all of it: a hook running `yes` grew the app past 1 GB before its
    timeout) and closed by us however the hook ends, so no transport is left to the garbage
    collector after the loop has closed ("Exception ignored … Event loop is closed")."""

    def __init__(self) -> None:
        self.stdout, self.stderr = _Kept(), _Kept()
        self.stdout_r, self.stdout_w = os.pipe()
        self.stderr_r, self.stderr_w = os.pipe()
        self.transports: list[asyncio.BaseTransport] = []
        self.protocols: list[PipeProtocol] = []
        self.files = [os.fdopen(fd, "rb", buffering=0) for fd in (self.stdout_r, self.stderr_r)]

    def started(self) -> None:
        """The child has its copies of the write ends (or never started): ours would keep the
        pipes from their end."""
        os.close(self.stdout_w)
        os.close(self.stderr_w)

    async def connect(self) -> None:
        loop = asyncio.get_running_loop()
        for file, sink in zip(self.files, (self.stdout, self.stderr), strict=True):
            protocol = PipeProtocol(sink.add)
            transport, _ = await loop.connect_read_pipe(lambda p=protocol: p, file)  # type: ignore[misc]
            self.transports.append(transport)
            self.protocols.append(protocol)

    async def drained(self) -> None:
        """Both pipes read to their end, or DRAIN_S after the hook exited if something else
        still holds them."""
        with contextlib.suppress(TimeoutError):
            closed = [asyncio.shield(p.closed) for p in self.protocols]
            await asyncio.wait_for(asyncio.gather(*closed), DRAIN_S)

    def close(self) -> None:
        for transport in self.transports:
            transport.close()
        for file in self.files[len(self.transports) :]:
            file.close()


def _claude_mode(mode: str) -> str:
    """Our permission modes in Claude Code's words."""
    return {"accept-edits": "acceptEdits", "yolo": "bypassPermissions"}.get(mode, mode)


def _shown(path: Path, cwd: Path) -> Path:
    return path.relative_to(cwd) if path.is_relative_to(cwd) else path


def session_hooks(
    cwd: Path, permissions: Any, sandbox: Any, *, always: bool = False
) -> HookRunner | None:
    """The session's hooks (user, project, local settings); None when there are none (unless
    `always`: hooks may join later, a plugin's once trusted). A project's wait for trust: the
    trust dialog lists them."""
    from agent_tui.hooks.config import load_hooks
    from agent_tui.paths import config_dir

    cwd = cwd.resolve()
    settings = load_hooks(config_dir(), cwd)
    if not settings.commands and not settings.warnings and not always:
        return None
    hooks = HookRunner(
        settings,
        cwd,
        trusted=lambda: bool(getattr(permissions, "project_trusted", False)),
        sandbox=sandbox,
        mode=lambda: str(getattr(permissions, "mode", "default")),
    )
    if hasattr(permissions, "untrusted_hooks"):
        permissions.untrusted_hooks = hooks.untrusted
    if settings.warnings and hasattr(permissions, "load_warnings"):  # said where settings are
        permissions.load_warnings = (*permissions.load_warnings, *settings.warnings)
    return hooks
