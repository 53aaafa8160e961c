"""The bridge that runs first inside the sandbox: it opens the HTTP proxy port on the sandbox's
own loopback, starts the command with HTTP_PROXY / HTTPS_PROXY / ALL_PROXY pointing at it, and
carries each connection to the app's proxy through the Unix socket bound in (the sandbox has no
other network). It exits with the command's status, which ends every process left in the
sandbox's pid namespace.

It is run as `python -I -S -c SOURCE SOCKET [--mirror MSOCKET PROJECT] [--seccomp F] --
COMMAND...`: no site, no environment, and only built-in modules (`_socket`, `select`,
`_signal`; `threading` once a connection comes), so it starts in a few milliseconds. Keep it
standard-library only and self-contained.

With `--seccomp PRCTL:HEX`, the command (not the bridge) starts under that seccomp filter
(`seccomp.py`: no Unix sockets). With `--mirror` (a background shell's bridge), it also
connects to the app's MSOCKET, which sends what changed in the project outside the sandbox while
the shell runs, and writes each change through the shell's overlay (its view of the project
would not see a file replaced underneath it, nor would a file watcher be told): batches of one
JSON line per entry, `{"rel", "kind": "file"|"link"|"dir"|"absent", "mode", "size"}`, then
`size` bytes of content.
"""

import _signal  # type: ignore[import-not-found]
import _socket as S
import os
import sys

TYPE_CHECKING = False  # `typing` is never imported here (start-up time); mypy reads this block
if TYPE_CHECKING:
    import threading
    from typing import Any

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def pump(src: S.socket, dst: S.socket) -> None:
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    for s, how in ((dst, S.SHUT_WR), (src, S.SHUT_RD)):
        try:  # noqa: SIM105 (contextlib would cost start-up time)
            s.shutdown(how)
        except OSError:
            pass


def serve(client: S.socket, path: str) -> None:
    try:
        upstream = S.socket(S.AF_UNIX, S.SOCK_STREAM)
        upstream.connect(path)
    except OSError as e:
        client.sendall(
            b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
            + f"agent-tui sandbox: the app's proxy is not reachable ({e})\n".encode()
        )
        client.close()
        return
    import threading

    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


#: the mirror's temporary names (never part of a shell's change set: `changes.read_changes`)
MIRROR_TEMP = ".agent-tui-mirror-"


def mirror_one(project: str, entry: "dict[str, Any]", content: bytes) -> None:
    import shutil

    rel = entry["rel"]
    if rel.startswith("/") or ".." in rel.split("/"):
        return
    dst = os.path.join(project, rel)
    kind = entry["kind"]
    if kind == "absent":
        if os.path.isdir(dst) and not os.path.islink(dst):
            shutil.rmtree(dst, ignore_errors=True)
        elif os.path.lexists(dst):
            os.unlink(dst)
        return
    if kind == "dir":
        os.makedirs(dst, exist_ok=True)
        return
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    tmp = os.path.join(os.path.dirname(dst), MIRROR_TEMP + os.urandom(4).hex())
    try:
        if kind == "link":
            os.symlink(content.decode("utf-8", "surrogateescape"), tmp)
        else:
            mode = entry.get("mode", 0o644) & 0o777
            with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), "wb") as out:
                out.write(content)
        if os.path.isdir(dst) and not os.path.islink(dst):
            shutil.rmtree(dst, ignore_errors=True)
        os.replace(tmp, dst)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


def mirror_serve(conn: S.socket, project: str) -> None:
    """Batches from the app: each is `SIZE\n` then SIZE bytes of entries (one JSON line each,
    then its content); answered `ok N\n`."""
    import json

    def read(n: int) -> bytes:
        data = b""
        while len(data) < n:
            got = conn.recv(n - len(data))
            if not got:
                raise OSError("closed")
            data += got
        return data

    while True:
        head = b""
        try:
            while not head.endswith(b"\n"):
                got = conn.recv(1)
                if not got:
                    return
                head += got
            buffer = read(int(head))
        except (OSError, ValueError):
            return
        done = at = 0
        try:
            while at < len(buffer):
                end = buffer.index(b"\n", at)
                entry = json.loads(buffer[at:end])
                content = buffer[end + 1 : end + 1 + entry["size"]]
                at = end + 1 + entry["size"]
                try:
                    mirror_one(project, entry, content)
                    done += 1
                except OSError:
                    pass
        except (ValueError, KeyError, TypeError):
            pass
        try:
            conn.sendall(f"ok {done}\n".encode())
        except OSError:
            return


def mirror_connect(path: str, project: str) -> None:
    """Connect to the app's mirror socket (bound in read-only: nothing inside can re-point it)
    and serve what it sends, in a thread."""
    import threading

    conn = S.socket(S.AF_UNIX, S.SOCK_STREAM)
    conn.connect(path)
    threading.Thread(target=mirror_serve, args=(conn, project), daemon=True).start()


def undumpable() -> None:
    """PR_SET_DUMPABLE 0 for the bridge: the command can't ptrace it, read its /proc/1/fd or
    take its sockets with pidfd_getfd (the kernel refuses them all on an undumpable process)."""
    import ctypes

    if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:
        os.write(2, b"agent-tui sandbox: the bridge could not make itself undumpable\n")
        os._exit(126)


def no_unix_sockets(spec: str) -> None:
    """Install the seccomp filter `PRCTL:HEX` (`seccomp.py`) in this process: no AF_UNIX
    socket from here on, for it and all it starts (none when HEX is empty)."""
    import ctypes

    _, code = spec.split(":", 1)
    program = bytes.fromhex(code)
    if not program:
        return

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    prog = Prog(len(program) // 8, program)
    if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:
        os.write(2, b"agent-tui sandbox: the socket filter could not be installed\n")
        os._exit(126)


def _flags(args: list[str]) -> tuple[str, list[str], str]:
    """The socket path, the command, and the seccomp filter's file ("" for none) from argv
    (`PATH [--mirror A B] [--seccomp FILE] -- COMMAND…`); a mirror asked for is connected."""
    path, flags = args[0], args[1 : args.index("--")]
    command = args[args.index("--") + 1 :]
    seccomp = ""
    while flags:
        if flags[0] == "--mirror":
            mirror_connect(flags[1], flags[2])
            flags = flags[3:]
        elif flags[0] == "--seccomp":
            seccomp, flags = flags[1], flags[2:]
        else:
            flags = flags[1:]
    return path, command, seccomp


def _start(command: list[str], env: dict[str, str], seccomp: str, listener: S.socket) -> int:
    """The command, forked and run (in the child: the filter installed, then exec); its pid."""
    pid = os.fork()
    if pid == 0:
        listener.close()
        _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)
        if seccomp:
            no_unix_sockets(seccomp)
        try:
            os.execvpe(command[0], command, env)
        except OSError as e:
            os.write(2, f"agent-tui sandbox: cannot run {command[0]}: {e}\n".encode())
        os._exit(127)
    return pid


def _accept(listener: S.socket) -> S.socket | None:
    try:
        # `_socket` has no accept(): `_accept` returns the fd (untyped: a private name)
        fd, _ = listener._accept()  # type: ignore[attr-defined]
        return S.socket(fileno=fd)
    except OSError:
        return None


def _serve_until_done(listener: S.socket, pid: int, path: str) -> int:
    """Each connection to the proxy's listener served in a thread of its own, until the command
    has ended; its wait status."""
    import select

    try:
        waiter = os.pidfd_open(pid)
    except (AttributeError, OSError):
        waiter = None
    thread: type[threading.Thread] | None = None
    while True:
        watch = [listener] + ([waiter] if waiter is not None else [])
        try:
            ready, _, _ = select.select(watch, [], [], 0.2 if waiter is None else None)
        except InterruptedError:
            ready = []
        client = _accept(listener) if listener in ready else None
        if client is not None:
            if thread is None:
                from threading import Thread

                thread = Thread
            thread(target=serve, args=(client, path), daemon=True).start()
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status


def main() -> None:
    path, command, seccomp = _flags(sys.argv[1:])
    undumpable()
    listener = S.socket(S.AF_INET, S.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    env = dict(os.environ)
    for name in PROXY_VARS:
        env[name] = url
    # NO_PROXY comes from the app: the sandbox's own loopback, unless the person named a
    # loopback host (then that goes through the proxy to the host's)
    pid = _start(command, env, seccomp, listener)
    # A timeout's SIGTERM reaches the whole group: stay until the command has ended, so it gets
    # its grace period (our exit ends the pid namespace, killing everything in it).
    _signal.signal(_signal.SIGTERM, _signal.SIG_IGN)
    status = _serve_until_done(listener, pid, path)
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status))


if __name__ == "__main__":
    main()
