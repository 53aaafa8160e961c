"""No Unix socket for a sandboxed command: a seccomp filter refusing `socket(AF_UNIX, …)` (and
`io_uring_setup`, which could make one past the filter), so a command can neither reach a socket
of the person's that the file system shows (a read-only bind doesn't stop `connect()`), nor talk
to another of the session's commands through one — the channel a process would use to hand a
finished command's overlay to a running one. `socketpair()` stays (programs use it for their
own pipes), and so does every other socket family (the network is the namespace's).

The filter is classic BPF, built here for the machine's architecture and handed to the sandbox's
bridge, which installs it in the command's process just before the command starts (the bridge
itself keeps its own sockets: the proxy's, the mirror's). Where the person lists sockets
(`allowUnixSockets`) the filter is off: a filter can't tell one path from another.
"""

from __future__ import annotations

import platform
import struct

# struct seccomp_data: nr at 0, arch at 4, args at 16 (args[0]'s low 32 bits, little endian)
_NR, _ARCH, _ARG0 = 0, 4, 16
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
EACCES = 13
AF_UNIX = 1
_X32 = 0x40000000

#: machine -> (AUDIT_ARCH_*, socket, io_uring_setup, prctl)
ARCHES = {
    "x86_64": (0xC000003E, 41, 425, 157),
    "aarch64": (0xC00000B7, 198, 425, 167),
}


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def unix_socket_filter(machine: str | None = None) -> bytes | None:
    """The filter's instructions (struct sock_filter, 8 bytes each), or None where this
    architecture isn't known (the sandbox then runs without it)."""
    known = ARCHES.get(machine or platform.machine())
    if known is None:
        return None
    arch, socket_nr, uring_nr, _ = known
    deny = _op(_RET_K, _ERRNO | EACCES)
    allow = _op(_RET_K, _ALLOW)
    program = [
        _op(_LD_W_ABS, _ARCH),  # 0
        _op(_JEQ_K, arch, 1, 0),  # 1: the native ABI? on; else refused
        deny,  # 2
        _op(_LD_W_ABS, _NR),  # 3
        _op(_JGE_K, _X32, 4, 0),  # 4: the x32 ABI's numbers (another socket()): refused
        _op(_JEQ_K, uring_nr, 3, 0),  # 5
        _op(_JEQ_K, socket_nr, 0, 3),  # 6: socket()? look at its family; else allowed
        _op(_LD_W_ABS, _ARG0),  # 7
        _op(_JEQ_K, AF_UNIX, 0, 1),  # 8: AF_UNIX? refused; else allowed
        deny,  # 9 (4 and 5 land here too)
        allow,  # 10
    ]
    # jumps count from the next instruction: 4 → 9, 5 → 9, 6 → 10, 8 → 10
    return b"".join(program)


def bridge_argument(allow_unix: bool) -> str:
    """The filter for the bridge's command line, `PRCTL:HEX` (prctl's syscall number and the
    instructions); "" for none."""
    known = ARCHES.get(platform.machine())
    program = unix_socket_filter()
    if allow_unix or known is None or program is None:
        return ""
    return f"{known[3]}:{program.hex()}"
