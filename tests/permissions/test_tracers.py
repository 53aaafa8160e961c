"""Programs that run another program and log or watch it (tracers.py: strace, ltrace, valgrind,
script, watch, gdb), and programs that may run their operands as a command no table unwraps
(part_rules.py: perf, unshare, su, ssh, sg, a program no table knows). Under their own rules
what they run is checked and deny rules see it; ordinary use still runs. (What writes outside
or runs a payload is in test_attack_corpus.py, with bash as the oracle.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from permissions.outside_oracle import own_rules
from permissions.test_security_cases import bash, engine


def decide(cwd: Path, command: str, allow: tuple[str, ...] = (), deny: tuple[str, ...] = (),
           mode: str = "default") -> str:  # fmt: skip
    """Under `allow` (by default an allow rule for every program the command names)."""
    return bash(engine(cwd, allow or own_rules(command), deny, mode), command)


#: ordinary use of a tracer under its own rules
TRACERS_RUN = [
    "strace -f -o trace.log ls",
    "strace -c ls",
    "valgrind -q ls",
    "valgrind --tool=massif --massif-out-file=massif.out ls",
    "valgrind --leak-check=full --log-file=vg.log ls",
    "ltrace -o calls.log ls",
    "script -qc ls typescript",
    "watch -n 1 ls",
    "watch -x ls -la",
    "gdb --batch -ex bt ./prog core",
    "gdb -batch -ex 'info registers' -ex 'thread apply all bt' ./prog",
    "gdb --version",
]

#: what a tracer may be told to do that runs, attaches, or isn't known statically
TRACERS_ASK = [
    "strace -p 1",
    "strace --attach=1",
    "ltrace -p 1",
    "gdb -p 1",
    "gdb --pid=1",
    "gdb ./prog 1",  # a process id after the program: attaching
    "gdb ./prog",  # its commands come from standard input
    "gdb --batch -x cmds.gdb ./prog",
    "gdb --batch --command=cmds.gdb ./prog",
    "gdb --batch -ex 'shell id' ./prog",
    "gdb --batch -ex run ./prog",
    "gdb --batch -ex 'print $_shell(\"id\")' ./prog",
    "gdb --batch -ex 'info $x' ./prog",
    "gdb --batch -ex 'pipe bt | sh' ./prog",
    "gdb --batch -ex 'set logging file /tmp/x' ./prog",
    "gdb --batch --data-directory=d ./prog",
    "gdb --batch --frobnicate ./prog",
    "gdb --batch -ex bt $PROG",
    "valgrind --log-socket=127.0.0.1:1500 ls",
    "valgrind --log-file='/tmp/%q{HOME}' ls",
    "watch -n1 $CMD",
    "valgrind -q $CMD",
    'script -qc "$CMD" /dev/null',
    "strace -o '|sh' ls",
]


@pytest.mark.parametrize("command", TRACERS_RUN)
def test_a_tracer_around_an_allowed_command_runs(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command) == "allow"


@pytest.mark.parametrize("command", TRACERS_ASK)
@pytest.mark.parametrize("mode", ["default", "accept-edits"])
def test_a_tracer_that_runs_attaches_or_is_unknown_asks(
    tmp_path: Path, command: str, mode: str
) -> None:
    assert decide(tmp_path, command, mode=mode) != "allow"


def test_a_projects_valgrindrc_asks_and_is_protected(tmp_path: Path) -> None:
    assert decide(tmp_path, "valgrind -q ls") == "allow"
    (tmp_path / ".valgrindrc").write_text("--log-file=/tmp/x\n")
    assert decide(tmp_path, "valgrind -q ls") == "ask"
    assert decide(tmp_path, "cd /tmp && valgrind -q ls") == "ask"  # where it runs isn't known
    (tmp_path / ".valgrindrc").unlink()
    allow = ("Bash(echo:*)", "Bash(valgrind:*)")
    assert decide(tmp_path, "echo --log-file=x > .valgrindrc", allow, mode="accept-edits") == "ask"
    assert decide(tmp_path, "echo x > sub/.valgrindrc", allow, mode="accept-edits") == "ask"


# --- deny rules through tracers and runners no table unwraps ---------------------------------

DENIED = [
    "ltrace -f git push",
    "watch -x git push",
    "watch -n 1 'git push'",
    "watch git push",
    "strace -qq -o /dev/null git push",
]

#: runners whose operands are a command line no table reads: a deny rule naming what they'd run
#: may match, so they ask (never allowed, whatever the mode)
RUNNERS = [
    "perf stat git push",
    "perf record -- git push",
    "perf stat -- sh -c 'git push'",
    "unshare -r git push",
    "su -c 'git push'",
    "runuser -u x -- git push",
    "ssh host git push",
    "sg grp 'git push'",
    "chroot / git push",
    "busybox git push",
    "parallel git push ::: a",
    "frobnicator git push",
    "frobnicator --run='git push origin'",
    "./run.sh git push",
    "gdb --batch --args git push",
]

#: programs that take words as text, not as a command: a deny rule's words among them are text
TEXT = ["echo git push", "grep 'git push' notes.txt", "printf '%s\\n' 'git push'", "git log"]


@pytest.mark.parametrize("mode", ["default", "accept-edits", "yolo"])
@pytest.mark.parametrize("command", DENIED)
def test_deny_rules_see_what_a_tracer_runs(tmp_path: Path, command: str, mode: str) -> None:
    allow = ("Bash(git:*)", "Bash(strace:*)", "Bash(ltrace:*)", "Bash(watch:*)")
    assert decide(tmp_path, command, allow, ("Bash(git push:*)",), mode) == "deny"


@pytest.mark.parametrize("mode", ["default", "accept-edits", "yolo"])
@pytest.mark.parametrize("command", RUNNERS)
def test_a_runner_no_table_unwraps_is_never_a_way_past_a_deny_rule(
    tmp_path: Path, command: str, mode: str
) -> None:
    allow = tuple(dict.fromkeys(("Bash(git:*)", *own_rules(command))))
    assert decide(tmp_path, command, allow, ("Bash(git push:*)",), mode) == "ask"


@pytest.mark.parametrize("command", TEXT)
def test_a_deny_rules_words_as_text_still_run(tmp_path: Path, command: str) -> None:
    allow = ("Bash(git:*)", "Bash(echo:*)", "Bash(grep:*)", "Bash(printf:*)")
    assert decide(tmp_path, command, allow, ("Bash(git push:*)",), "yolo") == "allow"
    assert decide(tmp_path, command, allow, ("Bash(git push:*)",)) == "allow"
