"""No sandboxed command can make a Unix socket another command could reach (red-team F14, R2-1,
R3-1, R3-2): `socket(AF_UNIX)` and every `socketpair` but a stream or seqpacket one (a datagram
end can be disconnected and bound to a name; the kernel makes a raw or rdm pair a datagram one)
are refused, and so is taking the bridge's sockets: it is undumpable (no ptrace, no /proc/PID/fd)
and `pidfd_getfd` is refused. The stream pairs programs use for their own pipes (asyncio's
wake-up pipe) still work, and so does the network. Real bubblewrap, real Python inside; the work
folder off /tmp."""

from __future__ import annotations

import asyncio
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from bwrap_support import needs_bwrap

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.runner import Sandbox
from agent_tui.sandbox.seccomp import ARCHES, unix_socket_filter
from agent_tui.sandbox.transaction import remove_folder
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.bash import BashInput, BashTool
from agent_tui.tools.builtin.shell_tools import BashOutputInput, BashOutputTool
from agent_tui.tools.shells import ShellRegistry

PROBE = textwrap.dedent(
    """
    import asyncio, socket

    def attempt(name, make):
        try:
            s = make()
        except OSError as e:
            print(name, "refused", e.errno)
        else:
            print(name, "made")
            for x in s if isinstance(s, tuple) else (s,):
                x.close()

    attempt("unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
    attempt("unix-dgram", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM))
    attempt("pair-dgram", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))
    attempt("pair-dgram-cloexec", lambda: socket.socketpair(
        socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC))
    attempt("pair-stream", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM))
    attempt("pair-seqpacket", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET))
    attempt("pair-raw", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_RAW))
    attempt("pair-rdm", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_RDM))
    attempt("inet", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
    asyncio.run(asyncio.sleep(0))
    print("asyncio ran")

    # the bridge (its source says "agent-tui sandbox"): nothing of it can be taken
    import ctypes, os
    libc = ctypes.CDLL(None, use_errno=True)
    bridges = [
        int(pid) for pid in os.listdir("/proc") if pid.isdigit() and int(pid) != os.getpid()
        and b"agent-tui sandbox" in open(f"/proc/{pid}/cmdline", "rb").read()
    ]
    print("bridges", len(bridges))
    for pid in bridges:
        for n in range(64):  # its descriptors, through /proc (what a listing names, as root)
            try:
                os.close(os.open(f"/proc/{pid}/fd/{n}", os.O_RDONLY))
            except FileNotFoundError:
                continue
            except OSError as e:
                print("bridge-fd refused", e.errno)
            else:
                print("bridge-fd made")
        if libc.ptrace(16, pid, None, None) != 0:  # PTRACE_ATTACH
            print("bridge-ptrace refused", ctypes.get_errno())
        else:
            print("bridge-ptrace made")
        pidfd = os.pidfd_open(pid)
        if libc.syscall(438, pidfd, 3, 0) < 0:  # pidfd_getfd: the bridge's fd 3
            print("bridge-getfd refused", ctypes.get_errno())
        else:
            print("bridge-getfd made")
    """
)


@pytest.fixture
def project() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="agent-tui-unix-", dir="/var/tmp"))
    (root / "p").mkdir()
    (root / "p" / "probe.py").write_text(PROBE)
    try:
        yield root / "p"
    finally:
        remove_folder(root)


def test_the_filter_is_built_for_each_known_machine() -> None:
    for machine in ARCHES:
        program = unix_socket_filter(machine)
        assert program is not None and len(program) % 8 == 0
    assert unix_socket_filter("pdp11") is None


EXPECTED = {
    "unix": "refused",
    "unix-dgram": "refused",
    "pair-dgram": "refused",
    "pair-dgram-cloexec": "refused",
    "pair-stream": "made",
    "pair-seqpacket": "made",
    "pair-raw": "refused",
    "pair-rdm": "refused",
    "inet": "made",
    "bridge-fd": "refused",
    "bridge-ptrace": "refused",
    "bridge-getfd": "refused",
}


def results(output: str) -> dict[str, str]:
    seen: dict[str, str] = {}
    for line in output.splitlines():
        name, _, result = line.partition(" ")
        if result.startswith(("made", "refused")) and seen.get(name) != "made":
            seen[name] = result.split()[0]  # any one made counts
    return seen


def sandbox_of(project: Path) -> Sandbox:
    return Sandbox(
        SandboxConfig(mode="on"), project, PermissionEngine(project), data_dir=project.parent / "d"
    )


@needs_bwrap
async def test_no_nameable_unix_socket_inside_and_pipes_and_network_still_work(
    project: Path,
) -> None:
    sandbox = sandbox_of(project)
    ctx = ToolContext(cwd=project, data_dir=project.parent, sandbox=sandbox)
    try:
        python = Path(sys.executable).resolve()
        out = await BashTool().run(BashInput(command=f"{python} probe.py"), ctx)
    finally:
        sandbox.close()
    await asyncio.sleep(0)
    assert results(out.content) == EXPECTED, out.content
    assert "asyncio ran" in out.content and "bridges 1" in out.content, out.content


#: the probe's lines written at once (one write under PIPE_BUF), so no read of the shell's output
#: cuts one of them in two
COMMAND = "{python} probe.py > /tmp/probe.out 2>&1; cat /tmp/probe.out; echo probed; sleep 30"


@needs_bwrap
async def test_a_background_shells_bridge_gives_nothing_away_either(project: Path) -> None:
    """A background shell's bridge is the Python one (it also serves the mirror)."""
    sandbox = sandbox_of(project)
    shells = ShellRegistry()
    ctx = ToolContext(cwd=project, data_dir=project.parent, sandbox=sandbox, shells=shells)
    python = Path(sys.executable).resolve()
    try:
        started = await BashTool().run(
            BashInput(command=COMMAND.format(python=python), run_in_background=True),
            ctx,
        )
        assert not started.is_error, started.content
        output = ""
        for _ in range(400):
            out = await BashOutputTool().run(BashOutputInput(bash_id="bash_1"), ctx)
            output += out.content
            if "probed" in output:
                break
            await asyncio.sleep(0.05)
    finally:
        await shells.kill_all()
        sandbox.close()
    assert results(output) == EXPECTED, output
    assert "bridges 1" in output, output
