"""Which variable assignments can change what a command does.

Programs read their configuration from the environment (`RIPGREP_CONFIG_PATH`, `CURL_HOME`,
`WGETRC`, `TAR_OPTIONS`, `ZIPOPT`, `MAKEFILES`, `XDG_CONFIG_HOME`, `GIT_*`, `LD_PRELOAD`, …), and
there are far more such names than any list of dangerous ones could hold. So a variable put in a
command's environment (`NAME=v cmd`, `env NAME=v`, `export NAME`, `sudo NAME=v`) is allowed only
when its name is on a short list of harmless ones (locale, colours, terminal size, a few build
switches), or it is a pager set to `cat`. Everything else makes the command ask.

A plain `name=value` statement reaches other programs only if the name is already exported (it is
in our environment) or `set -a` exports everything; bash itself reads some names (PATH, IFS,
HOME for `~`, OLDPWD for `cd -`, PS4, BASH_ENV, …). Those ask; lower-case script variables don't.
"""

from __future__ import annotations

import os
import re

import tree_sitter

from agent_tui.permissions.analysis import Word
from agent_tui.permissions.words import node_text, static_word

#: names no program reads to find code, configuration files or places to write
_HARMLESS = re.compile(
    r"LANG|LANGUAGE|LC_[A-Z]+|TZ|TERM|COLORTERM|COLUMNS|LINES|NO_COLOR|FORCE_COLOR|CLICOLOR"
    r"|CLICOLOR_FORCE|CI|DEBUG|VERBOSE|NODE_ENV|RUST_BACKTRACE|RUST_LOG|RUST_LOG_STYLE"
    r"|PYTHONUNBUFFERED|PYTHONDONTWRITEBYTECODE|PYTHONHASHSEED|PYTHONIOENCODING|PYTHONUTF8"
    r"|PYTHONFAULTHANDLER|SOURCE_DATE_EPOCH|GIT_TERMINAL_PROMPT|GIT_OPTIONAL_LOCKS|GOOS|GOARCH"
    r"|CGO_ENABLED|GOMAXPROCS|OMP_NUM_THREADS|TIMEFORMAT"
)
#: pagers: harmless when set to nothing or `cat` (`PAGER=cat git log`)
_PAGERS = frozenset(
    {"PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", "BAT_PAGER", "AWS_PAGER", "PSQL_PAGER"}
)
_SAFE_PAGER_VALUES = frozenset({"", "cat", "/bin/cat", "/usr/bin/cat"})
#: names bash itself reads (word splitting, lookup, `~`, `cd -`, traces, start-up files)
_SHELL_READS = frozenset(
    {"PATH", "IFS", "CDPATH", "GLOBIGNORE", "HOME", "OLDPWD", "PWD", "PS4", "PS1", "PS2", "PS0"}
    | {"PROMPT_COMMAND", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "POSIXLY_CORRECT"}
    | {"BASH_XTRACEFD", "HISTFILE", "EXECIGNORE", "FIGNORE", "BASH_COMPAT", "INPUTRC"}
    | {"BASH_LOADABLES_PATH", "FUNCNEST", "BASH_ARGV0", "MAILPATH", "MAIL", "TMPDIR"}
    | {"COMP_WORDBREAKS", "HOSTFILE", "BASH_CMDS", "BASH_ALIASES", "LD_PRELOAD"}
)


def exported_is_harmless(name: str, value: Word) -> bool:
    """A variable in a command's environment that can't change what the command runs, reads
    as configuration, or writes."""
    if name in _PAGERS:
        return value is not None and value.strip() in _SAFE_PAGER_VALUES
    return bool(_HARMLESS.fullmatch(name))


def statement_is_harmless(name: str | None) -> bool:
    """A plain `name=value` statement (or `for name in`, `read name`) that no later program or
    shell feature reads: not a name bash reads, not already exported."""
    if name is None:
        return False
    if name in _SHELL_READS or name.startswith(("BASH", "LD_", "DYLD_")):
        return False
    # already exported: the new value reaches every later program
    return name not in os.environ or bool(_HARMLESS.fullmatch(name))


def exporting_set(args: list[Word]) -> str | None:
    """Why `set ARGS` makes later assignments reach programs (`-a`, `-k`), or None."""
    i = 0
    while i < len(args):
        a = args[i]
        if a is None:
            return "set with options that aren't known statically"
        if a == "--" or not a.startswith(("-", "+")):
            return None
        if a.startswith("-") and any(c in a[1:] for c in "ak"):
            return f"`set {a}` exports every later assignment"
        if "o" in a[1:]:
            opt = args[i + 1] if i + 1 < len(args) else ""
            if a.startswith("-") and opt in ("allexport", "keyword", None):
                return f"`set -o {opt}` exports every later assignment"
            i += 1
        i += 1
    return None


def assignment_name(node: tree_sitter.Node) -> str | None:
    name = node.child_by_field_name("name")
    if name is None or name.type != "variable_name":
        return None  # e.g. `a[$(id)]=1`
    return node_text(name)


def assignment_value(node: tree_sitter.Node) -> Word:
    value = node.child_by_field_name("value")
    return "" if value is None else static_word(value)


def assignment_problems(node: tree_sitter.Node) -> list[str]:
    """Why a `name=value` statement, a `for name in`, or `export`/`declare`/`local`/`readonly`
    changes what later commands do."""
    text = node_text(node)
    if node.type == "for_statement":
        var = node.child_by_field_name("variable")
        name = node_text(var) if var is not None else None
        return [] if statement_is_harmless(name) else [f"`for {name}` changes later commands"]
    if node.type == "variable_assignment":
        if statement_is_harmless(assignment_name(node)):
            return []
        return [f"`{text}` changes how later commands run"]
    head = node_text(node.children[0]) if node.children else ""
    flags = "".join(node_text(c)[1:] for c in node.named_children if node_text(c).startswith("-"))
    exported = (head == "export" and "n" not in flags) or "x" in flags
    out: list[str] = []
    for child in node.named_children:
        if child.type == "variable_assignment":
            name, value = assignment_name(child), assignment_value(child)
        elif child.type == "variable_name" or (
            child.type == "word" and not node_text(child).startswith("-")
        ):
            name, value = node_text(child), None
        elif child.type == "word":
            continue
        else:
            out.append(f"`{text}` can't be checked statically")
            continue
        if exported and (name is None or not exported_is_harmless(name, value)):
            out.append(f"`{text}` puts {name or 'a variable'} in later commands' environment")
        elif not exported and not statement_is_harmless(name):
            out.append(f"`{text}` changes how later commands run")
    return out
