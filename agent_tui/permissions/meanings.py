"""What the words of a command a rule allows mean, as far as the tables know: files it reads,
plain text, or unknown; and so which of them lead out of the project (`outside.py`).

A reader with a full option table (`readers.py`) has no unknown word: its files must be readable
(`Reach.readable`). Commands that take only text (`echo`, `printf`, `test`) name no file. For
everything else the words of unknown meaning are the backstop's: sed's and awk's programs, git's
messages and formats are text; every other word is resolved as a path (`outside.strays`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from agent_tui.permissions.analysis import Part, Word
from agent_tui.permissions.command_risks import basename
from agent_tui.permissions.getopt import NONE, OPTIONAL, REQUIRED, Spec, Unclear, scan
from agent_tui.permissions.outside import Reach, read_outside, strays
from agent_tui.permissions.readers import READERS
from agent_tui.permissions.readonly import reader_files

#: commands whose arguments are text, never files (their redirections are checked apart)
TEXT_ONLY = frozenset(
    {"echo", "printf", "true", "false", ":", "test", "[", "sleep", "seq", "expr", "yes"}
    | {"basename", "dirname", "which", "type", "id", "whoami", "uname", "nproc", "pwd", "kill"}
    | {"set", "shift", "exit", "return", "wait", "getopts", "read"}
    | {"unset", "let", "local", "declare", "typeset", "export", "readonly", "shopt", "umask"}
)
#: git options whose value is text (a message, a pattern, a format, a date)
_GIT_TEXT = frozenset(
    {"-m", "--message", "--grep", "--author", "--committer", "--format", "--pretty", "-S", "-G"}
    | {"--date", "--since", "--until", "--after", "--before", "--subject-prefix"}
)
_SED_FLAGS = (
    "quiet", "silent", "debug", "follow-symlinks", "null-data", "zero-terminated", "posix",
    "regexp-extended", "separate", "sandbox", "unbuffered", "binary", "help", "version",
)  # fmt: skip
#: sed as GNU sed 4 reads its options when it edits in place too (the reader table has no -i)
_SED = Spec(
    "sed",
    "nrsuzEbe:f:l:i::",
    {
        **dict.fromkeys(_SED_FLAGS, NONE),
        **dict.fromkeys(["expression", "file", "line-length"], REQUIRED),
        "in-place": OPTIONAL,
    },
    stop_at_operand=False,
)


def outside_words(part: Part, reach: Reach | None) -> list[str]:
    """The words of `part` (a command a rule allows) that read or may change something outside
    the project; empty when none does. `reach` None: a `cd` led somewhere not known statically,
    so every relative path is anyone's guess."""
    argv = part.argv
    if not argv or argv[0] is None:
        return []
    name = basename(argv[0])
    if name in TEXT_ONLY:
        return []
    if reach is None:  # `cd "$d"`, `cd` (home), `cd -`: what it reads is anyone's guess
        return ["paths from a folder that isn't known statically"]
    raw = list(part.raw[1:]) if len(part.raw) == len(argv) else []
    if name in ("cd", "pushd", "popd"):
        # what follows reads and writes there (Claude Code checks cd's folder too)
        places = [w for w in argv[1:] if w is None or not w.startswith("-")]
        if name == "popd" or places in ([], ["-"]):
            return [] if name == "cd" and not places else [f"`{name}` to a folder not known here"]
        bad = read_outside(reach, places, raw[-len(places) :])
        return [] if bad is None else [bad]
    if _names_from_find(part) and raw:
        # find fills `{}` with names under its start points, which are checked with it
        filled = zip(argv[1:], raw, strict=True)
        argv = (argv[0], *("." if w is None and "{}" in r else w for w, r in filled))
    elif part.open_args:
        # xargs appends what it reads at run time: files anywhere (`echo ~/.ssh/id_rsa | xargs
        # cat`), options even
        return ["arguments xargs adds at run time"]
    reader = READERS.get(name)
    files = reader_files(name, reader, argv) if reader is not None else None
    if files is None and name in ("sed", "gsed"):
        files = _sed_files(argv)
    if files is not None:
        bad = read_outside(reach, [w for _, w in files], [_raw(raw, i) for i, _ in files])
        return [] if bad is None else [bad]
    return strays(replace(part, argv=argv), reach, _texts(name, argv))


def _names_from_find(part: Part) -> bool:
    """`find … -exec CMD {} +`: the names are find's, under start points checked with it."""
    return bool(part.outer) and basename(part.outer[-1][0] or "") == "find"


def _raw(raw: Sequence[str], index: int) -> str:
    return raw[index] if 0 <= index < len(raw) else ""


def _texts(name: str, argv: Sequence[Word]) -> frozenset[int]:
    """Indexes of words known to be text."""
    found: set[int] = set()
    if name == "git":
        found |= _git_texts(argv)
    if name.endswith("awk"):
        found |= _awk_texts(argv)
    if name in ("csplit", "sqlite3"):  # csplit's patterns, sqlite3's SQL (outputs.py reads it)
        found |= set(range(2, len(argv)))
    return frozenset(found)


def _git_texts(argv: Sequence[Word]) -> set[int]:
    """git's messages, patterns, formats and dates (`-m MSG`, `-qmMSG`, `--grep=P`)."""
    found: set[int] = set()
    for i, w in enumerate(argv):
        if w is None or not w.startswith("-"):
            continue
        key = w.split("=", 1)[0]
        if key in _GIT_TEXT:
            found |= {i, i + 1} if key == w else {i}
        elif not w.startswith("--") and "m" in w[1:]:
            found |= {i, i + 1} if w.endswith("m") else {i}  # `-qm MSG`, `-mMSG`
    return found


def _awk_texts(argv: Sequence[Word]) -> set[int]:
    """awk's program (the first operand unless -f gave one) and its -v / -F values."""
    found: set[int] = set()
    i, program = 1, False
    while i < len(argv):
        w = argv[i]
        if w in ("-v", "-F", "--assign", "--field-separator"):
            found |= {i, i + 1}
            i += 2
            continue
        if w is not None and w.startswith(("-v", "-F")):
            found.add(i)
        elif w in ("-f", "--file") or (w is not None and w.startswith("--file=")):
            program = True
        elif w is not None and not w.startswith("-") and not program:
            found.add(i)
            program = True
        i += 1
    return found


def _sed_files(argv: Sequence[Word]) -> list[tuple[int, Word]] | None:
    """The files `sed -i …` edits (read here; their writes and backups are checked as writes)."""
    try:
        parsed, operands = scan(list(argv), _SED)
    except Unclear:
        return None
    if not parsed.has("-e", "--expression", "-f", "--file"):
        operands = operands[1:]
    files = [(-1, v) for v in parsed.values("-f", "--file")]
    return files + [(-1, w) for w in operands]
