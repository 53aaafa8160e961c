"""Reads outside the project (issue 46, item 5), as Claude Code confines them to the working
directories: a file read outside asks, under a reader's rule too (`ls /outside && date` under
`Bash(ls:*)`), unless it is in a system folder of installed software (/usr, /lib, /bin, /sbin)
or a `Read(//place/**)` allow rule of the person's own names it; a Read deny rule always wins;
secrets (~/.ssh, ~/.aws) are never read unasked. And the builtins that run strings (item 4):
their ordinary use still runs under their rules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.permissions.rules import parse_rule
from agent_tui.permissions.settings import SourcedRule


def engine(
    cwd: Path, *allow: str, deny: tuple[str, ...] = (), source: str = "cli"
) -> PermissionEngine:
    rules = [SourcedRule(parse_rule(r), "allow", source) for r in allow]
    rules += [SourcedRule(parse_rule(r), "deny", "cli") for r in deny]
    return PermissionEngine(cwd, rules, mode="default")


def bash(e: PermissionEngine, command: str) -> str:
    return e.check("Bash", {"command": command}, read_only=False).behavior


@pytest.fixture
def work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    (work / "f").write_text("x\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "notes").write_text("x\n")
    (work / "link").symlink_to(tmp_path / "outside")
    return work


READERS = ("ls", "cat", "head", "tail", "grep", "wc", "sort", "du", "stat", "file", "diff", "cd")
OWN = tuple(f"Bash({r}:*)" for r in READERS)


@pytest.mark.parametrize(
    "command",
    [
        "ls ../outside && date",
        "ls -la ../outside",
        "cat ../outside/notes",
        "head -n 1 link/notes",
        "grep -rn x ../outside",
        "wc -l ../outside/notes",
        "sort < ../outside/notes",
        "du -sh link/",
        "stat ../outside/notes",
        "cat ~/.ssh/id_rsa",
        "head -c 64 ~/.aws/credentials",
        "grep -r key ~/.ssh",
        "ls ~/.ssh",
        "diff ../outside/notes f",
        "cat /etc/shadow",
        "cat /proc/self/environ",
        "cd ../outside && ls",
        "cd && ls",
        "cd - && cat notes",
    ],
)
def test_reading_outside_the_project_asks_under_the_readers_rule_too(
    work: Path, command: str
) -> None:
    for e in (engine(work), engine(work, *OWN)):
        d = e.check("Bash", {"command": command}, read_only=False)
        assert d.behavior == "ask", (command, d)
    d = engine(work, *OWN).check("Bash", {"command": command}, read_only=False)
    assert "outside" in d.kinds and d.suggestions == (), d


SYSTEM_READS = [
    "ls /usr/include",
    "ls -la /usr/lib",
    "cat /usr/include/stdio.h",
    "grep -n size_t /usr/include/stdio.h",
    "head -5 /usr/include/stdio.h | wc -l",
    "file /bin/sh",
    "wc -c /usr/bin/env",
    "stat /usr/bin/env",
]


@pytest.mark.parametrize("command", SYSTEM_READS)
def test_system_folders_are_read_unasked(work: Path, command: str) -> None:
    if "stdio.h" in command and not os.path.exists("/usr/include/stdio.h"):
        pytest.skip("no C headers here")
    assert bash(engine(work), command) == "allow", command
    assert bash(engine(work, *OWN), command) == "allow", command


def test_version_and_help_under_a_rule_are_not_annoying(work: Path) -> None:
    e = engine(work, "Bash(gcc:*)", "Bash(python3:*)", "Bash(node:*)", "Bash(cargo:*)")
    for command in (
        "gcc --version",
        "python3 --version",
        "node --version",
        "cargo --help",
        "git version",
    ):
        assert bash(e, command) == "allow", command


def test_the_read_tool_reads_system_folders_but_nothing_else_outside(work: Path) -> None:
    e = engine(work)
    assert e.check("Read", {"file_path": "/usr/bin/env"}, read_only=True).behavior == "allow"
    for path in ("~/.ssh/id_rsa", "../outside/notes", "/etc/hostname", "link/notes"):
        assert e.check("Read", {"file_path": path}, read_only=True).behavior == "ask", path


def test_a_read_rule_of_the_persons_own_adds_a_place_to_read(work: Path, tmp_path: Path) -> None:
    place = f"Read(/{tmp_path}/outside/**)"  # Claude Code's `//absolute` spelling
    e = engine(work, place, *OWN)
    assert bash(e, "cat ../outside/notes") == "allow"
    assert bash(e, "grep -rn x ../outside") == "allow"
    assert bash(engine(work, place), "cat ../outside/notes") == "allow"  # no Bash rule needed
    assert e.check("Read", {"file_path": "../outside/notes"}, read_only=True).behavior == "allow"
    # but not to write, and a deny rule wins
    assert bash(e, "sort -o ../outside/x f") == "ask"
    denied = engine(work, place, *OWN, deny=(f"Read({tmp_path}/outside/notes)",))
    assert bash(denied, "cat ../outside/notes") != "allow"
    # a bare `Read` or a project's rule names no place outside
    assert bash(engine(work, "Read", *OWN), "cat ../outside/notes") == "ask"
    assert bash(engine(work, place, source="project"), "cat ../outside/notes") == "ask"


def test_secrets_are_never_read_unasked_even_through_run_time_names(work: Path) -> None:
    e = engine(work, *OWN, "Bash(xargs:*)", "Bash(echo:*)", "Bash(printf:*)")
    for command in (
        "echo ~/.ssh/id_rsa | xargs cat",
        "f=~/.ssh/id_rsa; cat $f",
        "cat $(printf %s ~/.ssh/id_rsa)",
        "cat ~/.s*/id_rsa",
    ):
        assert bash(e, command) == "ask", command


# --- item 4: the builtins' ordinary use under their rules ---------------------------------------

BUILTIN_RULES = tuple(
    f"Bash({b}:*)"
    for b in (
        "trap", "mapfile", "readarray", "compgen", "complete", "hash", "enable", "fc", "jobs",
        "alias", "read", "printf", "source", ".", "getopts", "wait", "bind",
    )
)  # fmt: skip

BUILTINS_ASK = [
    "trap 'echo hi' EXIT",
    "trap -- 'rm -f x' INT TERM",
    "mapfile -t -C 'echo' -c 1 lines < f",
    "readarray -C echo lines < f",
    "compgen -C 'echo x' x",
    "compgen -F fn x",
    "compgen -W '$(id)' x",
    "complete -C 'id' git",
    "complete -F _fn git",
    "hash -p /usr/bin/id ls",
    "enable -f ./x.so x",
    "enable -n echo",
    "fc -e vi -1",
    "fc -s",
    "jobs -x id",
    "alias ls='id'",
    "bind -x '\"\\C-a\": id'",
    "read -r PS4 < f",
    "read -ra PATH < f",
    "printf -v PROMPT_COMMAND %s id",
    "mapfile -t BASH_ENV < f",
    "getopts ab PS4",
    "echo id > s.sh; source s.sh",
    "echo id > s.sh; . ./s.sh",
    "source $f",
]

BUILTINS_ALLOW = [
    "trap -p",
    "trap - EXIT",
    "trap '' INT",
    "trap INT",
    "mapfile -t lines < f",
    "readarray -t -n 5 lines < f",
    "compgen -c",
    "compgen -W 'start stop status' -- st",
    "hash",
    "hash -r",
    "enable -a",
    "fc -l",
    "jobs -l",
    "alias",
    "read -r line < f",
    "printf -v out %s x",
    "getopts ab opt",
    "source .venv/bin/activate",
    ". ./env.sh",
]


@pytest.mark.parametrize("command", BUILTINS_ASK)
def test_builtins_that_run_strings_ask_whatever_rule_matched(work: Path, command: str) -> None:
    e = PermissionEngine(
        work,
        [SourcedRule(parse_rule(r), "allow", "cli") for r in (*BUILTIN_RULES, "Bash(echo:*)")],
        mode="accept-edits",
    )
    assert bash(e, command) == "ask", command


@pytest.mark.parametrize("command", BUILTINS_ALLOW)
def test_builtins_ordinary_use_runs_under_their_rules(work: Path, command: str) -> None:
    assert bash(engine(work, *BUILTIN_RULES), command) == "allow", command


ENVIRONMENT_READERS = [
    "awk 'BEGIN { print ENVIRON[\"HOME\"] }'",
    "jq -n env.HOME",
    'echo "$HOME"',
    "declare -p",
    "export -p",
    "printenv",
    "printenv HOME LANG",
    "env",
    "env | sort",
]


@pytest.mark.parametrize("command", ENVIRONMENT_READERS)
@pytest.mark.parametrize("mode", ["default", "plan"])
def test_environment_readers_stay_read_only(work: Path, command: str, mode: str) -> None:
    """The Bash tool runs with the app's credentials removed from the environment (item 2 of
    the issue, in the Bash tool), so reading the environment reads nothing secret."""
    e = PermissionEngine(work, [], mode=mode)  # type: ignore[arg-type]
    assert bash(e, command) == "allow", command


def test_folders_added_to_the_working_directory_are_read_as_its_own(
    work: Path, tmp_path: Path
) -> None:
    """`--add-dir` / additionalDirectories: read there as in the project; a write there asks,
    as the sandbox keeps those folders read-only for Bash."""
    e = engine(work, *OWN, "Bash(shuf:*)")
    e.add_dirs = ((tmp_path / "outside").resolve(),)
    assert bash(e, "cat ../outside/notes") == "allow"
    assert bash(e, "grep -rn x ../outside") == "allow"
    assert bash(engine(work), "cat ../outside/notes") == "ask"
    assert bash(e, "shuf -o ../outside/shuffled ../outside/notes") == "ask"
