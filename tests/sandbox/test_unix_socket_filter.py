"""No sandboxed command can make a Unix socket another command could reach (red-team F14, R2-1):
`socket(AF_UNIX)` and a datagram `socketpair` (whose end can be disconnected and bound to a
name) are refused; the stream pairs programs use for their own pipes (asyncio's wake-up pipe)
still work, and so does the network. Real bubblewrap, real Python inside; the work folder off
/tmp."""

from __future__ import annotations

import asyncio
import shutil
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
from agent_tui.tools.base import ToolContext
from agent_tui.tools.bash import BashInput, BashTool

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
    attempt("inet", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
    asyncio.run(asyncio.sleep(0))
    print("asyncio ran")
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
        shutil.rmtree(root, ignore_errors=True)


def test_the_filter_is_built_for_each_known_machine() -> None:
    for machine in ARCHES:
        program = unix_socket_filter(machine)
        assert program is not None and len(program) % 8 == 0
    assert unix_socket_filter("pdp11") is None


@needs_bwrap
async def test_no_nameable_unix_socket_inside_and_pipes_and_network_still_work(
    project: Path,
) -> None:
    sandbox = Sandbox(
        SandboxConfig(mode="on"), project, PermissionEngine(project), data_dir=project.parent / "d"
    )
    ctx = ToolContext(cwd=project, data_dir=project.parent, sandbox=sandbox)
    try:
        python = Path(sys.executable).resolve()
        out = await BashTool().run(BashInput(command=f"{python} probe.py"), ctx)
    finally:
        sandbox.close()
    await asyncio.sleep(0)
    seen = {}
    for line in out.content.splitlines():
        name, _, result = line.partition(" ")
        if result.startswith(("made", "refused")):
            seen[name] = result.split()[0]
    assert seen == {
        "unix": "refused",
        "unix-dgram": "refused",
        "pair-dgram": "refused",
        "pair-dgram-cloexec": "refused",
        "pair-stream": "made",
        "pair-seqpacket": "made",
        "inet": "made",
    }, out.content
    assert "asyncio ran" in out.content, out.content
