"""Programs that run another program and keep a log of it, or watch it — strace, ltrace,
valgrind, util-linux's `script`, procps' `watch`, gdb — unwrapped like the wrappers
(wrappers.py), so the program they run is checked (and deny rules see it: `strace git push`)
and the log they write is a write (`strace -o F`, `valgrind --massif-out-file=F`).

Tables: strace 6 (`strace -h`), ltrace 0.7, valgrind 3 (every option is `--name=value`; a tool's
output files are its `--…-file` options, and `%q{VAR}` in a file name is the environment's, so
known only at run time), util-linux 2.38 `script` (its command is a string run through the
shell: `script -c STRING`; without one it starts a shell that reads standard input), procps-ng
4 `watch` (its words joined and run by `sh -c`, or as a program with `-x`), gdb 13 (deny by
default: only `--batch` runs with what the person can't see, and its `-ex` commands are the
read-only ones of a backtrace). Attaching to a running process (`strace -p`, `gdb -p`) asks:
it reads what another process, the app's own included, reads and holds. valgrind also reads a
`./.valgrindrc` in the folder it runs in (`project_options`): a project's own one asks.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from agent_tui.permissions.analysis import Argv, Part, Word
from agent_tui.permissions.getopt import (
    NONE,
    OPTIONAL,
    REQUIRED,
    Spec,
    Unclear,
    long_name,
    parse,
    scan,
)
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


_ATTACH = "attaching to a running process reads what it reads and holds (the app's own too)"
LTRACE = Spec(
    "ltrace",
    "+a:A:bcCD:e:F:fhiLl:n:o:p:rs:StTu:Vw:x:",
    {
        **dict.fromkeys(("demangle", "help", "version", "no-signals"), NONE),
        **dict.fromkeys(("align", "config", "debug", "indent", "library", "output"), REQUIRED),
        "where": REQUIRED,
    },
)
WATCH = Spec(
    "watch",
    "+bcCd::eghn:pq:rtwvx",
    {
        **dict.fromkeys(("beep", "color", "no-color", "errexit", "chgexit", "precise"), NONE),
        **dict.fromkeys(("no-rerun", "no-title", "no-wrap", "exec", "help", "version"), NONE),
        **dict.fromkeys(("equexit", "interval"), REQUIRED),
        "differences": OPTIONAL,
    },
)


def _strace(argv: Argv) -> Unwrapped:
    p = parse(argv, STRACE)
    logs = p.values("-o", "--output")
    if any(v is None or v.startswith(("|", "!")) for v in logs):
        raise Unclear("strace -o |COMMAND runs a command with the trace")
    if p.has("-p", "--attach"):
        raise Unclear(_ATTACH)
    if p.has("-h", "--help", "-V", "--version"):
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
        if key.endswith(("-file", "-prefix")):  # --log-file, --massif-out-file, --vgdb-prefix…
            writes.append(None if not value or "%q{" in value else value)
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


def _ltrace(argv: Argv) -> Unwrapped:
    p = parse(argv, LTRACE)
    if p.has("-p"):
        raise Unclear(_ATTACH)
    if p.has("-h", "--help", "-V", "--version"):
        return Unwrapped(None)
    return Unwrapped(p.operand, writes=tuple(p.values("-o", "--output")))


def _watch(argv: Argv) -> Unwrapped:
    p = parse(argv, WATCH)
    if p.has("-h", "--help", "-v", "--version") or p.operand >= len(argv):
        return Unwrapped(None)
    if p.has("-x", "--exec"):
        return Unwrapped(p.operand)
    words = argv[p.operand :]  # joined with spaces and run by `sh -c`
    return Unwrapped(None, code=None if None in words else " ".join(w or "" for w in words))


#: gdb's options (getopt_long_only: one dash or two, any unambiguous prefix) that neither run
#: anything nor write: name -> takes a value
_GDB_OPTIONS = {
    **dict.fromkeys(("core", "c", "exec", "e", "se", "symbols", "s", "directory", "d"), True),
    **dict.fromkeys(("cd", "b", "l", "ex", "eval-command", "iex", "init-eval-command"), True),
    **dict.fromkeys(("x", "command", "ix", "init-command", "p", "pid", "D"), True),
    **dict.fromkeys(("data-directory", "tty", "interpreter"), True),
    **dict.fromkeys(("args", "readnow", "readnever", "nh", "nx", "n", "fullname", "nw"), False),
    **dict.fromkeys(("q", "quiet", "silent", "batch", "batch-silent", "write", "w"), False),
    **dict.fromkeys(("return-child-result", "configuration", "help", "version", "tui"), False),
}
#: what runs commands from a file, starts python from a folder, attaches, writes or takes a
#: terminal
_GDB_ASKS = {
    "x": "runs gdb commands from a file",
    "command": "runs gdb commands from a file",
    "ix": "runs gdb commands from a file",
    "init-command": "runs gdb commands from a file",
    "p": _ATTACH,
    "pid": _ATTACH,
    "D": "loads gdb's Python code from that folder",
    "data-directory": "loads gdb's Python code from that folder",
    "write": "writes into the program and core files",
    **dict.fromkeys(("tty", "interpreter", "w", "tui"), "talks to a terminal or another program"),
}
_GDB_COMMANDS = {"bt", "backtrace", "where", "info", "i", "disassemble", "frame", "f", "up"}
_GDB_COMMANDS |= {"down", "ptype", "whatis", "full", "registers", "all", "threads"}
_GDB_WORD = re.compile(r"[\w.-]+")


def _gdb(argv: Argv) -> Unwrapped:
    """gdb under a rule inspects: `--batch`, and `-ex` commands that only show (a backtrace,
    `info …`); anything that may run a program, read commands, or attach asks."""
    names = tuple(_GDB_OPTIONS)
    given: set[str] = set()
    i, operands = 1, 0
    while i < len(argv):
        a = argv[i]
        if a is None:
            raise Unclear("gdb arguments that aren't known statically")
        if not a.startswith("-") or a == "-":
            operands += 1
            if operands == 2 and a.isdigit():
                raise Unclear(_ATTACH)  # `gdb PROGRAM PID`
            i += 1
            continue
        key, eq, attached = a.lstrip("-").partition("=")
        value: Word = attached
        name = key if key in _GDB_OPTIONS else long_name("--" + key, names)
        if name is None:
            raise Unclear(f"gdb {a} is not an option this check knows")
        if name in _GDB_ASKS:
            raise Unclear(f"gdb {a} {_GDB_ASKS[name]}")
        given.add(name)
        if name == "args":
            break  # the program and its arguments: run only by a `run` command
        if _GDB_OPTIONS[name] and not eq:
            i += 1
            value = argv[i] if i < len(argv) else None
        if name in ("ex", "eval-command", "iex", "init-eval-command") and not _gdb_shows(value):
            raise Unclear(f"gdb {a} {value!r}: a gdb command may run a program")
        i += 1
    if not given & {"batch", "batch-silent", "help", "version", "configuration"}:
        raise Unclear("gdb without --batch reads its commands from standard input")
    return Unwrapped(None)


def _gdb_shows(command: Word) -> bool:
    """A gdb command that only shows (no expression: `$_shell(…)` would run one)."""
    words = (command or "").split()
    if words[:2] == ["thread", "apply"]:
        words = [w for w in words[2:] if not w.isdigit() and w != "all"]
    return (
        bool(words)
        and words[0] in _GDB_COMMANDS
        and all(_GDB_WORD.fullmatch(w) and not w.startswith("-") for w in words)
    )


TRACERS: dict[str, Callable[[Argv], Unwrapped]] = {
    "strace": _strace,
    "ltrace": _ltrace,
    "valgrind": _valgrind,
    "script": _script,
    "watch": _watch,
    "gdb": _gdb,
}


def unwrap(base: str, argv: Argv, keyword: bool) -> Unwrapped | None:
    """A wrapper's (wrappers.py) or tracer's unwrapping of argv, or None: not one."""
    tracer = TRACERS.get(base)
    return tracer(argv) if tracer is not None else unwrap_wrapper(base, argv, keyword)


def project_options(parts: Sequence[Part], dirs: Sequence[Path] | None) -> str | None:
    """Why a tracer in `parts` would take options from a file in the folder it runs in
    (valgrind's `./.valgrindrc`: a log file anywhere, say), or None."""
    for part in parts:
        if any(argv and argv[0] and os.path.basename(argv[0]) == "valgrind"
               for argv in (part.argv, *part.outer)):  # fmt: skip
            for d in dirs if dirs is not None else ():
                if os.path.isfile(d / ".valgrindrc"):
                    return f"{d / '.valgrindrc'} sets valgrind's options (log files it writes)"
            if dirs is None:
                return "valgrind runs in a folder not known statically (its ./.valgrindrc)"
    return None
