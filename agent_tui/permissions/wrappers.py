"""Commands that run another command, each read with its real option table (`getopt.Spec`, from
the program's manual): where the wrapped command starts, what the wrapper itself writes, which
variables it sets, whether it changes directory or runs a string through a shell. Options that
can't be read statically (an unknown option, a word not known before running) raise `Unclear`:
the command then asks.

Tables: GNU coreutils 9 (env, nice, nohup, stdbuf, timeout), GNU time 1.9, util-linux 2.38
(setsid, chrt, ionice, taskset, flock), GNU findutils 4.9 (xargs, plus BSD's value-taking
-J/-R/-S), bash 5 builtins (command, builtin, exec, the `time` keyword), sudo 1.9, OpenBSD doas.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from agent_tui.permissions.analysis import Argv, Word
from agent_tui.permissions.getopt import NONE, OPTIONAL, REQUIRED, Spec, Unclear, parse

__all__ = ["WRAPPERS", "Unclear", "Unwrapped", "shell_invocation", "sudo_command", "unwrap"]


@dataclass(frozen=True)
class Unwrapped:
    #: index in argv where the wrapped command starts; None: the wrapper runs no command
    start: int | None
    #: `NAME=value` pairs the wrapper puts in the command's environment
    assigned: tuple[tuple[str, Word], ...] = ()
    #: files the wrapper itself writes (`time -o F`, `flock F`)
    writes: tuple[Word, ...] = ()
    #: the wrapped command runs in another directory (`env -C DIR`)
    chdir: bool = False
    #: a string the wrapper runs through `sh -c` (`flock F -c STRING`)
    code: Word = ""
    #: words holding this text are filled in at run time (`xargs -I{}`)
    replace: str | None = None
    #: arguments are appended at run time (xargs)
    appends: bool = False


def _h(*names: str) -> dict[str, int]:
    return dict.fromkeys(names, NONE)


_HELP = _h("help", "version")

ENV = Spec(
    "env",
    "+C:iS:u:v0",
    {
        **_HELP,
        **_h("ignore-environment", "null", "list-signal-handling", "debug"),
        "chdir": REQUIRED,
        "unset": REQUIRED,
        "split-string": REQUIRED,
        "block-signal": OPTIONAL,
        "default-signal": OPTIONAL,
        "ignore-signal": OPTIONAL,
    },
)
GNU_TIME = Spec(
    "time",
    "+af:o:pqvV",
    {**_HELP, **_h("append", "portability", "quiet", "verbose"), "format": 1, "output": 1},
)
NICE = Spec("nice", "+n:", {**_HELP, "adjustment": REQUIRED})
NOHUP = Spec("nohup", "+", _HELP)
TIMEOUT = Spec(
    "timeout",
    "+k:s:fpv",
    {**_HELP, **_h("foreground", "preserve-status", "verbose"), "kill-after": 1, "signal": 1},
)
STDBUF = Spec("stdbuf", "+i:o:e:", {**_HELP, "input": 1, "output": 1, "error": 1})
SETSID = Spec("setsid", "+Vhcfw", {**_HELP, **_h("ctty", "fork", "wait")})
CHRT = Spec(
    "chrt",
    "+abdD:efiphmoP:T:rRvV",
    {
        **_HELP,
        **_h("all-tasks", "batch", "deadline", "ext", "fifo", "idle", "max", "other", "pid"),
        **_h("reset-on-fork", "rr", "verbose"),
        "sched-runtime": REQUIRED,
        "sched-period": REQUIRED,
        "sched-deadline": REQUIRED,
    },
)
IONICE = Spec(
    "ionice",
    "+c:n:p:P:tu:hV",
    {**_HELP, "class": 1, "classdata": 1, "pid": 1, "pgid": 1, "uid": 1, "ignore": NONE},
)
TASKSET = Spec("taskset", "+acphV", {**_HELP, **_h("all-tasks", "cpu-list", "pid")})
FLOCK = Spec(
    "flock",
    "+sexnoFuw:E:hV",
    {
        **_HELP,
        **_h("shared", "exclusive", "unlock", "nonblock", "nb", "close", "no-fork", "verbose"),
        "timeout": REQUIRED,
        "wait": REQUIRED,
        "conflict-exit-code": REQUIRED,
    },
)
XARGS = Spec(
    "xargs",
    "+0a:E:e::hi::I:l::L:n:oprs:txP:d:J:R:S:",
    {
        **_HELP,
        **_h("null", "open-tty", "interactive", "no-run-if-empty", "verbose", "show-limits"),
        "exit": NONE,
        "arg-file": REQUIRED,
        "delimiter": REQUIRED,
        "eof": OPTIONAL,
        "replace": OPTIONAL,
        "max-lines": OPTIONAL,
        "max-args": REQUIRED,
        "max-chars": REQUIRED,
        "max-procs": REQUIRED,
        "process-slot-var": REQUIRED,
    },
)
COMMAND = Spec("command", "pvV")
BUILTIN = Spec("builtin", "")
EXEC = Spec("exec", "cla:")
SUDO = Spec(
    "sudo",
    "+AbBC:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv",
    {
        **_HELP,
        **_h("askpass", "background", "bell", "edit", "set-home", "login", "remove-timestamp"),
        **_h("reset-timestamp", "list", "non-interactive", "preserve-groups", "stdin", "shell"),
        **_h("validate", "no-update"),
        "close-from": 1,
        "chdir": 1,
        "preserve-env": OPTIONAL,
        "group": 1,
        "host": 1,
        "prompt": 1,
        "chroot": 1,
        "role": 1,
        "type": 1,
        "command-timeout": 1,
        "other-user": 1,
        "user": 1,
    },
)
DOAS = Spec("doas", "+a:C:Lnsu:")


def _env(argv: Argv) -> Unwrapped:
    i = 1
    if len(argv) > 1 and argv[1] == "-":  # `env -` is `env -i`
        i = 2
    p = parse(argv, ENV, start=i)
    if p.has("-S", "--split-string"):
        raise Unclear("env -S splits a string into a command that isn't checked")
    if p.has("--help", "--version"):
        return Unwrapped(None)
    i = p.operand
    assigned: list[tuple[str, Word]] = []
    while i < len(argv):
        a = argv[i]
        if a is None:
            raise Unclear("env arguments that aren't known statically")
        if "=" not in a:
            break
        name, value = a.split("=", 1)
        assigned.append((name, value))
        i += 1
    return Unwrapped(
        i if i < len(argv) else None,
        tuple(assigned),
        chdir=p.has("-C", "--chdir"),
    )


def _time_keyword(argv: Argv) -> Unwrapped:
    """bash's `time` keyword: `-p` once, then `--` once; anything else is the command."""
    i = 1
    if i < len(argv) and argv[i] == "-p":
        i += 1
    if i < len(argv) and argv[i] == "--":
        i += 1
    return Unwrapped(i if i < len(argv) else None)


def _gnu_time(argv: Argv) -> Unwrapped:
    p = parse(argv, GNU_TIME)
    if p.has("--help", "--version", "-V"):
        return Unwrapped(None)
    return Unwrapped(p.operand, writes=tuple(p.values("-o", "--output")))


def _plain(spec: Spec) -> Callable[[Argv], Unwrapped]:
    def unwrap(argv: Argv) -> Unwrapped:
        p = parse(argv, spec)
        if p.has("--help", "--version", "-h", "-V") and spec.name not in ("exec", "sudo"):
            return Unwrapped(None)
        return Unwrapped(p.operand)

    return unwrap


_NICE_NUMBER = re.compile(r"-[+-]?\d+")


def _nice(argv: Argv) -> Unwrapped:
    start = 2 if len(argv) > 1 and argv[1] is not None and _NICE_NUMBER.fullmatch(argv[1]) else 1
    p = parse(argv, NICE, start=start)
    if p.has("--help", "--version"):
        return Unwrapped(None)
    return Unwrapped(p.operand)


def _timeout(argv: Argv) -> Unwrapped:
    p = parse(argv, TIMEOUT)
    if p.has("--help", "--version"):
        return Unwrapped(None)
    return Unwrapped(p.operand + 1)  # the duration comes first


def _command(argv: Argv) -> Unwrapped:
    p = parse(argv, COMMAND)
    if p.has("-v", "-V"):
        return Unwrapped(None)  # a lookup, not a run
    return Unwrapped(p.operand)


def _chrt(argv: Argv) -> Unwrapped:
    p = parse(argv, CHRT)
    if p.has("-p", "--pid", "-m", "--max", "-h", "-V", "--help", "--version"):
        return Unwrapped(None)
    i = p.operand
    if i < len(argv) and argv[i] is not None and (argv[i] or "").isdigit():
        i += 1  # the priority (optional for the policies without one)
    if i < len(argv) and argv[i] is None:
        raise Unclear("chrt arguments that aren't known statically")
    return Unwrapped(i)


def _ionice(argv: Argv) -> Unwrapped:
    p = parse(argv, IONICE)
    if p.has("-p", "-P", "-u", "--pid", "--pgid", "--uid", "-h", "-V", "--help", "--version"):
        return Unwrapped(None)
    return Unwrapped(p.operand)


def _taskset(argv: Argv) -> Unwrapped:
    p = parse(argv, TASKSET)
    if p.has("-p", "--pid", "-h", "-V", "--help", "--version"):
        return Unwrapped(None)
    return Unwrapped(p.operand + 1)  # the mask or cpu list comes first


def _flock(argv: Argv) -> Unwrapped:
    p = parse(argv, FLOCK)
    if p.has("-h", "-V", "--help", "--version"):
        return Unwrapped(None)
    i = p.operand
    if i >= len(argv):
        return Unwrapped(None)
    lock = argv[i]
    if lock is not None and lock.isdigit() and i + 1 == len(argv):
        return Unwrapped(None)  # `flock 9`: a descriptor, no command
    nxt = argv[i + 1] if i + 1 < len(argv) else ""
    if nxt in ("-c", "--command") or (nxt and nxt.startswith("--command=")):
        code = argv[i + 2] if nxt in ("-c", "--command") and i + 2 < len(argv) else None
        if nxt and nxt.startswith("--command="):
            code = nxt.split("=", 1)[1]
        return Unwrapped(None, writes=(lock,), code=code)
    if nxt is None:
        raise Unclear("flock arguments that aren't known statically")
    return Unwrapped(i + 1 if i + 1 < len(argv) else None, writes=(lock,))


def _xargs(argv: Argv) -> Unwrapped:
    p = parse(argv, XARGS)
    if p.has("-h", "--help", "--version"):
        return Unwrapped(None)
    replace: str | None = None
    for opt, value in p.options:
        if opt in ("-I", "-J", "-R"):
            replace = value if opt != "-R" else replace
        elif opt in ("-i", "--replace"):
            replace = value or "{}"
    slot = tuple((v, "0") for v in p.values("--process-slot-var") if v is not None)
    if any(v is None for v in p.values("--process-slot-var")):
        raise Unclear("xargs --process-slot-var with a name that isn't known statically")
    return Unwrapped(p.operand, slot, replace=replace, appends=replace is None)


def _sudo(argv: Argv) -> Unwrapped:
    p = parse(argv, SUDO)
    if p.has("-e", "--edit"):
        raise Unclear("sudo -e edits files as another user")
    if p.has("-s", "--shell", "-i", "--login") and p.operand >= len(argv):
        raise Unclear("sudo starts a shell that reads commands from standard input")
    listing = ("-l", "--list", "-v", "--validate", "-k", "-K", "-V", "--version", "--help")
    if p.has(*listing) and p.operand >= len(argv):
        return Unwrapped(None)
    return _assignments_then_command(argv, p.operand)


def _doas(argv: Argv) -> Unwrapped:
    p = parse(argv, DOAS)
    if p.has("-C", "-L"):
        return Unwrapped(None)
    if p.has("-s") and p.operand >= len(argv):
        raise Unclear("doas -s starts a shell that reads commands from standard input")
    return Unwrapped(p.operand if p.operand < len(argv) else None)


def _assignments_then_command(argv: Argv, i: int) -> Unwrapped:
    assigned: list[tuple[str, Word]] = []
    while i < len(argv) and argv[i] is not None and "=" in (argv[i] or ""):
        name, value = (argv[i] or "").split("=", 1)
        if not name.replace("_", "a").isalnum():
            break
        assigned.append((name, value))
        i += 1
    return Unwrapped(i if i < len(argv) else None, tuple(assigned))


WRAPPERS: dict[str, Callable[[Argv], Unwrapped]] = {
    "env": _env,
    "nohup": _plain(NOHUP),
    "time": _gnu_time,
    "nice": _nice,
    "timeout": _timeout,
    "command": _command,
    "builtin": _plain(BUILTIN),
    "exec": _plain(EXEC),
    "setsid": _plain(SETSID),
    "stdbuf": _plain(STDBUF),
    "chrt": _chrt,
    "ionice": _ionice,
    "taskset": _taskset,
    "flock": _flock,
    "xargs": _xargs,
}


def unwrap(base: str, argv: Argv, keyword: bool) -> Unwrapped | None:
    """The wrapper `base` (its argv), or None when it isn't one. `keyword`: the word is bash's
    own unquoted `time` at the head of a pipeline (not GNU time)."""
    if base == "time" and keyword:
        return _time_keyword(argv)
    fn = WRAPPERS.get(base)
    return fn(argv) if fn else None


def sudo_command(argv: Argv) -> Unwrapped:
    """What sudo/doas runs (start None: no command)."""
    base = (argv[0] or "").rsplit("/", 1)[-1]
    return _doas(argv) if base == "doas" else _sudo(argv)


def shell_invocation(argv: Argv) -> tuple[Literal["string", "stdin", "script", "unclear"], int]:
    """How `sh`/`bash`/… gets its commands: from a `-c` string (at the returned index), standard
    input, a script file, or arguments that can't be read statically."""
    i, has_c, stdin = 1, False, False
    while i < len(argv):
        a = argv[i]
        if a is None:
            if not has_c:
                return "unclear", i
            break
        if a == "--" or a == "-":
            stdin = stdin or a == "-"
            i += 1
            break
        if a.startswith("--"):
            i += 2 if a in ("--rcfile", "--init-file") else 1
            continue
        if len(a) > 1 and a[0] in "-+":
            has_c = has_c or "c" in a[1:]
            stdin = stdin or "s" in a[1:]
            i += 1 + a[1:].count("o") + a[1:].count("O")
            continue
        break
    if has_c:
        return "string", i
    return ("stdin" if stdin or i >= len(argv) else "script"), i
