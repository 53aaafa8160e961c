"""Per-command knowledge (`data/command_risks.toml`): options that run programs or write files,
global options to see past when matching deny rules, subcommand aliases, destructive options.

`normalize(argv)` gives the form deny and ask rules are matched against (`git -C x --no-pager
push` -> `git push`), with `certain=False` where an option or alias could rename the subcommand.
`effects(argv)` says what a command does beyond its ordinary use: the programs it would run
(`runs`), the files it names for writing (`writes`), and whether it destroys data.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from agent_tui.paths import package_data
from agent_tui.permissions.analysis import ARITH_TEST_OPS, EVALUATES, Word
from agent_tui.permissions.scripts import ScriptEffects, awk_effects, sed_effects


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


def _option_hit(arg: str, option: str) -> tuple[bool, str | None, bool]:
    """(matches, attached value, value may follow in the next word) for `arg` against `option`."""
    if option == "*":
        return True, None, False
    if not option.startswith("-") or option == "--":
        return arg == option, None, False
    if option.startswith("--"):
        if arg == option:
            return True, None, True
        if arg.startswith(option + "="):
            return True, arg[len(option) + 1 :], False
        return False, None, False
    if option.startswith("-") and len(option) > 2:  # `-TT`, `-dd`: whole word only
        return (arg == option or arg.startswith(option + "=")), None, arg == option
    if arg.startswith("--") or not arg.startswith("-") or len(arg) < 2:
        return False, None, False
    letter = option[1]
    pos = arg.find(letter, 1)
    if pos == -1:
        return False, None, False
    rest = arg[pos + 1 :]
    return True, rest or None, not rest


def _find_options(args: Sequence[Word], options: Sequence[str]) -> list[tuple[str, Word]]:
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
            hit, attached, follows = _option_hit(a, o)
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


@dataclass
class Effects:
    runs: list[str] = field(default_factory=list)
    writes: list[Word] = field(default_factory=list)
    destructive: list[str] = field(default_factory=list)


def effects(argv: Sequence[Word]) -> Effects:
    out = Effects()
    if not argv or argv[0] is None:
        return out
    name = basename(argv[0])
    info = table().get(name)
    if info is None:
        return out
    args = list(argv[1:])
    if info.has_subcommands:
        norm = normalize(argv)
        sub_index = len(argv) - len(norm.argv) + 1
        head = args[: sub_index - 1]
        _apply(name, info, head, out, operands=False)
        sub = norm.argv[1] if len(norm.argv) > 1 else None
        if sub is not None and sub in info.sub:
            _apply(f"{name} {sub}", info.sub[sub], list(argv[sub_index + 1 :]), out)
        return out
    _apply(name, info, args, out)
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
        _script(name, info, args, out)
    return out


def _apply(
    label: str, info: CommandInfo, args: list[Word], out: Effects, operands: bool = True
) -> None:
    for opt, _ in _find_options(args, info.exec_options):
        shown = "" if opt == "*" else f" {opt}"
        out.runs.append(f"`{label}{shown}` can run another program")
    for _, value in _find_options(args, info.write_options):
        out.writes.append(value)
    for opt, _ in _find_options(args, info.program_file_options):
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


def _script(name: str, info: CommandInfo, args: list[Word], out: Effects) -> None:
    """The program of a sed or awk command, read for the features listed in the data file."""
    sed = name == "sed"
    with_value = {"-l", "--line-length"} if sed else {"-F", "--field-separator", "-v", "--assign"}
    script_options = {"-e", "--expression"} if sed else {"--source"}
    scripts: list[Word] = []
    files: list[Word] = []
    in_place = sandbox = from_options = False
    i, options = 0, True
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if a is None or not options or a == "-" or not a.startswith("-"):
            (files if scripts or from_options else scripts).append(a)
        elif a == "--":
            options = False
        elif a.startswith("--"):
            key, eq, value = a.partition("=")
            if key in script_options:
                from_options = True
                scripts.append(value if eq else nxt)
                i += 0 if eq else 1
            elif key in info.program_file_options:
                from_options = True
            elif key in with_value and not eq:
                i += 1
            sandbox = sandbox or key == "--sandbox"
            in_place = in_place or key in info.in_place_options
        else:
            for j, letter in enumerate(a[1:], start=1):
                rest = a[j + 1 :]
                if f"-{letter}" in script_options or (sed and letter == "e"):
                    from_options = True
                    scripts.append(rest or nxt)
                    i += 0 if rest else 1
                    break
                if f"-{letter}" in info.program_file_options:
                    from_options = True
                    break
                if f"-{letter}" in info.in_place_options:
                    in_place = True
                    break  # the rest is the backup suffix
                if f"-{letter}" in with_value:
                    i += 0 if rest else 1
                    break
        i += 1
    for script in scripts:
        if script is None:
            out.runs.append(f"a {name} program that isn't known statically")
            continue
        if sed and sandbox:
            continue  # --sandbox makes sed itself refuse e, w and r
        fx: ScriptEffects = sed_effects(script) if sed else awk_effects(script)
        out.runs.extend(fx.runs)
        out.writes.extend(fx.writes)
    if in_place:
        out.writes.extend(files)
