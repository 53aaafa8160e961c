"""Per-command knowledge (`data/command_risks.toml`): options that run programs or write files,
global options to see past when matching deny rules, subcommand aliases, destructive options.

`normalize(argv)` gives the form deny and ask rules are matched against (`git -C x --no-pager
push` -> `git push`), with `certain=False` where an option or alias could rename the subcommand.
`effects(argv)` says what a command does beyond its ordinary use: the programs it would run
(`runs`), the files it names for writing (`writes`), and whether it destroys data.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from agent_tui.paths import package_data
from agent_tui.permissions.analysis import ARITH_TEST_OPS, EVALUATES, Word
from agent_tui.permissions.builtins import builtin_effects
from agent_tui.permissions.command_extras import Extra, extra, git_worktree, tar_words
from agent_tui.permissions.getopt import abbreviates
from agent_tui.permissions.outputs import git_written, written
from agent_tui.permissions.scripts import script_effects


@dataclass(frozen=True)
class CommandInfo:
    exec_options: tuple[str, ...] = ()
    write_options: tuple[str, ...] = ()
    writes_operands: str = ""
    target_options: tuple[str, ...] = ()
    skip_operands: int = 0
    program_file_options: tuple[str, ...] = ()
    in_place_options: tuple[str, ...] = ()
    script: str = ""
    evaluates_names: bool = False
    destructive: tuple[str, ...] = ()
    global_with_value: tuple[str, ...] = ()
    global_flags: tuple[str, ...] = ()
    aliases: dict[str, str] = field(default_factory=dict)
    subcommands: frozenset[str] = frozenset()
    sub: dict[str, CommandInfo] = field(default_factory=dict)
    #: every long option of the program, where listed (an exact name beats an abbreviation)
    long_options: tuple[str, ...] = ()
    #: the program reads its own options after the subcommand too (`npm run x --script-shell=…`)
    anywhere: bool = False

    @property
    def option_risks(self) -> bool:
        """Some option of this program runs code, writes a file or reads a program."""
        return bool(
            self.exec_options
            or self.write_options
            or self.program_file_options
            or self.in_place_options
            or self.target_options
            or self.script
        )

    @property
    def has_subcommands(self) -> bool:
        return bool(self.subcommands or self.global_with_value or self.global_flags)


def _info(data: dict[str, Any]) -> CommandInfo:
    tuples = {
        k: tuple(v)
        for k, v in data.items()
        if isinstance(v, list) and k != "subcommands" and all(isinstance(x, str) for x in v)
    }
    return CommandInfo(
        **tuples,
        writes_operands=str(data.get("writes_operands", "")),
        skip_operands=int(data.get("skip_operands", 0)),
        script=str(data.get("script", "")),
        evaluates_names=bool(data.get("evaluates_names", False)),
        anywhere=bool(data.get("anywhere", False)),
        aliases=dict(data.get("aliases", {})),
        subcommands=frozenset(data.get("subcommands", ())),
        sub={k: _info(v) for k, v in data.get("sub", {}).items()},
    )


@lru_cache(maxsize=1)
def table() -> dict[str, CommandInfo]:
    raw = tomllib.loads(package_data("command_risks.toml").read_text("utf-8"))["commands"]
    infos = {name: _info(v) for name, v in raw.items() if "alias_of" not in v}
    for name, v in raw.items():
        if "alias_of" in v:
            infos[name] = infos[v["alias_of"]]
    return infos


def basename(word: str) -> str:
    return word.rsplit("/", 1)[-1]


# --- options -----------------------------------------------------------------------------------


def _option_hit(arg: str, option: str, known: Sequence[str] = ()) -> tuple[bool, str | None, bool]:
    """(matches, attached value, value may follow in the next word) for `arg` against `option`,
    as getopt_long reads it: a long option by any prefix that doesn't name another known option
    exactly (`--compress-prog=`), a short one in a bundle or with its value attached."""
    if option == "*":
        return True, None, False
    if not option.startswith("-") or option == "--":
        return arg == option, None, False
    if option.startswith("--"):
        if not abbreviates(arg, option, known):
            return False, None, False
        if "=" in arg:
            return True, arg.split("=", 1)[1], False
        return True, None, True
    if len(option) > 2:  # `-TT`: its value attached (`-TTcmd`, `-TT=cmd`) or in the next word
        if not arg.startswith(option):
            return False, None, False
        rest = arg[len(option) :].removeprefix("=")
        return True, rest or None, not rest
    if arg.startswith("--") or not arg.startswith("-") or len(arg) < 2:
        return False, None, False
    letter = option[1]
    pos = arg.find(letter, 1)
    if pos == -1:
        return False, None, False
    rest = arg[pos + 1 :]
    return True, rest or None, not rest


def _find_options(
    args: Sequence[Word], options: Sequence[str], known: Sequence[str] = ()
) -> list[tuple[str, Word]]:
    """Each use of one of `options` in `args` (up to `--`), with its value (None: unknown)."""
    found: list[tuple[str, Word]] = []
    if not options:
        return found
    for i, a in enumerate(args):
        if a is None:
            continue
        if a == "--":
            if "--" in options:
                found.append(("--", None))
            # operands after `--` can still be positional markers (`git checkout -- .`)
            found += [(o, None) for o in options if o in args[i + 1 :] and not o.startswith("-")]
            break
        for o in options:
            hit, attached, follows = _option_hit(a, o, known)
            if hit:
                value = (
                    attached
                    if attached is not None
                    else (args[i + 1] if follows and i + 1 < len(args) else None)
                )
                found.append((o, value))
                break
    return found


def _operands(args: Sequence[Word], skip: frozenset[str] = frozenset()) -> list[Word]:
    out: list[Word] = []
    options, i = True, 0
    while i < len(args):
        a = args[i]
        if options and a == "--":
            options = False
        elif options and a is not None and a.startswith("-") and a != "-":
            if a in skip:
                i += 1
        else:
            out.append(a)
        i += 1
    return out


# --- normalising for deny / ask rules ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Normalized:
    argv: tuple[Word, ...]
    #: False when an option or alias could make the subcommand something else
    certain: bool = True
    #: only value-less global flags were skipped (so allow rules may match it too)
    flags_only: bool = True


def normalize(argv: Sequence[Word]) -> Normalized:
    """The form deny/ask rules are matched against. Cached: one Bash check normalises the same
    argv for every rule, wrapper, risk line and read-only test."""
    return _normalize(tuple(argv))


@lru_cache(maxsize=512)
def _normalize(argv: tuple[Word, ...]) -> Normalized:
    if not argv or argv[0] is None:
        return Normalized(tuple(argv), certain=False)
    name = basename(argv[0])
    info = table().get(name)
    if info is None or not info.has_subcommands:
        return Normalized((name, *argv[1:]))
    i, certain, flags_only = 1, True, True
    while i < len(argv):
        a = argv[i]
        if a is None:
            return Normalized((name, *argv[i:]), certain=False, flags_only=False)
        if not a.startswith("-") or a == "-":
            break
        if a == "--":
            i += 1
            break
        flags_only = flags_only and a in info.global_flags
        if any(_option_hit(a, o)[0] for o in info.exec_options):
            certain = False  # `git -c alias.x=push x`
        if a in info.global_with_value:
            i += 2
            continue
        if any(a.startswith(o + "=") for o in info.global_with_value if o.startswith("--")):
            i += 1
            continue
        if a in info.global_flags:
            i += 1
            continue
        if any(a.startswith(o) and len(a) > len(o) for o in info.global_with_value if len(o) == 2):
            i += 1  # `-Cdir`
            continue
        certain = False  # an unknown option may take the next word as its value
        i += 1
    rest = list(argv[i:])
    if rest and rest[0] is not None:
        sub = info.aliases.get(rest[0], rest[0])
        if info.subcommands and sub not in info.subcommands:
            certain = False  # perhaps an alias the person configured
        rest[0] = sub
    return Normalized((name, *rest), certain=certain, flags_only=flags_only)


# --- effects ----------------------------------------------------------------------------------


#: runs, writes, unknown (writes of names not known before running), destructive
Effects = Extra


def effects(argv: Sequence[Word], raw: Sequence[str] = (), open_args: bool = False) -> Effects:
    """What `argv` does beyond ordinary use. `raw`: the words' source text (aligned with argv, or
    empty); `open_args`: more arguments are added at run time (xargs, find -exec)."""
    out = Effects()
    if not argv or argv[0] is None:
        return out
    name = basename(argv[0])
    info = table().get(name)
    extra(name, list(argv[1:]), out)
    written(name, list(argv[1:]), out)
    builtin_effects(name, list(argv[1:]), out)
    if info is None:
        return out
    args = list(argv[1:])
    if name == "tar":
        args, texts = tar_words(args, raw[1:] if len(raw) == len(argv) else ())
        argv = [argv[0], *args]
        raw = [raw[0], *texts] if texts else ()
    if info.has_subcommands:
        norm = normalize(argv)
        sub_index = len(argv) - len(norm.argv) + 1
        head = args[: sub_index - 1]
        _apply(name, info, args if info.anywhere else head, out, operands=False)
        sub = norm.argv[1] if len(norm.argv) > 1 else None
        sub_info = info.sub.get(sub) if sub is not None else None
        if sub_info is not None:
            _apply(f"{name} {sub}", sub_info, list(argv[sub_index + 1 :]), out)
        if name == "git" and sub is not None:
            git_worktree(sub, argv[sub_index + 1 :], out)
            git_written(sub, argv[sub_index + 1 :], out)
            out.writes = _from_git_dirs(head, out.writes)
        if (sub_info and sub_info.option_risks) or (info.anywhere and info.option_risks):
            _unknown_options(name, argv, raw, sub_index + 1, open_args, out)
        return out
    _apply(name, info, args, out)
    if info.option_risks:
        _unknown_options(name, argv, raw, 1, open_args, out)
    if info.evaluates_names:
        why = _evaluates(name, args)
        if why:
            out.runs.append(f"`{name}` {why}")
    if name == "dd":
        for a in args:
            if a is None:
                out.writes.append(None)
            elif a.startswith("of="):
                out.writes.append(a[3:] or None)
    if info.script:
        script_effects(name, args, info.program_file_options, info.in_place_options, out)
    return out


def _from_git_dirs(head: Sequence[Word], writes: list[Word]) -> list[Word]:
    """`git -C DIR …` writes its relative paths in DIR (`git -C .git log --output=config`)."""
    base = ""
    for k, a in enumerate(head):
        if a is not None and a.startswith("-C"):
            value = a[2:] or (head[k + 1] if k + 1 < len(head) else None)
            if value is None:
                return [None if w is None or not w.startswith(("/", "~")) else w for w in writes]
            base = os.path.join(base, value)
    if not base:
        return writes
    return [w if w is None or w.startswith(("/", "~")) else os.path.join(base, w) for w in writes]


# A word that starts with one of these can't become an option, whatever it expands to.
_LITERAL_START = re.compile(r"""["']?[\w./+,:@%^=~]""")


def _unknown_options(
    name: str, argv: Sequence[Word], raw: Sequence[str], start: int, open_args: bool, out: Effects
) -> None:
    """A word known only at run time (`$f`, a glob, xargs' input) may turn out to be an option
    that runs a program or writes (`tar cf a.tar *` beside a file `--checkpoint-action=…`)."""
    if open_args:
        out.runs.append(f"arguments added to `{name}` at run time may be options that run code")
        return
    aligned = len(raw) == len(argv)
    for i in range(start, len(argv)):
        if argv[i] == "--":
            return
        if argv[i] is None and not (aligned and _LITERAL_START.match(raw[i])):
            out.runs.append(
                f"`{name}`: a word known only at run time may be an option that runs code"
            )
            return


def _apply(
    label: str, info: CommandInfo, args: list[Word], out: Effects, operands: bool = True
) -> None:
    known = info.long_options
    for opt, _ in _find_options(args, info.exec_options, known):
        shown = "" if opt == "*" else f" {opt}"
        out.runs.append(f"`{label}{shown}` can run another program")
    for _, value in _find_options(args, info.write_options, known):
        out.writes.append(value)
    for opt, _ in _find_options(args, info.program_file_options, known):
        out.runs.append(f"`{label} {opt}` reads its program from a file that wasn't checked")
    for opt, _ in _find_options(args, info.destructive):
        out.destructive.append(label if opt == "*" else f"{label} {opt}")
    if not operands or not info.writes_operands:
        return
    skip = frozenset(o for o in info.target_options if not o.startswith("--"))
    ops = _operands(args, skip)[info.skip_operands :]
    targets = [v for _, v in _find_options(args, info.target_options)]
    if info.writes_operands == "all":
        out.writes.extend(ops)
    elif targets:
        out.writes.extend(targets)
        if label == "mv":
            out.writes.extend(ops)
    elif ops:
        out.writes.append(ops[-1])


def _evaluates(name: str, args: list[Word]) -> str | None:
    if name in ("test", "["):
        words = [a for a in args if a != "]"]
        for i, a in enumerate(words):
            if a in ("-v", "-R"):
                nxt = words[i + 1] if i + 1 < len(words) else ""
                if nxt is None or "[" in nxt:
                    return f"`{a}` on an array element {EVALUATES}"
            if a in ARITH_TEST_OPS:
                operands = [words[j] for j in (i - 1, i + 1) if 0 <= j < len(words)]
                if any(o is None or not o.lstrip("-").isdigit() for o in operands):
                    return f"`{a}` {EVALUATES}"
        return None
    if name == "printf":
        names = [v for _, v in _find_options(args[:2], ("-v",))]
    elif name == "let":
        names = [a for a in args if a is None or not a.replace(" ", "").isdigit()]
        return f"{EVALUATES}" if names else None
    else:
        names = args
    if any(a is None or "[" in a for a in names):
        return f"with a variable name that isn't plain {EVALUATES}"
    return None
