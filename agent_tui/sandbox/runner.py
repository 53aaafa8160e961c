"""The session's sandbox: its mode, whether it can run here, and running one command inside it.

`Sandbox.prepare(argv)` works out the boundary, starts the command's own proxy and (where
overlays work) its transaction, and gives the argv and environment to spawn (the Bash tool spawns
it in its own session, exactly as an unsandboxed command). Once the command's processes are gone,
`SandboxRun.finish()` stops the proxy and says what the boundary blocked, and
`SandboxRun.settle()` reads, judges and applies its change set (`settle.py`).

Where overlays can't be mounted (the kernel, the project's file system), commands write to the
project directly under the earlier protections (`layout.plan_layout`: protected names read-only,
placeholders for missing ones) and undo falls back to snapshots; `start_notices` says so once.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.sandbox.base import Availability, Backend, SandboxPermissions
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.reaper import Records
from agent_tui.sandbox.run import CannotStart, SandboxRun, loopback, os_error_words

if TYPE_CHECKING:  # the rest loads with the first command, not on the way to a ready agent
    from agent_tui.sandbox.layout import Layout
    from agent_tui.sandbox.netns import Holder
    from agent_tui.sandbox.network import AskHost
    from agent_tui.sandbox.ports import PortWatch
    from agent_tui.sandbox.transaction import Transaction


class Sandbox:
    def __init__(
        self,
        config: SandboxConfig,
        cwd: Path,
        permissions: SandboxPermissions,
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
        self.data_dir = data_dir
        self.backend: Backend = backend or BwrapBackend(config.bwrap_path)
        self.records = Records(data_dir / "running")
        self._availability: Availability | None = None
        self._overlay: str | None = None
        self._overlay_known = False
        self._probing = threading.Lock()
        self._dir: Path | None = None
        self._layers: Path | None = None
        self._dir_record: Path | None = None
        self._count = itertools.count(1)
        self._holder: Holder | None = None
        #: the watch over the ports background shells listen on (`ports.py`), once started
        self.port_watch: PortWatch | None = None
        self._hook_folders: tuple[str, ...] | None = None

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

    @property
    def changes_base(self) -> Path:
        from agent_tui.sandbox.transaction import changes_dir

        return changes_dir(self.data_dir, self.cwd)

    @property
    def overlay_problem(self) -> str | None:
        """Why commands can't run as transactions here (None: they do); probed once."""
        if not self.active:
            return "the sandbox is not running"
        if not self.config.change_sets:
            return "[sandbox] changeSets = false"
        with self._probing:
            if not self._overlay_known:
                self._overlay = self._probe_overlay()
                self._overlay_known = True
            return self._overlay

    @property
    def transactional(self) -> bool:
        return self.overlay_problem is None

    def _probe_overlay(self) -> str | None:
        from agent_tui.sandbox.transaction import Transaction

        try:
            txn = Transaction.begin(self.changes_base, self.cwd, "(probe)")
        except OSError as exc:
            return f"its change sets can't be kept in {self.changes_base} ({exc.strerror or exc})"
        try:
            return self.backend.probe_overlay(self.cwd, txn.upper, txn.work)
        finally:
            txn.discard()

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
        """What to say once at start: settings problems, a sandbox that can't run, and one that
        runs without change sets."""
        notes = [f"Sandbox settings: {w}" for w in self.config.warnings]
        if self.refusal:
            notes.append(self.refusal)
        elif self.mode != "off" and not self.availability.ok:
            notes.append(
                f"No sandbox: {self.availability.detail}. Bash commands run without one "
                "(only the permission checks apply); /sandbox says more."
            )
        elif self.mode != "off" and self.overlay_problem:
            notes.append(
                "The sandbox runs, but without change sets here: an overlay of the project "
                f"can't be mounted ({self.overlay_problem}). Commands write to the project "
                "directly, protected files stay read-only, and undo uses snapshots."
            )
        return notes

    def hook_folders(self) -> tuple[str, ...]:
        """Folders of the project git runs hooks from: the effective `core.hooksPath` (the
        person's global config, usually), when it names one inside the project (read once)."""
        if self._hook_folders is None:
            from agent_tui.permissions.git_config import hooks_folders

            self._hook_folders = hooks_folders(self.cwd)
        return self._hook_folders

    def held_offer(self, *, tui: bool = True) -> str | None:
        """What a start says when change sets of this project wait for the person."""
        if self.mode == "off":
            return None
        from agent_tui.sandbox.held import offer

        return offer(self.changes_base, self.cwd, tui=tui)

    def environment(self) -> dict[str, str]:
        """The environment a model-run command gets (`environment.py`), inside or not."""
        from agent_tui.sandbox.environment import command_environment

        return command_environment(
            os.environ, self.config.env, dict(self.config.env_values) or None
        )

    def session_dir(self) -> Path:
        """The session's own folders: the private /tmp and /var/tmp, the home it shows, the
        proxies' sockets (under the host's /tmp: a socket's path must stay short)."""
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="agent-tui-sandbox-"))
            for name in ("tmp", "vartmp", "home"):
                (self._dir / name).mkdir(mode=0o700)
            self._dir_record = self.records.add(0, dirs=[self._dir, self.layers_dir()])
        return self._dir

    def layers_dir(self) -> Path:
        """The session's cache layers and the commands' work folders (beside the change sets:
        an overlay's upper directory needs a file system that keeps extended attributes)."""
        if self._layers is None:
            name = f"{os.getpid()}-{os.urandom(3).hex()}"
            self._layers = self.changes_base.parent / "layers" / name
            self._layers.mkdir(parents=True, exist_ok=True, mode=0o700)
        return self._layers

    async def network(self) -> int | None:
        """The session's network namespace (its holder's pid), started with the first command;
        None where commands keep a namespace each (no nsenter, a setuid bwrap)."""
        path = getattr(self.backend, "path", None)
        if not path or not getattr(self.backend, "userns", False):
            return None
        if self._holder is None:
            from agent_tui.sandbox.netns import Holder

            self._holder = Holder(path, self.session_dir() / "net")
        return await self._holder.start()

    @property
    def holder(self) -> Holder | None:
        return self._holder if self._holder is not None and self._holder.pid else None

    def close(self) -> None:
        if self._holder is not None:
            self._holder.stop_now()
            self._holder = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
        if self._layers is not None:
            from agent_tui.sandbox.transaction import remove_folder

            remove_folder(self._layers)
            self._layers = None
        Records.remove(self._dir_record)

    # --- running ---

    def _read_deny_globs(self) -> list[str]:
        return [
            r.rule.content
            for r in self.permissions.rules
            if r.behavior == "deny" and r.rule.tool == "Read" and r.rule.content
        ]

    def layout(self, *, lasting: bool = False, overlay: bool | None = None) -> Layout:
        """The boundary of the next command: a transaction's (`boundary.py`) where overlays work,
        else the direct one (`layout.py`); `lasting`: a process that runs all session."""
        from agent_tui.sandbox.layout import own_install, plan_layout

        home = Path(os.path.expanduser("~"))
        session = self.session_dir()
        if overlay is None:
            overlay = not lasting and self.transactional
        if overlay:
            from agent_tui.sandbox.boundary import plan_boundary

            return plan_boundary(
                self.cwd,
                session,
                self.layers_dir() / "caches",
                home=home,
                environ=os.environ,
                app_dirs=self.app_dirs,
                allow_write=self.config.allow_write,
                allow_read=self.config.allow_read,
                deny_read=self.config.deny_read,
                read_deny_globs=self._read_deny_globs(),
                sockets=self.config.allow_unix_sockets,
                keep_visible=own_install(),
            )
        return plan_layout(
            self.cwd,
            session / "tmp",
            home=home,
            app_dirs=self.app_dirs,
            allow_write=self.config.allow_write,
            deny_read=self.config.deny_read,
            read_deny_globs=self._read_deny_globs(),
            sockets=self.config.allow_unix_sockets,
            lasting=lasting,
            private=(session, self.layers_dir() / "caches", os.environ),
            allow_read=[Path(os.path.expanduser(p)) for p in self.config.allow_read],
        )

    def _boundary(
        self, argv: list[str], lasting: bool, label: str
    ) -> tuple[Transaction | None, Layout]:
        """The command's transaction (where overlays work) and layout. The app's own folders
        failing (a full disk: no room for the change set) is a `CannotStart`: the command
        doesn't run, rather than run without its transaction."""
        txn = None
        where: Path | str = self.changes_base
        try:
            if not lasting and self.transactional:
                from agent_tui.sandbox.transaction import Transaction

                txn = Transaction.begin(
                    self.changes_base, self.cwd, " ".join(argv[2:3]), label=label
                )
            where = "the session's sandbox folders"
            return txn, self.layout(lasting=lasting, overlay=txn is not None)
        except OSError as exc:
            if txn is not None:
                txn.discard()
            raise CannotStart(
                f"The sandbox could not start the command, so it did not run: {where} can't be "
                f"written ({os_error_words(exc)})."
            ) from exc

    async def prepare(
        self,
        argv: list[str],
        ask: AskHost | None,
        *,
        lasting: bool = False,
        label: str = "",
        background: bool = False,
    ) -> SandboxRun:
        """`argv` wrapped to run inside, with a proxy of its own that asks through `ask`
        (`lasting`: a process that runs all session, see `plan_layout`), as a transaction
        where overlays work — a live one (`live.py`) for a `background` shell."""
        if not self.availability.ok:  # never claim a sandbox the process doesn't have
            raise CannotStart(f"no sandbox: {self.availability.detail}")
        from agent_tui.sandbox.network import HostGate
        from agent_tui.sandbox.proxy import Proxy
        from agent_tui.sandbox.seccomp import bridge_argument

        txn, layout = await asyncio.to_thread(self._boundary, argv, lasting, label)
        program = Path(argv[0]) if argv else Path()
        if program.is_absolute() and not layout.is_visible(program):
            if txn is not None:
                txn.discard()
            raise CannotStart(
                f"{program} is in a folder the sandbox doesn't show (your home, or one the "
                "sandbox hides); to run it inside, list its folder in [sandbox] allowRead"
            )
        netns = None if lasting else await self.network()
        n = next(self._count)
        work = self.layers_dir() / "work" / str(n) if layout.home is not None else None
        live = None
        if background and txn is not None:
            from agent_tui.sandbox.live import LiveTransaction

            live = LiveTransaction(txn, by=f"Bash ({label})" if label else "Bash")
            live.visible, live.hook_folders = layout.is_visible, self.hook_folders()
            await live.listen(self.session_dir() / f"mirror-{n}.sock")
        socket_path = self.session_dir() / f"proxy-{n}.sock"
        gate = HostGate(self.permissions, self.config.allowed_domains, ask)
        explicit = self.permissions.explicit_hosts
        proxy = Proxy(socket_path, gate, explicit)
        await proxy.start()
        try:
            wrapped = self.backend.wrap(
                argv,
                layout,
                socket_path,
                project=txn.arguments() if txn is not None else None,
                work=work,
                netns=netns,
                mirror=live.socket if live is not None else None,
                seccomp=bridge_argument(bool(self.config.allow_unix_sockets)),
            )
        except BaseException:
            await proxy.close()
            if live is not None:
                live.close()
            if txn is not None:
                txn.discard()
            raise
        home_root = self.cwd == Path(os.path.expanduser("~")).resolve()
        env = self.environment()
        env.pop("NO_PROXY", None)
        env.pop("no_proxy", None)
        if not any(loopback(h) for h in explicit):
            # the sandbox's own loopback (a background shell's server) is reached directly
            env["NO_PROXY"] = env["no_proxy"] = "localhost,127.0.0.1,::1"
        return SandboxRun(
            wrapped.argv,
            env,
            layout,
            proxy,
            self.records,
            txn=txn,
            work=work,
            home_root=home_root,
            live=live,
            hook_folders=self.hook_folders(),
        )

    # --- /sandbox ---

    def describe(self) -> str:
        from agent_tui.sandbox.describe import describe

        return describe(self)
