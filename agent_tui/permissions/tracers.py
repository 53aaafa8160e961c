"""Programs that run another program and keep a log of it — strace, valgrind, util-linux's
`script` — unwrapped like the wrappers (wrappers.py), so the program they run is checked (and
deny rules see it: `strace git push`) and the log they write is a write (`strace -o F`).

Tables: strace 6 (`strace -h`), valgrind 3 (every option is `--name=value`), util-linux 2.38
`script` (its command is a string run through the shell: `script -c STRING`; without one it
starts a shell that reads standard input).
"""

from __future__ import annotations

from collections.abc import Callable

from agent_tui.permissions.analysis import Argv, Word
from agent_tui.permissions.getopt import NONE, OPTIONAL, REQUIRED, Spec, Unclear, parse, scan
from agent_tui.permissions.wrappers import Unwrapped
from agent_tui.permissions.wrappers import unwrap as unwrap_wrapper

_STRACE_REQUIRED = (
    "env", "attach", "user", "detach-on", "interruptible", "trace", "signal", "status",
    "trace-path", "columns", "abbrev", "verbose", "raw", "read", "write", "kvm", "output",
    "string-limit", "const-print-style", "summary-syscall-overhead", "summary-sort-by",
    "summary-columns", "inject", "fault",
)  # fmt: skip
_STRACE_OPTIONAL = (
    "daemonize", "quiet", "relative-timestamps", "absolute-timestamps", "syscall-times",
    "strings-in-hex", "decode-fds", "decode-pids",
)  # fmt: skip
STRACE = Spec(
    "strace",
    "+a:Ab:cCdDe:E:fFhiI:kno:O:p:P:qrs:S:tTu:U:vVwxX:yYzZ",
    {
        **dict.fromkeys(
            ("help", "version", "follow-forks", "output-separately", "output-append-mode"),
            NONE,
        ),
        **dict.fromkeys(("instruction-pointer", "stack-traces", "syscall-number"), NONE),
        **dict.fromkeys(("summary-only", "summary", "summary-wall-clock", "no-abbrev"), NONE),
        **dict.fromkeys(("successful-only", "failed-only", "debug", "seccomp-bpf"), NONE),
        **dict.fromkeys(_STRACE_REQUIRED, REQUIRED),
        **dict.fromkeys(_STRACE_OPTIONAL, OPTIONAL),
    },
)
SCRIPT = Spec(
    "script",
    "aB:c:eE:fhI:m:o:O:qT:t::V",
    {
        **dict.fromkeys(("append", "return", "flush", "force", "quiet", "help", "version"), NONE),
        **dict.fromkeys(("log-in", "log-out", "log-io", "log-timing", "command"), REQUIRED),
        **dict.fromkeys(("logging-format", "output-limit", "echo"), REQUIRED),
        "timing": OPTIONAL,
    },
    stop_at_operand=False,
)


def _strace(argv: Argv) -> Unwrapped:
    p = parse(argv, STRACE)
    logs = p.values("-o", "--output")
    if any(v is None or v.startswith(("|", "!")) for v in logs):
        raise Unclear("strace -o |COMMAND runs a command with the trace")
    if p.has("-p", "--attach", "-h", "--help", "-V", "--version"):
        return Unwrapped(None, writes=tuple(logs))
    assigned = tuple(_pair(v) for v in p.values("-E", "--env"))
    return Unwrapped(p.operand, assigned, writes=tuple(logs))


def _pair(value: Word) -> tuple[str, Word]:
    if value is None:
        raise Unclear("strace -E with a variable that isn't known statically")
    name, _, rest = value.partition("=")
    return name, rest


def _valgrind(argv: Argv) -> Unwrapped:
    """valgrind's options are `--name=value` (or `-q`, `-v`, `-d`); the first other word runs."""
    writes: list[Word] = []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a is None:
            raise Unclear("valgrind arguments that aren't known statically")
        if not a.startswith("-"):
            break
        key, _, value = a.partition("=")
        if key in ("--log-file", "--xml-file", "--vgdb-prefix", "--xtree-memory-file"):
            writes.append(value or None)
        elif key in ("--log-socket", "--xml-socket"):
            raise Unclear(f"valgrind {key} sends the log over the network")
        i += 1
    return Unwrapped(i if i < len(argv) else None, writes=tuple(writes))


def _script(argv: Argv) -> Unwrapped:
    p, files = scan(argv, SCRIPT)  # util-linux permutes: `script FILE -c STRING`
    if p.has("-h", "--help", "-V", "--version"):
        return Unwrapped(None)
    logs = p.values("-B", "-I", "-O", "-T", "--log-in", "--log-out", "--log-io", "--log-timing")
    logs += [v for v in p.values("-t", "--timing") if v is not None]
    logs += files[:1] if files else ["typescript"]
    code = (p.values("-c", "--command") or [""])[-1]
    if code == "":
        raise Unclear("script without -c starts a shell that reads standard input")
    return Unwrapped(None, writes=tuple(logs), code=code)


TRACERS: dict[str, Callable[[Argv], Unwrapped]] = {
    "strace": _strace,
    "valgrind": _valgrind,
    "script": _script,
}


def unwrap(base: str, argv: Argv, keyword: bool) -> Unwrapped | None:
    """A wrapper's (wrappers.py) or tracer's unwrapping of argv, or None: not one."""
    tracer = TRACERS.get(base)
    return tracer(argv) if tracer is not None else unwrap_wrapper(base, argv, keyword)
