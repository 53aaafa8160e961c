"""Commands that run another command (`env`, `nohup`, `time`, `nice`, `timeout`, `command`,
`builtin`, `exec`, `setsid`, `stdbuf`, `xargs`): for each, where the wrapped command starts in
argv and which variables it assigns. Options that can't be read statically raise `Unclear`."""

from __future__ import annotations

from typing import Literal

from agent_tui.permissions.analysis import Argv


class Unclear(Exception):
    pass


def _env(argv: Argv) -> tuple[int | None, tuple[str, ...]]:
    i, names = 1, []
    while i < len(argv):
        a = argv[i]
        if a is None:
            raise Unclear("env arguments that aren't known statically")
        if a in ("-i", "--ignore-environment", "-0", "--null", "-"):
            i += 1
        elif a in ("-u", "--unset"):
            i += 2
        elif a.startswith(("-u", "--unset=")) or a == "--":
            i += 1
        elif a.startswith("-"):
            raise Unclear(f"env {a} can't be checked statically")
        elif "=" in a:
            names.append(a.split("=", 1)[0])
            i += 1
        else:
            return i, tuple(names)
    return None, tuple(names)


def _skip_options(argv: Argv, with_arg: frozenset[str], name: str) -> int:
    i = 1
    while i < len(argv):
        a = argv[i]
        if a is None:
            raise Unclear(f"{name} arguments that aren't known statically")
        if a == "--":
            return i + 1
        if a in with_arg:
            i += 2
        elif a.startswith("-") and len(a) > 1:
            i += 1
        else:
            return i
    return i


def _simple_wrapper(with_arg: frozenset[str], name: str):  # type: ignore[no-untyped-def]
    def unwrap(argv: Argv) -> tuple[int | None, tuple[str, ...]]:
        return _skip_options(argv, with_arg, name), ()

    return unwrap


def _timeout(argv: Argv) -> tuple[int | None, tuple[str, ...]]:
    i = _skip_options(argv, frozenset({"-s", "--signal", "-k", "--kill-after"}), "timeout")
    return (i + 1 if i < len(argv) else i), ()  # skip the duration


def _command(argv: Argv) -> tuple[int | None, tuple[str, ...]]:
    if any(a in ("-v", "-V") for a in argv[1:2]):
        return None, ()  # a lookup, not a run: the part itself needs a rule
    return _skip_options(argv, frozenset(), "command"), ()


def _xargs(argv: Argv) -> tuple[int | None, tuple[str, ...]]:
    with_arg = frozenset({"-a", "-d", "-E", "-e", "-I", "-L", "-l", "-n", "-P", "-s", "-R", "-S"})
    flags = frozenset({"-0", "-o", "-p", "-r", "-t", "-x", "--null", "--no-run-if-empty"})
    i = 1
    while i < len(argv):
        a = argv[i]
        if a is None:
            raise Unclear("xargs arguments that aren't known statically")
        if a == "--":
            return i + 1, ()
        if a in with_arg:
            i += 2
        elif a in flags or (a.startswith("--") and "=" in a) or (a[:2] in with_arg and len(a) > 2):
            i += 1
        elif a.startswith("-"):
            raise Unclear(f"xargs {a} can't be checked statically")
        else:
            return i, ()
    return i, ()


def _nice(argv: Argv) -> tuple[int | None, tuple[str, ...]]:
    return _skip_options(argv, frozenset({"-n", "--adjustment"}), "nice"), ()


WRAPPERS = {
    "env": _env,
    "nohup": _simple_wrapper(frozenset(), "nohup"),
    "time": _simple_wrapper(frozenset(), "time"),
    "nice": _nice,
    "timeout": _timeout,
    "command": _command,
    "builtin": _simple_wrapper(frozenset(), "builtin"),
    "exec": _simple_wrapper(frozenset({"-a"}), "exec"),
    "setsid": _simple_wrapper(frozenset(), "setsid"),
    "stdbuf": _simple_wrapper(frozenset({"-i", "-o", "-e"}), "stdbuf"),
    "xargs": _xargs,
}


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


_SUDO_WITH_ARG = frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "-R"})
_SUDO_FLAGS = frozenset({"-A", "-b", "-E", "-H", "-n", "-P", "-S", "-k", "-B", "-N"})


def sudo_command(argv: Argv) -> int | None:
    """Where the command sudo/doas runs starts in argv (None: no command)."""
    i = 1
    while i < len(argv):
        a = argv[i]
        if a is None:
            raise Unclear("sudo options that aren't known statically")
        if a == "--":
            i += 1
            break
        if a in _SUDO_WITH_ARG:
            i += 2
        elif a in _SUDO_FLAGS or (a.startswith("--") and "=" in a):
            i += 1
        elif a.startswith("-"):
            raise Unclear(f"sudo {a} can't be checked statically")
        else:
            break
    return i if i < len(argv) else None
