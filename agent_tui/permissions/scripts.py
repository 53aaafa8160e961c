"""What a sed or awk program does beyond filtering text: run commands, write files.

Both languages can run programs (sed's `e`, awk's `system()` and pipes) and write files (sed's
`w`, awk's `print > "f"`), so a rule like `Bash(sed:*)` must not grant those. The readers here are
deliberately small and fail closed: anything they can't follow is reported as a reason to ask.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_tui.permissions.analysis import Word
from agent_tui.permissions.command_extras import Extra
from agent_tui.permissions.getopt import abbreviates


@dataclass
class ScriptEffects:
    #: why the program runs other programs (or can't be read): each makes the command ask
    runs: list[str] = field(default_factory=list)
    #: files the program writes; None when the name isn't known statically
    writes: list[str | None] = field(default_factory=list)
    #: files the program reads by name (sed's `r`/`R`)
    reads: list[str | None] = field(default_factory=list)


_SED_SIMPLE = frozenset("pdDnNgGhHxPlL=zFqQ")


def sed_effects(script: str) -> ScriptEffects:
    out = ScriptEffects()
    s, i, n = script, 0, len(script)

    def rest_of_line(j: int) -> tuple[str, int]:
        end = s.find("\n", j)
        end = n if end == -1 else end
        return s[j:end].strip(), end

    while i < n:
        c = s[i]
        if c in " \t\n;{}!":
            i += 1
            continue
        if c == "#":
            i = rest_of_line(i)[1]
            continue
        i = _skip_sed_address(s, i)
        if i >= n:
            break
        c = s[i]
        if c in " \t!":
            i += 1
            while i < n and s[i] in " \t!":
                i += 1
            if i >= n:
                break
            c = s[i]
        if c in "{}":
            continue
        if c in "sy":
            if i + 1 >= n or s[i + 1] in "\n\\":
                out.runs.append(f"sed `{c}` command that can't be read")
                return out
            delim = s[i + 1]
            j = _sed_delimited(s, i + 2, delim)
            j = _sed_delimited(s, j, delim) if j >= 0 else -1
            if j < 0:
                out.runs.append("a sed script that can't be read")
                return out
            if c == "y":
                i = j
                continue
            k = j
            while k < n and s[k] not in ";\n}":
                if s[k] == "e":
                    out.runs.append("sed's `s///e` runs the result as a command")
                if s[k] == "w":
                    target, k = rest_of_line(k + 1)
                    out.writes.append(target or None)
                    break
                k += 1
            i = k
        elif c == "e":
            out.runs.append("sed's `e` command runs a command")
            i = rest_of_line(i + 1)[1]
        elif c in "wW":
            target, i = rest_of_line(i + 1)
            out.writes.append(target or None)
        elif c in "rR":  # a file to read: to the end of the line
            target, i = rest_of_line(i + 1)
            out.reads.append(target or None)
        elif c in "aic":  # text to insert: to the end of the line
            i = rest_of_line(i + 1)[1]
        elif c in ":btTv":  # a label (GNU sed ends it at `;` too: `:a;1e cmd`)
            i = _skip_label(s, i + 1)
        elif c in _SED_SIMPLE:
            i += 1
            while i < n and s[i].isdigit():
                i += 1
        else:
            out.runs.append(f"sed command `{c}` is not known to be safe")
            return out
    return out


def _skip_sed_address(s: str, i: int) -> int:
    n = len(s)
    for _ in range(2):
        if i < n and (s[i].isdigit() or s[i] == "$"):
            while i < n and (s[i].isdigit() or s[i] in "$~+"):
                i += 1
        elif i < n and s[i] in "/\\":
            delim = "/"
            if s[i] == "\\" and i + 1 < n:
                delim, i = s[i + 1], i + 1
            j = _sed_delimited(s, i + 1, delim)
            i = n if j < 0 else j
            while i < n and s[i] in "IM":
                i += 1
        if i < n and s[i] == ",":
            i += 1
            continue
        break
    return i


def _sed_delimited(s: str, i: int, delim: str) -> int:
    """Index after the unescaped `delim` closing a part starting at i, or -1."""
    n = len(s)
    while i < n:
        if s[i] == "\\":
            i += 2
            continue
        if s[i] == delim:
            return i + 1
        if s[i] == "\n" and delim != "\n":
            return -1
        i += 1
    return -1


def _skip_label(s: str, i: int) -> int:
    """After a label: blanks before it skipped, it ends at `;`, a newline, `}` or a blank (the
    earliest of what any sed takes as its end, so what follows is read as commands)."""
    while i < len(s) and s[i] in " \t":
        i += 1
    while i < len(s) and s[i] not in ";\n} \t":
        i += 1
    return i


def sed_reads(script: str) -> list[str | None]:
    """The files a sed program reads by name (`r FILE`, `R FILE`)."""
    return sed_effects(script).reads


# --- awk ---------------------------------------------------------------------------------------

_AWK_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_AWK_REGEX_BEFORE = set("(,{};!~&|\n=") | {""}
_AWK_STATEMENT = re.compile(r"[;{}\n]")


def awk_effects(program: str) -> ScriptEffects:
    out = ScriptEffects()
    code, strings = _awk_mask(program)
    if code is None:
        out.runs.append("an awk program that can't be read")
        return out
    if re.search(r"\bsystem\s*\(", code):
        out.runs.append("awk's system() runs a command")
    if re.search(r"\|(?!\|)", code.replace("||", "  ")):
        out.runs.append("an awk pipe to or from a command runs it")
    if re.search(r"@\s*(load|include)\b", code):
        out.runs.append("awk @load/@include brings in code from outside the command")
    for stmt in _AWK_STATEMENT.split(code):
        if not re.match(r"\s*(print|printf)\b", stmt):
            continue
        m = re.search(r">>?\s*(\S*)", stmt)
        if m is None:
            continue
        target = m.group(1)
        placeholder = re.fullmatch(r"\x00(\d+)\x00", target)
        out.writes.append(strings[int(placeholder.group(1))] if placeholder else None)
    return out


def _awk_mask(program: str) -> tuple[str | None, list[str]]:
    """The program with string and regex literals replaced by placeholders / blanks."""
    out: list[str] = []
    strings: list[str] = []
    i, n = 0, len(program)
    prev = ""
    while i < n:
        c = program[i]
        if c == "#":
            end = program.find("\n", i)
            i = n if end == -1 else end
            continue
        if c == '"':
            m = _AWK_STRING.match(program, i)
            if m is None:
                return None, strings
            strings.append(_awk_unescape(m.group(0)[1:-1]))
            out.append(f"\x00{len(strings) - 1}\x00")
            i = m.end()
            prev = '"'
            continue
        if c == "/" and prev in _AWK_REGEX_BEFORE:
            j = i + 1
            while j < n and program[j] != "/":
                if program[j] == "\n":
                    return None, strings
                j += 2 if program[j] == "\\" else 1
            if j >= n:
                return None, strings
            out.append(" ")
            i = j + 1
            prev = "/"
            continue
        out.append(c)
        if not c.isspace():
            prev = c
        elif c == "\n":
            prev = "\n"
        i += 1
    return "".join(out), strings


def _awk_unescape(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s)


def script_effects(
    name: str,
    args: list[Word],
    program_file_options: Sequence[str],
    in_place_options: Sequence[str],
    out: Extra,
) -> None:
    """The program of a sed or awk command, read for the features listed in the data file."""
    sed = name == "sed"
    with_value = {"-l", "--line-length"} if sed else {"-F", "--field-separator", "-v", "--assign"}
    script_options = {"-e", "--expression"} if sed else {"--source"}
    scripts: list[Word] = []
    files: list[Word] = []
    in_place = sandbox = from_options = False
    suffixes: list[str] = []
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
            longs = script_options | set(program_file_options) | set(in_place_options)
            key = next((o for o in sorted(longs) if abbreviates(a, o)), key)
            if key in script_options:
                from_options = True
                scripts.append(value if eq else nxt)
                i += 0 if eq else 1
            elif key in program_file_options:
                from_options = True
            elif key in with_value and not eq:
                i += 1
            sandbox = sandbox or key == "--sandbox"
            in_place = in_place or key in in_place_options
            if key in in_place_options and value:
                suffixes.append(value)
        else:
            for j, letter in enumerate(a[1:], start=1):
                rest = a[j + 1 :]
                if f"-{letter}" in script_options or (sed and letter == "e"):
                    from_options = True
                    scripts.append(rest or nxt)
                    i += 0 if rest else 1
                    break
                if f"-{letter}" in program_file_options:
                    from_options = True
                    break
                if f"-{letter}" in in_place_options:
                    in_place = True
                    suffixes += [rest] if rest else []
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
        out.writes.extend(backup_name(f, s) for f in files for s in suffixes)


def backup_name(file: Word, suffix: str) -> Word:
    """GNU sed's backup of `file` for `-iSUFFIX`: each `*` becomes the file's name as given
    (so `-i'/elsewhere/bak-*'` writes there), else the suffix is appended."""
    if file is None:
        return None
    return suffix.replace("*", file) if "*" in suffix else file + suffix
