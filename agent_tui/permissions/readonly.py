"""Commands that run without any rule, in every mode: they only read and print, the way the Read
and Grep tools do.

Each reader is checked against its option table (`readers.py`): an option not in the table asks,
options that write or follow links out of the tree are refused, and every file read (operands,
file-valued options, globs expanded on disk, sed's `r` files) must be inside the project and not
covered by a Read deny rule. Relative paths are checked from every directory the command may have
`cd`-ed to. For git, the read-only subcommands without the options that write a file, read outside
the repository or run configured programs; a repository whose own configuration runs programs is
caught before this (`git_config.py`). Network tools never belong here (DNS lookups once carried
`.env` out). Plan mode runs exactly this set too, so default mode is never stricter than plan.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_tui.permissions.analysis import Part, Word
from agent_tui.permissions.command_risks import normalize
from agent_tui.permissions.getopt import Unclear, abbreviates, scan
from agent_tui.permissions.outside import Reach
from agent_tui.permissions.readers import (
    FIND_FILE_TESTS,
    FIND_FOLLOWS,
    FIND_WRITES_OR_RUNS,
    READERS,
    Reader,
)
from agent_tui.permissions.scripts import sed_reads

_GIT_VERBS = frozenset(
    {"status", "diff", "log", "show", "rev-parse", "ls-files", "blame", "shortlog", "describe"}
    | {"ls-tree", "rev-list", "show-ref", "for-each-ref", "merge-base", "name-rev", "cherry"}
    | {"count-objects", "whatchanged", "check-ignore", "check-attr", "diff-tree", "diff-files"}
    | {"diff-index", "grep", "version", "cat-file", "branch", "tag", "remote", "stash"}
    | {"reflog", "worktree"}
)
_GIT_FORBIDDEN = (
    "--output", "--no-index", "--ext-diff", "--textconv", "--filters", "-O", "--open-files",
    "--exec", "--contents", "--ignore-revs-file",
)  # fmt: skip
_GIT_LISTING_ONLY = {
    # subcommands that also change things: the words that keep them read-only
    "branch": frozenset(
        [
            "-a",
            "--all",
            "-r",
            "--remotes",
            "-v",
            "-vv",
            "--verbose",
            "--list",
            "-l",
            "--show-current",
            "--contains",
            "--no-contains",
            "--merged",
            "--no-merged",
            "--points-at",
            "--sort",
            "--format",
            "--color",
            "--no-color",
            "--column",
            "--no-column",
            "--abbrev",
            "--no-abbrev",
            "-i",
            "--ignore-case",
        ]
    ),
    "tag": frozenset(
        [
            "-l",
            "--list",
            "-n",
            "--contains",
            "--no-contains",
            "--merged",
            "--no-merged",
            "--points-at",
            "--sort",
            "--format",
            "--color",
            "--column",
            "--no-column",
            "-i",
            "--ignore-case",
        ]
    ),
}
_SUBVERBS = {
    "remote": frozenset({"-v", "--verbose", "get-url"}),
    "stash": frozenset({"list", "show"}),
    "reflog": frozenset({"show"}),
    "worktree": frozenset({"list"}),
}
_NUMERIC = re.compile(r"-\d+")


def runs_unasked(part: Part, reach: Reach) -> bool:
    """The part only reads files it may read unasked (`outside.Reach.readable`: the project,
    system folders, what Read allow rules name) and prints."""
    if part.privileged or part.open_args or not part.argv or part.argv[0] is None:
        return False
    name, args = part.argv[0], list(part.argv[1:])
    raw = list(part.raw[1:]) if len(part.raw) == len(part.argv) else []
    check = _Paths(reach, raw, args)
    if name in ("echo", "true", "false", ":"):
        return True
    if name == "env":  # with no command it prints the environment, like printenv
        return all(a in ("-0", "--null") for a in args)
    if name == "tee":  # its files are checked as writes
        return all(a is not None for a in args)
    if name == "cd":
        return len(args) == 1 and args[0] not in (None, "-") and check.inside(args[0])
    if name == "git":
        return _git(part, check)
    if name == "find":
        return _find(args, check)
    reader = READERS.get(name)
    if reader is None:
        return False
    files = reader_files(name, reader, part.argv)
    return files is not None and all(check.operand(i, w) for i, w in files)


class _Paths:
    def __init__(self, reach: Reach, raw: list[str], args: list[Word]) -> None:
        self.reach = reach
        self.raw_of = {i: raw[i] for i in range(len(raw))} if len(raw) == len(args) else {}

    def inside(self, path: str) -> bool:
        return self.reach.readable(path)

    def operand(self, index: int, w: Word) -> bool:
        """A file read (`index` into the arguments, -1: none); a glob is expanded now."""
        if w is not None:
            return self.inside(w)
        raw = self.raw_of.get(index)
        return raw is not None and self.reach.glob_stays(raw, self.reach.readable)


def reader_files(name: str, r: Reader, argv: Sequence[Word]) -> list[tuple[int, Word]] | None:
    """The files a reader's argv reads, each with its index among the arguments (-1 for one
    a script names), or None when the command is more than a reader of files (an option its
    table doesn't know or refuses, a program that reads files it names itself)."""
    words = list(argv)
    if r.numeric_option:
        words = [w for w in words if w is None or not _NUMERIC.fullmatch(w)]
    try:
        parsed, operands = scan(words, r.spec)
    except Unclear:
        # a glob or `$x` among the options: known only at run time
        return None
    if parsed.has(*r.refuse):
        return None
    files: list[tuple[int, Word]] = []
    for opt, value in parsed.options:
        if opt in r.path_values:
            files.append((-1, value))
    if r.operands == "none":
        if name == "date" and not all(o is not None and o.startswith("+") for o in operands):
            return None
        return files
    scripts = parsed.values("-e", "--expression") if name in ("sed", "gsed") else []
    if r.operands == "pattern" and not parsed.has(*r.pattern_options):
        if not operands or operands[0] is None:
            return None
        if name.endswith("awk") and "getline" in operands[0]:
            return None  # `getline < FILE` reads a file the program names
        if name in ("sed", "gsed"):
            scripts.append(operands[0])
        operands = operands[1:]
    for script in scripts:
        if script is None:
            return None
        files += [(-1, f) for f in sed_reads(script)]
    if r.operands == "first-path" and len(operands) > 1:
        return None
    offsets = _operand_indexes(list(argv[1:]), operands)
    return files + list(zip(offsets, operands, strict=True))


def _operand_indexes(args: list[Word], operands: list[Word]) -> list[int]:
    """Where each operand sits in args (for its raw text), matching from the end."""
    out: list[int] = []
    j = len(args) - 1
    for w in reversed(operands):
        while j >= 0 and args[j] is not w and args[j] != w:
            j -= 1
        out.append(j)
        j -= 1
    return list(reversed(out))


def _find(args: list[Word], check: _Paths) -> bool:
    i = 0
    while i < len(args) and args[i] in ("-H", "-L", "-P", "-D", "-O"):
        if args[i] in FIND_FOLLOWS:
            return False
        i += 2 if args[i] in ("-D", "-O") else 1
    starts: list[Word] = []
    while i < len(args) and (args[i] is None or not args[i].startswith(("-", "(", "!"))):  # type: ignore[union-attr]
        starts.append(args[i])
        i += 1
    if any(w is None or not check.inside(w) for w in starts):
        return False
    rest = args[i:]
    for k, a in enumerate(rest):
        if a is None:
            continue  # a pattern's value (`-name *.py` quoted or not): not a path
        if a in FIND_WRITES_OR_RUNS or a in FIND_FOLLOWS:
            return False
        if a in FIND_FILE_TESTS or a.startswith("-newer"):
            ref = rest[k + 1] if k + 1 < len(rest) else None
            if ref is None or not check.inside(ref):
                return False
    return True


def _abbreviates_forbidden(word: str) -> bool:
    """`--outp=F` is `--output=F` to git's parse-options (any unique prefix)."""
    return any(abbreviates(word, o) for o in _GIT_FORBIDDEN if o.startswith("--"))


def _git(part: Part, check: _Paths) -> bool:
    norm = normalize(part.argv)
    if not (norm.certain and norm.flags_only) or len(norm.argv) < 2:
        return False
    if any(a in ("-p", "--paginate") for a in part.argv[1 : len(part.argv) - len(norm.argv) + 1]):
        return False  # a pager
    verb, words = norm.argv[1], list(norm.argv[2:])
    if verb not in _GIT_VERBS:
        return False
    if any(a is None or a.startswith(_GIT_FORBIDDEN) or _abbreviates_forbidden(a) for a in words):
        return False
    args = [a for a in words if a is not None]
    if verb == "cat-file" and not any(a in ("-p", "-t", "-s", "-e") for a in args):
        return False
    allowed = _GIT_LISTING_ONLY.get(verb)
    if allowed is not None:
        listing = any(a in ("-l", "--list") for a in args) or (
            verb == "branch"
            and any(
                a.startswith(("--contains", "--merged", "--no-merged", "--points-at")) for a in args
            )
        )
        for a in args:
            if a.startswith("-"):
                if a.split("=", 1)[0] not in allowed:
                    return False
            elif not listing:
                return False  # a name: creating a branch or tag
        return True
    sub = _SUBVERBS.get(verb)
    if sub is not None and (args[0] not in sub if args else verb in ("stash", "worktree")):
        return False  # `git stash` alone pushes
    if verb == "remote" and args and args[0] == "get-url":
        return True
    if verb in ("stash", "reflog", "worktree", "remote"):
        return True
    operands = [a for a in args if not a.startswith("-")]
    return all(check.inside(a.split(":", 1)[-1] if ":" in a else a) for a in operands)
