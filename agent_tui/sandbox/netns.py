"""One network namespace for the session's sandboxed commands, so a server one command starts
(`run_in_background`) answers the next — and, once the person says so, their browser.

A holder process (`bwrap --unshare-user --unshare-net`, loopback up) keeps the namespace for the
session; every sandboxed command is started in its user and network namespaces (`nsenter -U -n`
in front of its own bwrap, which then leaves out `--unshare-net`). Nothing inside reaches the
host's network: out goes only through each command's proxy, as before. The holder is also the
way in: it listens on a Unix socket of the session's own and, asked for a port, connects to that
port on the namespace's loopback (`Forward`); the app opens a port on the host's loopback only
for a port the person allowed.

Listening sockets are read from `/proc/HOLDER/net/tcp{,6}` (the namespace's own) and matched to
the background shell whose processes hold them. Where the holder can't start (no nsenter, a
setuid bwrap), each command keeps a network namespace of its own, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from agent_tui.sandbox.proxy import pipe

#: the holder: accepts on the Unix socket, reads "PORT\n", carries the bytes to 127.0.0.1:PORT
_HOLDER = r"""
import os, socket, sys, threading
path = sys.argv[1]
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
listener.listen(64)
os.write(1, b"ready\n")
def pump(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    for s, how in ((b, socket.SHUT_WR), (a, socket.SHUT_RD)):
        try:
            s.shutdown(how)
        except OSError:
            pass
def serve(client):
    line = b""
    while not line.endswith(b"\n") and len(line) < 16:
        got = client.recv(1)
        if not got:
            client.close()
            return
        line += got
    try:
        up = socket.create_connection(("127.0.0.1", int(line)), 10)
    except (OSError, ValueError):
        client.close()
        return
    t = threading.Thread(target=pump, args=(up, client), daemon=True)
    t.start()
    pump(client, up)
    t.join()
    client.close()
    up.close()
while True:
    c, _ = listener.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
"""

_LISTEN = "0A"
_LOOPBACK_OR_ANY = {"0100007F", "00000000", "00000000000000000000000000000000"}
_LOOPBACK_OR_ANY |= {"00000000000000000000000001000000", "0000000000000000FFFF00000100007F"}


class Holder:
    """The session's network namespace and its way in."""

    def __init__(self, bwrap: str, folder: Path) -> None:
        self.bwrap = bwrap
        self.folder = folder
        self.socket = folder / "forward.sock"
        self.proc: subprocess.Popen[bytes] | None = None
        #: the process in the namespace (its pid on the host): commands join its namespaces
        self.pid: int | None = None
        self.problem: str | None = None

    async def start(self) -> int | None:
        """Start the holder (once); its pid, or None (`problem` says why)."""
        if self.pid is not None or self.problem is not None:
            return self.pid
        if shutil.which("nsenter") is None:
            self.problem = "nsenter (util-linux) is not installed"
            return None
        self.folder.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.socket.unlink()
        info_r = self._spawn()  # from this thread: `--die-with-parent` follows the spawning thread
        if info_r is None:
            return None
        started = await asyncio.to_thread(self._check, info_r)
        if started is None:
            return None
        self.pid = started
        return started

    def _spawn(self) -> int | None:
        """Start the holder (a plain process, not an asyncio one: it is stopped from anywhere,
        a closed event loop included); the read end of its info pipe."""
        info_r, info_w = os.pipe()
        # no `--proc` or `--dev` of its own: with them bwrap nests a second user namespace for
        # the holder, and nsenter into that one gets no rights over the network namespace
        # (unprivileged: "reassociate to namespace 'ns/net' failed")
        argv = [self.bwrap, "--unshare-user", "--unshare-net", "--die-with-parent"]
        argv += ["--ro-bind", "/", "/"]
        argv += ["--bind", str(self.folder), str(self.folder), "--info-fd", str(info_w)]
        argv += ["--", sys.executable, "-I", "-S", "-c", _HOLDER, str(self.socket)]
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(info_w,),
                start_new_session=True,
            )
        except OSError as exc:
            os.close(info_r)
            os.close(info_w)
            self.problem = f"the network holder could not start: {exc}"
            return None
        os.close(info_w)
        return info_r

    def _check(self, info_r: int) -> int | None:
        """The holder's child, once it says it is ready and commands can join it (blocking)."""
        try:
            child = self._child(info_r)
        finally:
            os.close(info_r)
        if child is None:
            self.stop_now()
            return None
        joined = subprocess.run(
            ["nsenter", "-t", str(child), "-U", "-n", "--preserve-credentials", "--", "true"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            timeout=15,
        )  # fmt: skip
        if joined.returncode != 0:  # commands couldn't join it: each keeps a namespace of its own
            self.stop_now()
            why = joined.stderr.decode(errors="replace").strip()
            self.problem = f"nsenter can't join the holder: {why}"
            return None
        return child

    def _child(self, info_r: int) -> int | None:
        assert self.proc is not None and self.proc.stdout is not None
        ready = self.proc.stdout.readline()
        if ready.strip() != b"ready":
            err = self.proc.stderr.read(4096) if self.proc.stderr is not None else b""
            self.problem = "the network holder did not start: " + err.decode(errors="replace")
            return None
        try:
            return int(json.loads(_read_all(info_r))["child-pid"])
        except (ValueError, KeyError, OSError) as exc:
            self.problem = f"the network holder did not start ({exc})"
            return None

    def stop_now(self) -> None:
        proc, self.proc, self.pid = self.proc, None, None
        if proc is not None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(5)
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
        with contextlib.suppress(OSError):
            self.socket.unlink()

    async def stop(self) -> None:
        await asyncio.to_thread(self.stop_now)

    def listening(self) -> dict[int, int]:
        """Ports something listens on in the namespace's loopback (or any address): port ->
        the socket's inode."""
        if self.pid is None:
            return {}
        found: dict[int, int] = {}
        for name in ("tcp", "tcp6"):
            try:
                text = Path(f"/proc/{self.pid}/net/{name}").read_text()
            except OSError:
                continue
            for line in text.splitlines()[1:]:
                fields = line.split()
                if len(fields) < 10 or fields[3] != _LISTEN:
                    continue
                address, _, port = fields[1].partition(":")
                if address in _LOOPBACK_OR_ANY:
                    found[int(port, 16)] = int(fields[9])
        return found


def _read_all(fd: int) -> str:
    chunks = []
    while True:
        data = os.read(fd, 65536)
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks).decode()


def owner_of(inode: int, pgids: dict[int, str]) -> str | None:
    """Which of the background shells (pgid -> shell id) holds socket `inode` open."""
    target = f"socket:[{inode}]"
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
            pgid = int(stat.rsplit(")", 1)[1].split()[2])
        except (OSError, ValueError, IndexError):
            continue
        shell = pgids.get(pgid)
        if shell is None or _is_bridge(entry.path):
            continue
        with contextlib.suppress(OSError):
            for fd in os.scandir(Path(entry.path, "fd")):
                with contextlib.suppress(OSError):
                    if os.readlink(fd.path) == target:
                        return shell
    return None


def _is_bridge(proc: str) -> bool:
    """The sandbox's own bridge (its proxy's port is no server of the shell's)."""
    try:
        return b"agent-tui-proxy.sock" in Path(proc, "cmdline").read_bytes()
    except OSError:
        return False


class Forward:
    """A port on the host's loopback carried into the namespace (through the holder)."""

    def __init__(self, holder: Holder, port: int) -> None:
        self.holder = holder
        self.port = port
        #: the host port (the same one when it is free)
        self.host_port = 0
        self._server: asyncio.AbstractServer | None = None
        self._carrying: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        try:
            self._server = await asyncio.start_server(self._carry, "127.0.0.1", self.port)
        except OSError:  # taken on the host: another one, said in the shells list
            self._server = await asyncio.start_server(self._carry, "127.0.0.1", 0)
        self.host_port = int(self._server.sockets[0].getsockname()[1])
        return self.host_port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for task in list(self._carrying):
            task.cancel()
        if self._carrying:
            await asyncio.wait(list(self._carrying), timeout=2)

    async def _carry(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._carrying.add(task)
        try:
            up_r, up_w = await asyncio.open_unix_connection(str(self.holder.socket))
            up_w.write(f"{self.port}\n".encode())
            await up_w.drain()
            await asyncio.gather(pipe(reader, up_w), pipe(up_r, writer))
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            writer.close()
            if task is not None:
                self._carrying.discard(task)
