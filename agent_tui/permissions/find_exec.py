"""What `find` runs and writes: the commands of `-exec`/`-execdir`/`-ok`/`-okdir` (with the file
names it puts where `{}` is) and the files `-fprint*`/`-fls` write."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_tui.permissions.analysis import Argv, Word

_EXEC = ("-exec", "-execdir", "-ok", "-okdir")
_WRITES = ("-fprint", "-fprint0", "-fprintf", "-fls")


@dataclass
class FindActions:
    #: each command find runs (unknown words: the file names) with its words' source texts
    payloads: list[tuple[Argv, tuple[str, ...]]] = field(default_factory=list)
    writes: list[Word] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def find_actions(argv: Argv) -> FindActions:
    out = FindActions()
    if any(w is None for w in argv):
        # An unquoted `$x` could split into `-exec rm {} ;`.
        out.problems.append("find with arguments that aren't known statically")
        return out
    i = 1
    while i < len(argv):
        if argv[i] in _EXEC:
            end = next((j for j in range(i + 1, len(argv)) if argv[j] in (";", "+")), None)
            if end is None or end == i + 1:
                out.problems.append(f"{argv[i]} without a command or terminator")
                return out
            # find puts each file name where `{}` is (inside a word too, for `;`, alone for
            # `+`). A name starts with its starting point (never `-`), so a word starting with
            # `{}` can't become an option, but its text is unknown (`sh -c '{}'`).
            words = argv[i + 1 : end]
            each = argv[end] == ";"
            payload = tuple(
                None if w is not None and "{}" in w and (each or w == "{}") else w for w in words
            )
            raw = tuple("./" + w if w and w.startswith("{}") else (w or "") for w in words)
            out.payloads.append((payload, raw))
            i = end
        elif argv[i] in _WRITES:
            if i + 1 < len(argv):
                out.writes.append(argv[i + 1])
            i += 1
        i += 1
    return out
