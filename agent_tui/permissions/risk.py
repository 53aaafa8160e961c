"""What a command does, in one plain line for the approval dialog, and the parts that made it ask.

The dialog puts the risk first ("runs code from a string", "pushes to a remote"), above the
command, so a person reading quickly sees what matters before the (possibly long) command.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from agent_tui.permissions.analysis import EVALUATES, INTERPRETER, SHELLS, Analysis
from agent_tui.permissions.command_risks import basename, normalize

#: commands that delete files (a risk class of their own, whatever their options)
DELETERS = frozenset({"rm", "rmdir", "unlink", "shred"})


class Highlights:
    """The texts of the parts that made a command ask, in order, without repeats."""

    def __init__(self) -> None:
        self._items: dict[str, None] = {}

    def add(self, text: str) -> None:
        if text:
            self._items.setdefault(text.strip(), None)

    def extend(self, texts: Iterable[str]) -> None:
        for t in texts:
            self.add(t)

    def items(self) -> tuple[str, ...]:
        return tuple(self._items)[:8]


def risk_line(a: Analysis, outside_writes: Sequence[str | None], hl: Highlights) -> str:
    """One line of what the command does that matters, most serious first."""
    found: list[str] = []
    names = [normalize(p.argv).argv for p in a.parts]
    words = [(basename(n[0]) if n and n[0] else "", n[1] if len(n) > 1 else None) for n in names]
    if any(p.privileged for p in a.parts) or any(w in ("sudo", "doas") for w, _ in words):
        found.append("runs as another user")
    if _code_from_string(a):
        found.append("runs code from a string")
    if any("from standard input" in p for p in a.problems):
        found.append("runs code it reads from another command")
    if any(EVALUATES in p for p in a.problems) or any(EVALUATES in r for r in a.risks):
        found.append("evaluates a variable's value as code")
    if any("parser can't see" in p for p in a.problems):
        found.append("hides code where it can't be checked")
    if any(w == "git" and sub == "config" for w, sub in words) or any(
        p.argv[0] and basename(p.argv[0]) == "git" and ("-c" in p.argv or "--config-env" in p.argv)
        for p in a.parts
    ):
        found.append("changes git configuration")
    elif any(r for r in a.risks if EVALUATES not in r):
        found.append("runs another program")
    if any(w == "git" and sub == "push" for w, sub in words):
        found.append("pushes to a remote")
    if any(w in DELETERS for w, _ in words) or any("-delete" in d for d in a.destructive):
        found.append("deletes files")
    elif a.destructive:
        found.append("destroys data (" + a.destructive[0] + ")")
    if outside_writes:
        found.append("writes outside the project")
    elif a.writes or a.operand_writes:
        found.append("writes files")
    if not found:
        found.append("runs a command")
    return "; ".join(dict.fromkeys(found))


def _code_from_string(a: Analysis) -> bool:
    for p in a.parts:
        for argv in p.outer:
            if argv and argv[0] and basename(argv[0]) in SHELLS | {"eval", "trap"}:
                return True
        w = basename(p.argv[0]) if p.argv and p.argv[0] else ""
        if w in ("eval", "source", "."):
            return True
        if (w in SHELLS or INTERPRETER.fullmatch(w)) and any(
            x in ("-c", "-e", "--eval") for x in p.argv[1:] if x
        ):
            return True
    return False
