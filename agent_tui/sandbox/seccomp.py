"""No Unix socket for a sandboxed command: a seccomp filter refusing every way to make one that
could be named — `socket(AF_UNIX, …)`, a `socketpair(AF_UNIX, …)` of any type but stream and
seqpacket (a datagram end can be disconnected and bound to a name, then reached by `sendmsg` to
that name from another command; the kernel makes a `SOCK_RAW` or `SOCK_RDM` pair a datagram
one), `io_uring_setup` (which could make one past the filter) and `pidfd_getfd` (taking a
descriptor out of another process) — so a command can neither
reach a socket of the person's that the file system shows (a read-only bind doesn't stop
`connect()`), nor talk to another of the session's commands through one: the channel a process
would use to hand a finished command's overlay to a running one. Stream and seqpacket
`socketpair()`s stay (programs use them for their own pipes): their ends are connected, can't be
disconnected, can't listen and can't send to a name. Every other socket family stays too (the
network is the namespace's).

The filter is classic BPF, built here for the machine's architecture and handed to the sandbox's
bridge, which installs it in the command's process just before the command starts (the bridge
itself keeps its own sockets: the proxy's, the mirror's, and makes itself undumpable, so the
command can't ptrace it, read its `/proc/1/fd` or take its sockets with `pidfd_getfd`: the
kernel allows none of those on a process that isn't dumpable). Where the person lists sockets
(`allowUnixSockets`) the filter is off: a filter can't tell one path from another; the bridge
still makes itself undumpable.
"""

from __future__ import annotations

import platform
import struct

# struct seccomp_data: nr at 0, arch at 4, args at 16 + 8 n (the low 32 bits, little endian)
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_AND_K = 0x54  # BPF_ALU | BPF_AND | BPF_K
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
EACCES = 13
AF_UNIX = 1
SOCK_STREAM = 1
SOCK_SEQPACKET = 5
#: the same number on every architecture (the syscalls added since 5.x share one table)
PIDFD_GETFD = 438
_SOCK_TYPE_MASK = 0xF  # the type without SOCK_NONBLOCK / SOCK_CLOEXEC
_X32 = 0x40000000

#: machine -> (AUDIT_ARCH_*, socket, socketpair, io_uring_setup, prctl)
ARCHES = {
    "x86_64": (0xC000003E, 41, 53, 425, 157),
    "aarch64": (0xC00000B7, 198, 199, 425, 167),
}

#: an instruction: (code, k, where to go when true, when false) — a label or None (the next)
_Step = tuple[int, int, str | None, str | None]


def _assemble(steps: list[tuple[str, _Step]]) -> bytes:
    """Classic BPF from labelled steps (jumps count from the next instruction)."""
    at = {label: n for n, (label, _) in enumerate(steps) if label}
    out = b""
    for n, (_, (code, k, yes, no)) in enumerate(steps):
        jt = at[yes] - n - 1 if yes else 0
        jf = at[no] - n - 1 if no else 0
        out += struct.pack("=HBBI", code, jt, jf, k)
    return out


def unix_socket_filter(machine: str | None = None) -> bytes | None:
    """The filter's instructions (struct sock_filter, 8 bytes each), or None where this
    architecture isn't known (the sandbox then runs without it)."""
    known = ARCHES.get(machine or platform.machine())
    if known is None:
        return None
    arch, socket_nr, pair_nr, uring_nr, _ = known
    steps: list[tuple[str, _Step]] = [
        ("", (_LD_W_ABS, _ARCH, None, None)),
        ("", (_JEQ_K, arch, "native", "deny")),  # another ABI (i386's socketcall): refused
        ("native", (_LD_W_ABS, _NR, None, None)),
        ("", (_JGE_K, _X32, "deny", None)),  # the x32 ABI's numbers (another socket())
        ("", (_JEQ_K, uring_nr, "deny", None)),
        ("", (_JEQ_K, PIDFD_GETFD, "deny", None)),
        ("", (_JEQ_K, socket_nr, "family", None)),
        ("", (_JEQ_K, pair_nr, "pair", "allow")),
        ("family", (_LD_W_ABS, _ARG0, None, None)),  # socket(): AF_UNIX refused
        ("", (_JEQ_K, AF_UNIX, "deny", "allow")),
        ("pair", (_LD_W_ABS, _ARG0, None, None)),  # socketpair(): AF_UNIX stream or seqpacket
        ("", (_JEQ_K, AF_UNIX, None, "allow")),
        ("", (_LD_W_ABS, _ARG1, None, None)),
        ("", (_AND_K, _SOCK_TYPE_MASK, None, None)),
        ("", (_JEQ_K, SOCK_STREAM, "allow", None)),
        ("", (_JEQ_K, SOCK_SEQPACKET, "allow", "deny")),
        ("deny", (_RET_K, _ERRNO | EACCES, None, None)),
        ("allow", (_RET_K, _ALLOW, None, None)),
    ]
    return _assemble(steps)


def bridge_argument(allow_unix: bool) -> str:
    """The bridge's `PRCTL:HEX`: prctl's syscall number (the bridge makes itself undumpable
    with it) and the filter's instructions (none when the person lists sockets); "" where this
    architecture isn't known."""
    known = ARCHES.get(platform.machine())
    program = unix_socket_filter()
    if known is None or program is None:
        return ""
    return f"{known[4]}:{'' if allow_unix else program.hex()}"
