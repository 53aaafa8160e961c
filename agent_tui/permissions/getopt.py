"""Reading options the way getopt_long reads them, so the analyser and the program agree.

GNU programs (and git's parse-options, npm's nopt) take a long option by any unambiguous prefix
(`--compress-prog=x` is `--compress-program=x`), short options in bundles (`-xvf`), and a short
option's value attached (`-ofile`) or in the next word. `Spec` is one program's option table,
written from its manual; `parse` walks argv with it and raises `Unclear` wherever the program's
reading can't be known (an unknown option, a word not known statically, an ambiguous prefix).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from agent_tui.permissions.analysis import Word

#: how an option takes a value: none, required (attached or next word), optional (attached only)
NONE, REQUIRED, OPTIONAL = 0, 1, 2


class Unclear(Exception):
    pass


@dataclass(frozen=True)
class Spec:
    name: str
    #: getopt's short-option string: `a` flag, `a:` required value, `a::` optional attached value
    short: str = ""
    #: long option name (without `--`) -> NONE / REQUIRED / OPTIONAL
    long: dict[str, int] = field(default_factory=dict)
    #: stop at the first operand (a `+` optstring, or POSIXLY_CORRECT); GNU permutes otherwise
    stop_at_operand: bool = True

    def short_kind(self, letter: str) -> int | None:
        i = self.short.find(letter)
        if i == -1 or letter == ":":
            return None
        if self.short[i + 1 : i + 3] == "::":
            return OPTIONAL
        return REQUIRED if self.short[i + 1 : i + 2] == ":" else NONE


def long_name(arg: str, names: Sequence[str]) -> str | None:
    """The long option `arg` (`--name` or `--name=value`) selects among `names`, getopt's way:
    an exact name wins, else a unique prefix. Raises Unclear for an ambiguous prefix."""
    given = arg[2:].split("=", 1)[0]
    if given in names:
        return given
    hits = [n for n in names if n.startswith(given)] if given else []
    if len(hits) > 1:
        raise Unclear(f"`{arg}` is an ambiguous abbreviation ({', '.join(hits[:4])}…)")
    return hits[0] if hits else None


def abbreviates(arg: str, option: str, known: Sequence[str] = ()) -> bool:
    """`arg` (a `--long[=v]` word) selects `option` (`--long`) by its name or a prefix of it,
    unless it names another known option exactly. Used where the whole option table isn't
    listed: an abbreviation that would be ambiguous is an error for the program, so counting it
    as a hit only ever asks more."""
    if not (arg.startswith("--") and option.startswith("--")) or len(arg) < 3:
        return False
    given = arg.split("=", 1)[0]
    if given == option:
        return True
    if given in known:
        return False
    return option.startswith(given)


@dataclass
class Parsed:
    #: (option as written canonically: `-o` / `--output`, its value or None)
    options: list[tuple[str, Word]] = field(default_factory=list)
    #: index in argv of the first operand (len(argv) when there is none)
    operand: int = 0

    def has(self, *names: str) -> bool:
        return any(o in names for o, _ in self.options)

    def values(self, *names: str) -> list[Word]:
        return [v for o, v in self.options if o in names]


def parse(argv: Sequence[Word], spec: Spec, start: int = 1, one: bool = False) -> Parsed:
    """Options of argv[start:] up to the first operand (or `--`), getopt_long's way; with
    `one`, only the option word at `start` (and its value)."""
    out = Parsed()
    names = tuple(spec.long)
    i = start
    while i < len(argv) and not (one and i > start):
        a = argv[i]
        if a is None:
            raise Unclear(f"{spec.name} arguments that aren't known statically")
        if a == "--":
            out.operand = i + 1
            return out
        if a.startswith("--"):
            name = long_name(a, names)
            if name is None:
                raise Unclear(f"{spec.name} {a} is not an option this check knows")
            kind = spec.long[name]
            if "=" in a:
                if kind == NONE:
                    raise Unclear(f"{spec.name} {a}: the option takes no value")
                out.options.append((f"--{name}", a.split("=", 1)[1]))
            elif kind == REQUIRED:
                if i + 1 >= len(argv):
                    raise Unclear(f"{spec.name} {a} without its value")
                out.options.append((f"--{name}", argv[i + 1]))
                i += 1
            else:
                out.options.append((f"--{name}", None))
            i += 1
            continue
        if a.startswith("-") and len(a) > 1:
            j = 1
            while j < len(a):
                short = spec.short_kind(a[j])
                if short is None:
                    raise Unclear(f"{spec.name} -{a[j]} is not an option this check knows")
                rest = a[j + 1 :]
                if short == NONE:
                    out.options.append((f"-{a[j]}", None))
                    j += 1
                    continue
                if rest or short == OPTIONAL:
                    out.options.append((f"-{a[j]}", rest or None))
                elif i + 1 < len(argv):
                    out.options.append((f"-{a[j]}", argv[i + 1]))
                    i += 1
                else:
                    raise Unclear(f"{spec.name} -{a[j]} without its value")
                break
            i += 1
            continue
        if spec.stop_at_operand:
            out.operand = i
            return out
        raise Unclear(f"{spec.name}: options after operands")
    out.operand = i
    return out


def scan(argv: Sequence[Word], spec: Spec, start: int = 1) -> tuple[Parsed, list[Word]]:
    """Options and operands of a GNU program that permutes (options anywhere before `--`)."""
    operands: list[Word] = []
    options = Parsed()
    one_word = replace(spec, stop_at_operand=True)
    i = start
    while i < len(argv):
        a = argv[i]
        if a == "--":
            operands.extend(argv[i + 1 :])
            break
        if a is None or not a.startswith("-") or a == "-":
            operands.append(a)
            i += 1
            continue
        # one option word (and its value): parse it alone
        got = parse(argv, one_word, start=i, one=True)
        options.options.extend(got.options)
        i = max(got.operand, i + 1)
    options.operand = len(argv)
    return options, operands
