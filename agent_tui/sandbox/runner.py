"""The session's sandbox: its mode, whether it can run here, and running one command inside it.

`Sandbox.prepare(command)` works out the layout, starts the command's own proxy, and gives the
argv to spawn (the Bash tool spawns it, in its own session, exactly as an unsandboxed command);
`SandboxRun.finish()` then stops the proxy, removes the placeholders bubblewrap left, and says
what the boundary blocked.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.sandbox.base import Availability, Backend
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.reaper import Records, guarded, remove_placeholder

if TYPE_CHECKING:  # the rest loads with the first command, not on the way to a ready agent
    from agent_tui.sandbox.layout import Layout
    from agent_tui.sandbox.network import AskHost
    from agent_tui.sandbox.proxy import Proxy


async def shell_command(
    command: str, sandbox: Sandbox | None, ask: AskHost | None = None
) -> tuple[list[str], SandboxRun | None]:
    """`bash -c COMMAND` as it is started: inside `sandbox` (its run, to finish once the
    command's processes are gone), or, with None, outside it under the reaper's guard, so
    nothing it starts outlives the app. `ask`: who answers the sandbox's network questions."""
    argv = ["bash", "-c", command]
    if sandbox is None:
        return guarded(argv), None
    run = await sandbox.prepare(argv, ask)
    return run.argv, run


@dataclass
class SandboxRun:
    """One command started inside the sandbox: its argv, layout and proxy, to `finish` once its
    processes are gone."""

    argv: list[str]
    layout: Layout
    proxy: Proxy | None
    records: Records
    record: Path | None = None
    #: what the boundary stopped, once finished
    blocked: list[str] = field(default_factory=list)

    def started(self, pgid: int) -> None:
        """The command runs as process group `pgid`: record it for the reaper."""
        self.record = self.records.add(pgid, list(self.layout.placeholders))

    async def finish(self, command: str, output: str) -> list[str]:
        """After the sandbox's processes are gone: clean up; what was blocked."""
        if self.proxy is not None:
            await self.proxy.close()
        for path, kind in self.layout.placeholders:
            remove_placeholder(path, kind)
        Records.remove(self.record)
        from agent_tui.sandbox import report

        refused = list(self.proxy.refused) if self.proxy is not None else []
        self.blocked = report.blocked(self.layout, command, output, refused)
        return self.blocked


class Sandbox:
    def __init__(
        self,
        config: SandboxConfig,
        cwd: Path,
        permissions: Any,
        *,
        data_dir: Path,
        app_dirs: tuple[Path, ...] = (),
        backend: Backend | None = None,
    ) -> None:
        from agent_tui.sandbox.bwrap import BwrapBackend

        self.config = config
        self.mode = config.mode
        self.cwd = cwd.resolve()
        self.permissions = permissions
        self.app_dirs = app_dirs
        self.backend: Backend = backend or BwrapBackend(config.bwrap_path)
        self.records = Records(data_dir / "running")
        self._availability: Availability | None = None
        self._probing = threading.Lock()
        self._dir: Path | None = None
        self._dir_record: Path | None = None
        self._count = itertools.count(1)

    # --- state ---

    @property
    def availability(self) -> Availability:
        """Probed once (the boot thread usually does it; a command that comes first waits)."""
        with self._probing:
            if self._availability is None:
                self._availability = self.backend.availability()
            return self._availability

    @property
    def active(self) -> bool:
        """Commands run inside it: the mode is on or auto, and it can run here."""
        return self.mode != "off" and self.availability.ok

    def excluded(self, command: str) -> bool:
        """Every part of `command` is one the person runs outside the sandbox (`excludedCommands`,
        matched as word prefixes of each part's normalised form); hidden code never is."""
        if not self.config.excluded_commands:
            return False
        from agent_tui.permissions.command_risks import normalize
        from agent_tui.permissions.shell import analyze

        a = analyze(command)
        if not a.parts or a.problems or a.truncated or a.has_substitution:
            return False
        prefixes = [tuple(e.split()) for e in self.config.excluded_commands if e.split()]
        for part in a.parts:
            argv = normalize(part.argv).argv
            if any(w is None for w in argv) or part.assignments:
                return False
            words = (os.path.basename(argv[0] or ""), *(str(w) for w in argv[1:]))
            if not any(words[: len(p)] == p for p in prefixes):
                return False
        return True

    @property
    def refusal(self) -> str | None:
        """Why a command may not run at all: the person requires the sandbox
        (`failIfUnavailable`) and it can't run here."""
        if self.mode == "off" or not self.config.fail_if_unavailable or self.availability.ok:
            return None
        return (
            f"The sandbox is required ([sandbox] failIfUnavailable) but can't run here: "
            f"{self.availability.detail}. Bash commands are refused."
        )

    @property
    def start_notices(self) -> list[str]:
        """What to say once at start: settings problems, and a sandbox that can't run."""
        notes = [f"Sandbox settings: {w}" for w in self.config.warnings]
        if self.refusal:
            notes.append(self.refusal)
        elif self.mode != "off" and not self.availability.ok:
            notes.append(
                f"No sandbox: {self.availability.detail}. Bash commands run without one "
                "(only the permission checks apply); /sandbox says more."
            )
        return notes

    def session_dir(self) -> Path:
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="agent-tui-sandbox-"))
            (self._dir / "tmp").mkdir(mode=0o700)
            self._dir_record = self.records.add(0, dirs=[self._dir])
        return self._dir

    def close(self) -> None:
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            Records.remove(self._dir_record)
            self._dir = None

    # --- running ---

    def layout(self, *, lasting: bool = False) -> Layout:
        from agent_tui.sandbox.layout import plan_layout

        rules = getattr(self.permissions, "rules", ())
        globs = [
            r.rule.content
            for r in rules
            if r.behavior == "deny" and r.rule.tool == "Read" and r.rule.content
        ]
        return plan_layout(
            self.cwd,
            self.session_dir() / "tmp",
            home=Path(os.path.expanduser("~")),
            app_dirs=self.app_dirs,
            allow_write=self.config.allow_write,
            deny_read=self.config.deny_read,
            read_deny_globs=globs,
            sockets=self.config.allow_unix_sockets,
            lasting=lasting,
        )

    async def prepare(
        self, argv: list[str], ask: AskHost | None, *, lasting: bool = False
    ) -> SandboxRun:
        """`argv` wrapped to run inside, with a proxy of its own that asks through `ask`
        (`lasting`: a process that runs all session, see `plan_layout`)."""
        if not self.availability.ok:  # never claim a sandbox the process doesn't have
            raise RuntimeError(f"no sandbox: {self.availability.detail}")
        from agent_tui.sandbox.network import HostGate
        from agent_tui.sandbox.proxy import Proxy

        layout = self.layout(lasting=lasting)
        socket_path = self.session_dir() / f"proxy-{next(self._count)}.sock"
        gate = HostGate(self.permissions, self.config.allowed_domains, ask)
        explicit: frozenset[str] = getattr(self.permissions, "explicit_hosts", frozenset())
        proxy = Proxy(socket_path, gate, explicit)
        await proxy.start()
        try:
            wrapped = self.backend.wrap(argv, layout, socket_path)
        except BaseException:
            await proxy.close()
            raise
        return SandboxRun(wrapped.argv, layout, proxy, self.records)

    # --- /sandbox ---

    def describe(self) -> str:
        a = self.availability
        lines = [
            f"mode: {self.mode} (from {self.config.mode_source})",
            f"backend: {self.backend.name}: {a.detail}" if a.ok else f"not available: {a.detail}",
        ]
        if self.mode == "off":
            lines.append("Bash commands run without a sandbox (`--sandbox on|auto` turns it on).")
        elif not a.ok:
            lines.append("Bash commands run WITHOUT a sandbox: only the permission checks apply.")
        else:
            lines.append(
                "every Bash command runs inside"
                + (
                    "; commands asked about only because they may run code or write in the "
                    "project run there without asking"
                    if self.mode == "auto"
                    else "; the usual questions are asked too"
                )
            )
        layout = self.layout()
        home = str(Path(os.path.expanduser("~")))

        def listing(title: str, items: list[str]) -> None:
            lines.append(f"{title}:")
            lines.extend(f"  {i.replace(home, '~', 1) if i.startswith(home) else i}" for i in items)
            if not items:
                lines.append("  (none)")

        listing("writable", [str(p) for p in layout.writable] + ["/tmp (private to this session)"])
        listing(
            "read-only inside them",
            [str(p) for p in layout.read_only]
            + [f"{p} (not there: kept from being made)" for p, _ in layout.placeholders],
        )
        listing("readable", ["everything else, except what is hidden"])
        listing(
            "hidden", [str(p) for p in layout.hidden] + ["/run (sockets of docker, dbus, agents)"]
        )
        from agent_tui.sandbox.network import HostGate

        gate = HostGate(self.permissions, self.config.allowed_domains, None)
        allowed = list(self.config.allowed_domains) + [
            r.rule.text
            for r in getattr(self.permissions, "rules", ())
            if r.behavior == "allow" and r.rule.tool == "WebFetch" and not r.rule.bare
        ]
        listing("network (through the app's proxy)", allowed or ["no host allowed yet"])
        if gate.rule_decision("example.invalid")[0] == "allow":
            lines.append("  any other public host: allowed (yolo mode)")
        else:
            lines.append(
                "  any other host: asks (loopback, private and metadata addresses: refused)"
            )
        if self.config.excluded_commands:
            listing("run outside it (excludedCommands)", list(self.config.excluded_commands))
        if layout.notes:
            listing("notes", list(layout.notes))
        return "\n".join(lines)


async def after_command(
    run: SandboxRun | None, record: Path | None, command: str, output: str
) -> list[str]:
    """After a Bash command: the sandbox's cleanup and what it blocked, or just the reaper's
    record gone. Runs on every way out (a cancel included), shielded so a second cancel can't
    skip it."""
    if run is None:
        Records.remove(record)
        return []
    task = asyncio.ensure_future(run.finish(command, output))
    try:
        return list(await asyncio.shield(task))
    except asyncio.CancelledError:
        await asyncio.wait([task])
        raise
