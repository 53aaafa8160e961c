"""Files a command writes that a list of options can't name: positional outputs (`xxd IN OUT`,
`uniq IN OUT`, `split FILE PREFIX`), prefixes (`csplit -f PREFIX`), sqlite3's database and the
SQL that writes files or runs programs, `git bundle create FILE`, `git init DIR`, bash's
`history -w FILE`. Each is read the way the program reads its arguments, so the operand that is
written is the one the engine checks (outside the project, or a protected file, it asks).

A prefix is reported as the names it makes, `PREFIX*SUFFIX` (`*` standing for the part the
program numbers), so `split -l1 f .git/hooks/x` is a write under `.git/` and a `.pth` suffix
in a `site-packages` is protected.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from agent_tui.permissions.analysis import Word
from agent_tui.permissions.command_extras import Extra
from agent_tui.permissions.getopt import NONE, OPTIONAL, REQUIRED, Spec, Unclear, scan
from agent_tui.permissions.readers import READERS


def _long(none: str = "", required: str = "", optional: str = "") -> dict[str, int]:
    out = dict.fromkeys(("help " + none + " version").split(), NONE)
    out.update(dict.fromkeys(required.split(), REQUIRED))
    out.update(dict.fromkeys(optional.split(), OPTIONAL))
    return out


SPLIT = Spec(
    "split",
    "a:b:C:dl:n:t:uxe",
    _long(
        "elide-empty-files unbuffered verbose",
        "additional-suffix bytes line-bytes lines number suffix-length separator filter",
        "numeric-suffixes hex-suffixes",
    ),
    stop_at_operand=False,
)
CSPLIT = Spec(
    "csplit",
    "b:f:kn:sqz",
    _long(
        "keep-files quiet silent elide-empty-files suppress-matched",
        "suffix-format prefix digits",
    ),
    stop_at_operand=False,
)
#: sqlite3's options that take a value (it reads `-x` and `--x` alike), with how many
_SQLITE_VALUES = {
    "cmd": 1, "init": 1, "lookaside": 2, "maxsize": 1, "mmap": 1, "newline": 1, "nonce": 1,
    "nullvalue": 1, "pagecache": 2, "separator": 1, "vfs": 1, "escape": 1, "heap": 2,
}  # fmt: skip
#: dot-commands of the sqlite3 shell that only show or set how output looks
_SQLITE_DOTS = frozenset(
    {"tables", "schema", "indexes", "indices", "headers", "header", "mode", "databases"}
    | {"dbinfo", "show", "help", "width", "nullvalue", "separator", "timer", "changes", "bail"}
    | {"echo", "eqp", "explain", "print", "prompt", "stats", "fullschema", "lint", "limit"}
    | {"dump", "quit", "exit"}
)
_SQLITE_RISKY = re.compile(
    r"\b(attach|vacuum\s+into|load_extension|writefile|readfile|edit|fts3_tokenizer)\b", re.I
)


def written(name: str, args: list[Word], out: Extra) -> None:
    """Add what `name ARGS` writes (and the SQL or scripts it would run) to `out`."""
    handler = _HANDLERS.get(name)
    if handler is not None:
        handler(args, out)


def _scanned(spec: Spec, args: list[Word]) -> tuple[dict[str, list[Word]], list[Word]] | None:
    try:
        parsed, operands = scan(["_", *args], spec)
    except Unclear:
        return None
    values: dict[str, list[Word]] = {}
    for opt, value in parsed.options:
        values.setdefault(opt, []).append(value)
    return values, operands


def _uniq(args: list[Word], out: Extra) -> None:
    got = _scanned(READERS["uniq"].spec, args)
    if got is None:
        out.writes.append(None)  # can't tell which operand is the output
    elif len(got[1]) >= 2:
        out.writes.append(got[1][1])


def _prefixed(prefix: Word, suffix: Word) -> Word:
    if prefix is None or suffix is None:
        return None
    return f"{prefix}*{suffix}"


def _split(args: list[Word], out: Extra) -> None:
    got = _scanned(SPLIT, args)
    if got is None:
        out.writes.append(None)
        return
    values, operands = got
    prefix = operands[1] if len(operands) > 1 else "x"
    suffix = (values.get("--additional-suffix") or [""])[-1]
    out.writes.append(_prefixed(prefix, suffix))


def _csplit(args: list[Word], out: Extra) -> None:
    got = _scanned(CSPLIT, args)
    if got is None:
        out.writes.append(None)
        return
    values = got[0]
    prefix = (values.get("-f", []) + values.get("--prefix", []) or ["xx"])[-1]
    suffix = (values.get("-b", []) + values.get("--suffix-format", []) or [""])[-1]
    out.writes.append(_prefixed(prefix, suffix))


#: xxd's options that take a value, by letter, with the long spellings it accepts by prefix
_XXD_VALUES = {"c": "cols", "g": "groupsize", "l": "len", "n": "name", "o": "offset"}
_XXD_VALUES |= {"s": "seek", "R": ""}


def _xxd(args: list[Word], out: Extra) -> None:
    """`xxd [options] [infile [outfile]]` (xxd reads its own options: `-c8`, `-cols 8`)."""
    operands: list[Word] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a is None or operands or not a.startswith("-") or a == "-":
            operands.append(a)
        elif len(a) > 1 and a[1] in _XXD_VALUES:
            rest = a[2:]
            if not rest or _XXD_VALUES[a[1]].startswith(rest):
                i += 1  # the value is the next word
        i += 1
    if len(operands) > 1:
        out.writes.extend(operands[1:])


def sqlite3_split(args: Sequence[Word]) -> tuple[list[Word], list[Word], bool]:
    """sqlite3's (database and SQL operands, -cmd values, -safe given)."""
    operands: list[Word] = []
    commands: list[Word] = []
    safe = False
    i = 0
    while i < len(args):
        a = args[i]
        if a is not None and a.startswith("-") and not operands:
            key = a.lstrip("-")
            safe = safe or key == "safe"
            count = _SQLITE_VALUES.get(key, 0)
            if key == "cmd":
                commands += list(args[i + 1 : i + 2])
            i += 1 + count
            continue
        operands.append(a)
        i += 1
    return operands, commands, safe


def _sqlite3(args: list[Word], out: Extra) -> None:
    operands, commands, safe = sqlite3_split(args)
    if operands and operands[0] != ":memory:":
        out.writes.append(operands[0])
    if safe:
        return  # --safe: the shell itself refuses what writes files or runs programs
    sql = operands[1:] + commands
    if len(operands) < 2:
        out.runs.append("sqlite3 would read commands (which can run programs) from standard input")
    for text in sql:
        why = _sqlite_risk(text)
        if why:
            out.runs.append(why)
            return


def _sqlite_risk(text: Word) -> str | None:
    if text is None:
        return "sqlite3 SQL that isn't known statically"
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("."):
            command = stripped[1:].split(None, 1)[0].lower() if stripped[1:] else ""
            if command not in _SQLITE_DOTS:
                return f"sqlite3's `.{command}` can write files or run programs"
    if _SQLITE_RISKY.search(text):
        return "sqlite3 SQL that writes files, reads them or loads code"
    return None


def _history(args: list[Word], out: Extra) -> None:
    """`history -w [FILE]`, `history -a [FILE]`: the file, or ~/.bash_history."""
    flags = "".join(a[1:] for a in args if a is not None and a.startswith("-"))
    operands = [a for a in args if a is None or not a.startswith("-")]
    if any(c in flags for c in "wa"):
        out.writes.append(operands[0] if operands else "~/.bash_history")


def git_written(sub: str, args: Sequence[Word], out: Extra) -> None:
    """What `git init` and `git bundle create` write."""
    words = list(args)
    if sub == "init":
        for k, a in enumerate(words):
            if a is not None and a.startswith("--separate-git-dir"):
                value = a.split("=", 1)[1] if "=" in a else (words[k + 1 : k + 2] or [None])[0]
                out.writes.append(value)
        ops = [a for k, a in enumerate(words) if _git_operand(words, k)]
        out.writes.append(ops[0] if ops else ".")
    elif sub == "bundle" and words[:1] == ["create"]:
        ops = [a for k, a in enumerate(words) if k > 0 and _git_operand(words, k)]
        out.writes.append(ops[0] if ops else None)


def _git_operand(words: list[Word], k: int) -> bool:
    a = words[k]
    if a is None:
        return True
    if a.startswith("-"):
        return False
    # an option's value in the next word (`--template DIR`, `--separate-git-dir D`, `-b B`)
    return k == 0 or words[k - 1] not in _GIT_WITH_VALUE


_GIT_WITH_VALUE = frozenset(
    {"--template", "--separate-git-dir", "-b", "--initial-branch", "--object-format"}
    | {"--ref-format"}
)

_HANDLERS: dict[str, Callable[[list[Word], Extra], None]] = {
    "uniq": _uniq,
    "split": _split,
    "csplit": _csplit,
    "xxd": _xxd,
    "sqlite3": _sqlite3,
    "history": _history,
}
