"""How a Bash rule meets one part of a command (`bash_check.py` decides with it).

Allow rules cover the part as written, or without value-less global flags. Deny and ask rules
are matched against the part's normalised form and every wrapper it was unwrapped from; and,
where the part's program may run its operands as a command that no table unwraps — a code
runner no table reads (`perf stat git push`, `unshare -r git push`, `su -c 'git push'`,
`ssh host git push`) or a program no table knows — a deny or ask rule naming what its operands
(or a command string among them) would run might match: the command asks, in every mode. So a
deny rule is never passed by putting an unknown runner in front of what it names.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_tui.permissions.analysis import Part, Word
from agent_tui.permissions.command_risks import basename, normalize, table
from agent_tui.permissions.meanings import TEXT_ONLY
from agent_tui.permissions.outside import STRING_WORDS
from agent_tui.permissions.readers import READERS
from agent_tui.permissions.rules import Match, Rule, match_command
from agent_tui.permissions.settings import CODE_RUNNERS

#: code runners whose words a table reads in full (sed's and awk's scripts, find's actions,
#: make's targets): their operands are no command line
_ANALYSED = frozenset({"sed", "gsed", "awk", "gawk", "mawk", "nawk", "find", "make", "gmake"})


def match_restricting(rule: Rule, part: Part) -> Match:
    """Match a deny or ask rule against a part's normalised form and every wrapper around it,
    and what an unknown runner's operands would run."""
    best = Match.NO
    for i, argv in enumerate((part.argv, *part.outer)):
        open_args = part.open_args if i == 0 else False
        raw = match_command(rule, argv, open_args=open_args, basename=True)
        norm = normalize(argv)
        m = match_command(rule, norm.argv, open_args=open_args, basename=True)
        if (
            m is Match.NO
            and not norm.certain
            and len(rule.tokens) > 1
            and norm.argv[:1] == (rule.tokens[0],)
        ):
            m = Match.MAYBE  # the subcommand may be renamed: `git -c alias.p=push p`
        for found in (raw, m):
            best = found if found.value > best.value else best
        if best is Match.YES:
            break
    if best is Match.NO and rule.tokens and runs_operands(part.argv):
        return Match.MAYBE if _named_in(rule, part.argv) else Match.NO
    return best


def allows(rule: Rule, part: Part) -> bool:
    """An allow rule covers the part as written, or without value-less global flags."""
    if match_command(rule, part.argv, open_args=part.open_args) is Match.YES:
        return True
    if rule.bare or not part.argv or part.argv[0] is None or "/" in part.argv[0]:
        return False
    norm = normalize(part.argv)
    return (
        norm.certain
        and norm.flags_only
        and norm.argv != part.argv
        and match_command(rule, norm.argv, open_args=part.open_args) is Match.YES
    )


def runs_operands(argv: Sequence[Word]) -> bool:
    """The program may run its operands as a command no table unwraps: a code runner whose
    words no table reads, or a program no table knows at all."""
    if not argv or argv[0] is None:
        return True
    name = basename(argv[0])
    if name in CODE_RUNNERS:
        return name not in _ANALYSED
    return not (name in table() or name in READERS or name in TEXT_ONLY)


def _named_in(rule: Rule, argv: Sequence[Word]) -> bool:
    """The rule's command appears among the operands, as words or inside a command string."""
    first = rule.tokens[0]
    for k in range(1, len(argv)):
        word = argv[k]
        if word is None:
            continue
        if basename(word) == first and _matches(rule, argv[k:]):
            return True
        if first in word and word != first:
            words = [w for w in STRING_WORDS.split(word.replace("=", " ")) if w]  # --run=CMD
            starts = [j for j, w in enumerate(words) if basename(w) == first]
            if any(_matches(rule, words[j:]) for j in starts):
                return True
    return False


def _matches(rule: Rule, argv: Sequence[Word]) -> bool:
    if match_command(rule, argv, basename=True) is not Match.NO:
        return True
    norm = normalize(argv)
    return not norm.certain or match_command(rule, norm.argv, basename=True) is not Match.NO
