"""What the shell analysis reports: the simple commands a command line would run (`Part`), and
everything else the engine needs to decide (`Analysis`); plus the names the analysis and the
engine share (shells, interpreters, variables that change what runs)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

#: a word whose value isn't known statically is None
Word = str | None
Argv = tuple[Word, ...]

#: the words of every reason a command asks because bash would run a value as code (the dialog's
#: risk line looks for them)
EVALUATES = "evaluates a variable's value as code"
#: test / [[ ]] operators that compare as arithmetic, evaluating their operands
ARITH_TEST_OPS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish"})
INTERPRETER = re.compile(
    r"(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|perl[0-9.]*|ruby|irb|php|lua[0-9.]*|luajit"
    r"|Rscript|osascript|tclsh|wish|pwsh|powershell|ghci|julia|expect)"
)
_CODE_FLAGS = frozenset({"-c", "-e", "-E", "-m", "-p", "-r", "--eval", "--print", "-"})


@dataclass(frozen=True, slots=True)
class Part:
    """One simple command that would run."""

    argv: Argv
    #: the source text of the command, for reasons shown to the person
    text: str
    #: the wrapper commands it was unwrapped from, outermost first (deny rules see these too)
    outer: tuple[Argv, ...] = ()
    #: names assigned in front of it (`FOO=1 cmd`, `env FOO=1 cmd`)
    assignments: tuple[str, ...] = ()
    #: xargs / find -exec append arguments at run time
    open_args: bool = False
    #: runs through sudo/doas
    privileged: bool = False
    #: the source text of each word, for the dialog and for globs (`*.pyc`)
    raw: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the analysis of one command line found: the parts it would run, what it writes and
    reads, its risks, and what can't be known statically."""

    parts: tuple[Part, ...]
    #: redirection and `tee` targets, as written (excluding /dev/null, /dev/stdout, /dev/stderr)
    writes: tuple[str, ...]
    #: why (part of) the command can't be known statically; non-empty means "ask"
    problems: tuple[str, ...]
    #: `$(...)`, backticks, `<(...)`, `>(...)` or `eval`: code hidden inside another command
    has_substitution: bool
    #: a `cd`/`pushd`/`popd` makes relative paths after it unknowable
    changes_dir: bool
    #: the work budget ran out: some parts may be missing, so nothing may be concluded from them
    truncated: bool = False
    #: options or script features that run another program (`sed 's/x/y/e'`, `tar
    #: --to-command`): the command asks whatever rule matched
    risks: tuple[str, ...] = ()
    #: files named in a command's arguments for writing (`cp a DEST`, `sort -o F`, sed `w F`),
    #: with the part's text; None when not known statically. Allowed with the command's rule
    #: inside the working directory; outside it, or on a protected path, they ask.
    operand_writes: tuple[tuple[Word, str], ...] = ()
    #: options that destroy data (`rm -r`, `git push --force`): "always" is never offered
    destructive: tuple[str, ...] = ()
    #: where `cd`/`pushd`/`popd`/`env -C` lead, in order (None: not known statically)
    cd_targets: tuple[Word, ...] = ()
    #: files read by input redirections (`< F`, `3< F`); None: not known statically
    reads: tuple[Word, ...] = ()


def show(argv: Sequence[Word]) -> str:
    return " ".join("…" if w is None else w for w in argv)


def has_program(args: Sequence[Word]) -> bool:
    """An interpreter gets its program from an argument (a file, -c/-e code, -m module)."""
    for a in args:
        if a is None:
            return True  # something is passed; the part itself still needs a rule
        if a in ("--version", "--help"):
            return True  # it prints and ends: nothing is read from standard input
        if a in _CODE_FLAGS:
            return a != "-"
        if not a.startswith("-"):
            return True
    return False
