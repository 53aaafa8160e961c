"""bash builtins that run a string, a file or a shared object, or that change what a later word
runs — each of which asks whatever rule matched, since a rule for the builtin grants its ordinary
use (listing, reading input), never running code (bash 5's `help`, every builtin surveyed):

- strings run later or now: `trap ACTION SIG`, `mapfile`/`readarray -C CALLBACK`, `compgen` and
  `complete` with `-C COMMAND`, `-F FUNCTION` or a `-W` word list that expands code, `bind -x`,
  `fc` (re-runs history, through an editor it names), `jobs -x COMMAND`;
- what a name runs: `hash -p PATH NAME`, `enable -f FILE` (a shared object), `enable -n` (a
  builtin gives way to a program found on PATH), `alias NAME=VALUE`;
- variables bash itself reads (`PS4`, `PROMPT_COMMAND`, `PATH`, `BASH_ENV`, …) set by name
  through `read`, `mapfile`, `printf -v`, `getopts` or `wait -p` (`read -r PS4 <<< '$(cmd)';
  set -x` runs cmd); plain assignments to them ask already (variables.py);
- `source FILE` / `. FILE` runs the file: under its rule it still asks when the same command
  writes the file, or the file isn't known statically (`runs_written_file`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from agent_tui.permissions.analysis import Analysis, Word
from agent_tui.permissions.command_extras import Extra
from agent_tui.permissions.variables import statement_is_harmless

#: the builtins' options that take a value (bash's internal_getopt: bundled, attached or not)
_VALUES = {
    "read": "adinNptu",
    "mapfile": "dnOsuCc",
    "readarray": "dnOsuCc",
    "printf": "v",
    "wait": "p",
    "compgen": "oAGWFCXPS",
    "complete": "oAGWFCXPS",
    "bind": "mfqurx",
    "fc": "e",
    "enable": "f",
    "hash": "p",
}
#: the option letters whose value is run as code
_RUNS = {"compgen": "CF", "complete": "CF", "bind": "xf"}  # mapfile -C: command_risks.toml


def _options(name: str, args: Sequence[Word]) -> tuple[list[tuple[str, Word]], list[Word]]:
    """(letter, value or None) for each option, and the operands (from the first non-option)."""
    with_value = _VALUES.get(name, "")
    found: list[tuple[str, Word]] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a is None or a == "-" or not a.startswith("-") or (name == "printf" and i > 0):
            break
        if a == "--":
            i += 1
            break
        for j, letter in enumerate(a[1:], start=1):
            if letter in with_value:
                rest = a[j + 1 :]
                value = rest or (args[i + 1] if i + 1 < len(args) else None)
                found.append((letter, value))
                i += 0 if rest else 1
                break
            found.append((letter, None))
        i += 1
    return found, list(args[i:])


def builtin_effects(name: str, args: list[Word], out: Extra) -> None:
    handler = _HANDLERS.get(name)
    if handler is not None:
        why = handler(name, args)
        if why:
            out.runs.append(why)


def _runs_option(name: str, args: list[Word]) -> str | None:
    options, _ = _options(name, args)
    for letter, value in options:
        if letter in _RUNS.get(name, ""):
            return f"`{name} -{letter}` runs a command or function it is given"
        if letter == "W" and (value is None or any(c in value for c in "$`<>")):
            return f"`{name} -W` expands its word list, which can run a command"
    return _assigned(name, args) if name in ("mapfile", "readarray") else None


def _trap(name: str, args: list[Word]) -> str | None:
    options, operands = _options(name, args)
    if any(letter in "lp" for letter, _ in options) or len(operands) < 2:
        return None  # listing, or resetting one signal
    if operands[0] in ("", "-"):
        return None  # ignoring or resetting
    return "`trap` runs its action when the signal (or EXIT, DEBUG, ERR, RETURN) comes"


def _enable(name: str, args: list[Word]) -> str | None:
    options, operands = _options(name, args)
    letters = {letter for letter, _ in options}
    if "f" in letters or "d" in letters:
        return "`enable -f` loads a builtin from a shared object (code)"
    if "n" in letters and operands:
        return "`enable -n` lets a program found on PATH run in place of a builtin"
    return None


#: builtins that run code when an option letter is given (fc: unless `-l` lists)
_BY_LETTER = {
    "hash": ("p", True, "`hash -p` makes a name run the program it gives"),
    "jobs": ("x", True, "`jobs -x` runs the command it is given"),
    "fc": ("l", False, "`fc` runs commands from the history (through the editor it names)"),
}


def _by_letter(name: str, args: list[Word]) -> str | None:
    letter, given, why = _BY_LETTER[name]
    options, _ = _options(name, args)
    return why if any(o == letter for o, _ in options) == given else None


def _alias(name: str, args: list[Word]) -> str | None:
    _, operands = _options(name, args)
    if any(a is None or "=" in a for a in operands):
        return "`alias NAME=VALUE` changes what a later command runs"
    return None


def _assigned(name: str, args: list[Word]) -> str | None:
    """A variable bash reads (PS4, PATH, PROMPT_COMMAND, …) set by name."""
    options, operands = _options(name, args)
    if name == "printf" or name == "wait":
        names = [v for letter, v in options if letter in "vp"]
    elif name == "read":
        names = [v for letter, v in options if letter == "a"] + operands
    elif name == "getopts":
        names = operands[1:2]
    else:  # mapfile / readarray
        names = operands[-1:]
    for n in names:
        if not statement_is_harmless(n):
            return f"`{name}` sets {n or 'a variable'}, which changes how later commands run"
    return None


def _ed(name: str, args: list[Word]) -> str | None:
    return f"`{name}` reads editing commands (which can run programs) from standard input"


_HANDLERS: dict[str, Callable[[str, list[Word]], str | None]] = {
    "compgen": _runs_option,
    "complete": _runs_option,
    "bind": _runs_option,
    "mapfile": _runs_option,
    "readarray": _runs_option,
    "trap": _trap,
    "enable": _enable,
    "hash": _by_letter,
    "fc": _by_letter,
    "jobs": _by_letter,
    "alias": _alias,
    "read": _assigned,
    "printf": _assigned,
    "getopts": _assigned,
    "wait": _assigned,
    "ed": _ed,
    "ex": _ed,
}

#: commands that run a file they are given (`source F`, `. F`, `bash F`)
_SOURCES = frozenset({"source", "."})


def runs_written_file(a: Analysis, lexical: Callable[[str], Path]) -> str | None:
    """Why `source F` / `. F` / `sh F` may run a file the same command writes (or one not known
    statically), or None."""
    written = [w for w in a.writes] + [w for w, _ in a.operand_writes]
    targets = {lexical(w) for w in written if w is not None}
    for part in a.parts:
        name = os.path.basename(part.argv[0] or "")
        shell = name in ("sh", "bash", "dash", "zsh", "ksh")
        if name not in _SOURCES and not shell:
            continue
        operands = [w for w in part.argv[1:] if w is None or not w.startswith("-")]
        if not operands:
            continue
        script = operands[0]
        if name in _SOURCES and script is None:
            return f"`{name}` runs a file that isn't known statically"
        if script is not None and (lexical(script) in targets or None in written):
            return f"`{name} {script}` runs a file the same command writes"
    return None
