"""Bash itself is the oracle: whatever bash would run, the engine must not allow unasked.

Each generated command nests the constructs from the security issue around a payload that creates
a marker file outside the working directory. The command runs in a real `bash` (in a scratch
directory, with a clean environment); whenever the marker appears, the engine's decision for that
command must not be "allow". Over-asking is fine; under-asking is the bug this guards against.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.permissions.rules import parse_rule
from agent_tui.permissions.settings import SourcedRule

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is the oracle")

# Prefix rules a person might well have: each grants ordinary use only.
PREFIX_RULES = (
    "Bash(sed:*)",
    "Bash(awk:*)",
    "Bash(git log:*)",
    "Bash(git diff:*)",
    "Bash(sort:*)",
    "Bash(tar:*)",
    "Bash(echo:*)",
    "Bash(printf:*)",
    "Bash(test:*)",
    "Bash([:*)",
    "Bash(read:*)",
    "Bash(find:*)",
    "Bash(cat:*)",
    "Bash(head:*)",
    "Bash(wc:*)",
    "Bash(grep:*)",
)

# Issue 29's classes: rules for the wrappers and programs each class disguises code behind.
CLASS_RULES = PREFIX_RULES + tuple(
    f"Bash({name}:*)"
    for name in (
        "time", "timeout", "nice", "nohup", "stdbuf", "setsid", "env", "command", "chrt",
        "ionice", "taskset", "flock", "xargs", "zip", "unzip", "make", "mawk", "ln", "cp",
        "mkdir", "rg", "git status", "git branch", "git show", "printf", "touch", "rm", "cd",
    )
)  # fmt: skip

STATS = {"generated": 0, "ran_payload": 0}


class Oracle:
    def __init__(self, root: Path) -> None:
        self.work = root / "work"
        self.outside = root / "outside"
        self.work.mkdir()
        self.outside.mkdir()
        self.marker = self.outside / "M"
        (self.work / "f").write_text("a\nb\n")
        subprocess.run(
            ["git", "init", "-q", str(self.work)], check=True, capture_output=True, env=_env()
        )
        subprocess.run(
            [
                "git",
                "-C",
                str(self.work),
                "-c",
                "user.email=a@b",
                "-c",
                "user.name=a",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "x",
            ],
            check=True,
            capture_output=True,
            env=_env(),
        )

    @property
    def payload(self) -> str:
        return f"touch {self.marker}"

    def runs_payload(self, command: str) -> bool:
        self.marker.unlink(missing_ok=True)
        # A group of its own, killed whole at the timeout: a generated command that waits for
        # ever (`flock lk1 flock lk1 …` waits for its own lock) must not outlive the test.
        proc = subprocess.Popen(
            [BASH or "bash", "-c", command],
            cwd=self.work,
            env=_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        return self.marker.exists()


def _env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent", "LC_ALL": "C"}


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Oracle]:
    yield Oracle(tmp_path_factory.mktemp("oracle"))
    print(f"\nbash oracle: {STATS['generated']} commands, {STATS['ran_payload']} ran the payload")
    if STATS["generated"] >= 100:
        # The generators must mostly produce commands bash really runs, or the property is idle.
        assert STATS["ran_payload"] * 3 >= STATS["generated"]


def engines(work: Path, rules: tuple[str, ...] = PREFIX_RULES) -> list[PermissionEngine]:
    prefix = [SourcedRule(parse_rule(r), "allow", "cli") for r in rules]
    return [
        PermissionEngine(work, [], mode="default"),
        PermissionEngine(work, prefix, mode="default"),
        PermissionEngine(work, prefix, mode="accept-edits"),
        PermissionEngine(work, [], mode="plan"),
    ]


# --- the grammar --------------------------------------------------------------------------------


def substitutions(p: str) -> st.SearchStrategy[str]:
    """Text that runs `p` when bash expands it."""
    return st.sampled_from(
        [
            f"$({p})",
            f"`{p}`",
            f"$(true; {p})",
            f"$(eval '{p}')",
            f'$(bash -c "{p}")',
        ]
    )


def wrap(s: str) -> st.SearchStrategy[str]:
    """One layer of expansion syntax around `s`, which still expands it."""
    return st.sampled_from(
        [
            s,
            f"${{u:-{s}}}",
            f"${{u:={s}}}",
            f"${{HOME#{s}}}",
            f"${{HOME%%{s}}}",
            f"${{HOME/a/{s}}}",
            f"${{HOME/{s}/b}}",
            f"${{HOME:{s}}}",
            f"${{a[{s}]}}",
            f"${{#a[{s}]}}",
            f'"{s}"',
            f'"${{u:-{s}}}"',
            f"$(( {s} ))",
            f"x{s}y",
        ]
    )


@st.composite
def expanded_word(draw: st.DrawFn, payload: str) -> str:
    word = draw(substitutions(payload))
    for _ in range(draw(st.integers(0, 3))):
        word = draw(wrap(word))
    return word


@st.composite
def sink(draw: st.DrawFn, word: str) -> str:
    """A command that makes bash expand `word`."""
    template = draw(
        st.sampled_from(
            [
                "echo {w}",
                "true {w}",
                "pwd {w}",
                "ls {w}",
                "git status {w}",
                "cd . {w}",
                "x={w}",
                "echo hi > /dev/null{w}",
                "true <<EOF\n{w}\nEOF",
                "true <<<{w}",
                "case {w} in *) ;; esac",
                "for i in {w}; do :; done",
                "[[ {w} ]]",
                "echo ok; echo {w}",
                "(echo {w})",
                "{{ echo {w}; }}",
                "if true; then echo {w}; fi",
                "cat f | grep a {w}",
            ]
        )
    )
    return template.replace("{w}", word)


@st.composite
def evaluated_value(draw: st.DrawFn, payload: str) -> str:
    """A variable holding `a[$(payload)]`, then a place where bash evaluates it as code."""
    setup = f"x='a[$({payload})]'; "
    use = draw(
        st.sampled_from(
            [
                "echo $((x))",
                "echo $(( $x ))",
                "echo $[x]",
                "[[ $x -eq 1 ]]",
                "[ $x -eq 1 ]",
                "test $x -eq 1",
                'test -v "$x"',
                '[ -v "$x" ]',
                "[[ -v $x ]]",
                "echo ${!x}",
                "a=(1 2); echo ${a[x]}",
                "a=(1 2); echo ${a[$x]}",
                ": ${x:0:x}",
                "set -- 1 2; echo ${@:x}",
                "let y=x",
                "declare -i y; y=$x",
                "(( x ))",
                "for ((i=0;i<x;i++)); do :; done",
                'printf -v "$x" %s 1',
                'read "$x" <<< 1',
                'unset "$x"',
                'declare -n r="$x"; echo $r',
                "echo ${#x[x]}",
                "case 1 in $((x))) ;; esac",
            ]
        )
    )
    prompt = f"p='$({payload})'; echo ${{p@P}}"
    return draw(st.sampled_from([setup + use, prompt]))


@st.composite
def prefix_rule_feature(draw: st.DrawFn, payload: str, target: str) -> str:
    """A command that a prefix rule names, using a feature that runs a program or writes."""
    q = payload.replace("/", "\\/")
    return draw(
        st.sampled_from(
            [
                f"sed 's/.*/{q}/e' f",
                f"sed -n 's/.*/{q}/ep' f",
                f"sed '1e {payload}' f",
                f"sed -e '1e {payload}' f",
                f"sed --expression='1e {payload}' f",
                f"sed -ne '1e {payload}' f",
                f"sed 's/a/b/w {target}' f",
                f"sed -n 'w {target}' f",
                f"sed '1W {target}' f",
                f"awk 'BEGIN {{ system(\"{payload}\") }}'",
                f"awk '{{ print | \"{payload}\" }}' f",
                f"awk 'BEGIN {{ \"{payload}\" | getline }}'",
                f"awk '{{ print > \"{target}\" }}' f",
                f"awk '{{ print >> \"{target}\" }}' f",
                f"gawk 'BEGIN {{ system(\"{payload}\") }}'",
                f"tar --checkpoint=1 --checkpoint-action=exec='{payload}' -cf /dev/null f",
                f"tar -cf /dev/null --to-command='{payload}' f",
                f"sort -o {target} f",
                f"sort f -o{target}",
                f"sort --output={target} f",
                f"git log --output={target}",
                f"git diff --output={target}",
                f"git -c core.pager='{payload}' -p log",
                f"find . -maxdepth 0 -exec {payload} \\;",
                f"find . -maxdepth 0 -fprint {target}",
                f"printf -v 'a[$({payload})]' x",
                f"read 'a[$({payload})]' <<< x",
                f"test -v 'a[$({payload})]'",
                f"[ -v 'a[$({payload})]' ]",
                f"echo x | tee {target}",
                f"cat f > {target}",
                f"head -1 f >> {target}",
            ]
        )
    )


def _check_never_allowed(
    oracle: Oracle, command: str, rules: tuple[str, ...] = PREFIX_RULES
) -> None:
    STATS["generated"] += 1
    if not oracle.runs_payload(command):
        return
    STATS["ran_payload"] += 1
    for engine in engines(oracle.work, rules):
        d = engine.check("Bash", {"command": command}, read_only=False)
        assert d.behavior != "allow", (
            f"bash ran the payload but the engine allowed it ({engine.mode}, "
            f"{len(engine.rules)} rules): {command!r} -> {d.reason}"
        )


ORACLE_SETTINGS = settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@ORACLE_SETTINGS
@given(data=st.data())
def test_expansions_never_allowed_when_bash_runs_them(oracle: Oracle, data: st.DataObject) -> None:
    word = data.draw(expanded_word(oracle.payload))
    _check_never_allowed(oracle, data.draw(sink(word)))


@ORACLE_SETTINGS
@given(data=st.data())
def test_evaluated_values_never_allowed(oracle: Oracle, data: st.DataObject) -> None:
    _check_never_allowed(oracle, data.draw(evaluated_value(oracle.payload)))


@ORACLE_SETTINGS
@given(data=st.data())
def test_prefix_rules_never_grant_code_or_outside_writes(
    oracle: Oracle, data: st.DataObject
) -> None:
    command = data.draw(prefix_rule_feature(oracle.payload, str(oracle.marker)))
    _check_never_allowed(oracle, command)


def test_oracle_is_meaningful(oracle: Oracle) -> None:
    """The payload runs in the plain case, and harmless commands are still allowed."""
    assert oracle.runs_payload(oracle.payload)
    assert not oracle.runs_payload("echo hi")
    engine = engines(oracle.work)[1]
    for harmless in ("echo hi", "sed -n 's/a/b/p' f", "awk '$1 > 0 {print $1}' f", "sort f"):
        assert engine.check("Bash", {"command": harmless}, read_only=False).behavior == "allow"


# --- issue 29: one generator per class of the analyser's blind spots ---------------------------

# Each class's templates are few; 60 draws cover them (and their combinations) in CI time.
CLASS_SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

WRAPPER_LAYERS = [
    "env time -o /dev/null",
    "env time -f %e -o /dev/null",
    "command time --output=/dev/null",
    "env time --out /dev/null",
    "timeout -s KILL 9",
    "timeout --sig=TERM -k 1 9",
    "nice -n 1",
    "nice -1",
    "nice --adj=1",
    "stdbuf -o L",
    "stdbuf --out=L",
    "setsid -w",
    "env -u X",
    "env --unset X",
    "chrt -o 0",
    "ionice -c 3",
    "taskset -c 0",
    "flock lk1",
    "flock -w 5 lk2",
    "nohup",
    "env",
    "command",
    "xargs -a /dev/null -r -0 true; ",
]


@st.composite
def wrapped(draw: st.DrawFn, payload: str) -> str:
    """Class 1: wrappers whose option values hide which word is the command."""
    layers = draw(st.lists(st.sampled_from(WRAPPER_LAYERS), min_size=1, max_size=3))
    # Each layer's flock takes a lock file of its own: `flock lk1 flock lk1 …` would wait for its
    # own lock until the oracle's timeout (10 s a time) and never run the payload at all.
    layers = [re.sub(r"\blk(\d)\b", rf"lk\g<1>-{i}", layer) for i, layer in enumerate(layers)]
    shell = draw(st.sampled_from(["sh -c", "bash -c", "flock lk3 -c"]))
    return " ".join(layers) + f" {shell} '{payload}'"


@st.composite
def spliced(draw: st.DrawFn, payload: str, marker: str) -> str:
    """Class 2: text read at run time lands in code or in options."""
    return draw(
        st.sampled_from(
            [
                f"printf '%s\\n' '{payload}' | xargs -I{{}} sh -c '{{}}'",
                f"printf '%s\\n' '{payload}' | xargs -i sh -c '{{}}'",
                f"printf '%s\\n' '{payload}' | xargs -I % bash -c '%'",
                f"printf '%s\\n' '{payload}' | xargs --replace sh -c '{{}}'",
                f"printf '%s\\n' '{payload}' | xargs -0 -d '\\n' sh -c",
                f"echo x | xargs -e sh -c '{payload}'",
                f"echo x | xargs -l sh -c '{payload}'",
                f"echo --output={marker} | xargs git log -1",
                f"echo --output={marker} | xargs git diff HEAD",
                f"echo \"'--checkpoint-action=exec={payload}'\" | xargs tar --checkpoint=1 -cf "
                "/dev/null f",
                f"printf '%s\\n' '{payload}' > c.txt; "
                "find . -name c.txt -exec sh -c '. ./{}' \\;",
                f"printf '%s\\n' '{payload}' > c.txt; find . -name c.txt -exec bash {{}} \\;",
            ]
        )
    )


@st.composite
def spelled(draw: st.DrawFn, payload: str) -> str:
    """Class 3: options spelled as getopt reads them, and globs that become options."""
    return draw(
        st.sampled_from(
            [
                f"tar --checkpoint=1 --checkpoint-act=exec='{payload}' -cf /dev/null f",
                f"tar --checkp=1 --checkpoint-a=exec='{payload}' -cf /dev/null f",
                f"tar cIf '{payload}' a.tar f",
                f"tar cvIf '{payload}' a.tar f",
                f"tar -cf a.tar -I '{payload}' f",
                f"tar --use-compress-prog='{payload}' -cf a.tar f",
                f"zip -q -T -TT '{payload} #' a.zip f",
                f"zip -q -T -TT'{payload} #' a.zip f",
                f"sed --expr='1e {payload}' f",
                f"sed -n --exp '1e {payload}' f",
                f"printf '{payload}\\n' > x.sh; : > '--checkpoint=1'; "
                ": > '--checkpoint-action=exec=sh x.sh'; tar cf /dev/null *",
                f"printf '{payload}\\n' > x.sh; : > '--checkpoint=1'; "
                ": > '--checkpoint-action=exec=sh x.sh'; tar cf /dev/null ?*",
            ]
        )
    )


@st.composite
def missing_table(draw: st.DrawFn, payload: str) -> str:
    """Class 4: programs whose tables lacked these options or script features."""
    return draw(
        st.sampled_from(
            [
                f"make -f /dev/null --eval='$(shell {payload})'",
                f"make -f /dev/null -E '$(shell {payload})'",
                f"make -f /dev/null --ev='$(shell {payload})'",
                f"printf 'x:=$(shell {payload})\\n' > m.mk; make -f m.mk",
                f"printf 'x:=$(shell {payload})\\n' > m.mk; make --file=m.mk",
                f"printf 'x:=$(shell {payload})\\n' > m.mk; "
                "make -f /dev/null -I . --eval 'include m.mk'",
                f"sed -n ':a;1e {payload}' f",
                f"sed ':a;N;$!ba;1e {payload}' f",
                f"sed -n 'b x;:x;1e {payload}' f",
                f"printf 'BEGIN{{system(\"{payload}\")}}' > p.awk; mawk -W exec p.awk",
                f"printf 'BEGIN{{system(\"{payload}\")}}' > p.awk; awk -W exec p.awk",
            ]
        )
    )


@st.composite
def configuring_variable(draw: st.DrawFn, payload: str, outside: str) -> str:
    """Class 5: variables that configure what a program runs."""
    tar_opts = f"\"--checkpoint=1 --checkpoint-action=exec='{payload}'\""
    fsmon = f"printf '[core]\\n\\tfsmonitor = {payload}; false\\n'"
    return draw(
        st.sampled_from(
            [
                f"TAR_OPTIONS={tar_opts} tar cf /dev/null f",
                f"export TAR_OPTIONS={tar_opts}; tar cf /dev/null f",
                f"TAR_OPTIONS={tar_opts}; export TAR_OPTIONS; tar cf /dev/null f",
                f"set -a; TAR_OPTIONS={tar_opts}; tar cf /dev/null f",
                f"env TAR_OPTIONS={tar_opts} tar cf /dev/null f",
                f"printf 'x:=$(shell {payload})\\n' > m.mk; MAKEFILES=m.mk make -f /dev/null",
                f"mkdir -p cfg/git; {fsmon} > cfg/git/config; XDG_CONFIG_HOME=$PWD/cfg git status",
                f"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor "
                f"GIT_CONFIG_VALUE_0='{payload}; false' git status",
                f"OLDPWD={outside}; cd - >/dev/null && touch M",
                f"HOME={outside}; touch ~/M",
            ]
        )
    )


@st.composite
def unseen_write(draw: st.DrawFn, outside: str) -> str:
    """Class 6: writes of names nobody sees before they run, and through links made here."""
    return draw(
        st.sampled_from(
            [
                f"echo x > M && tar cf a.tar M && rm M && tar -C {outside} -xf a.tar",
                f"echo x > M && tar cf a.tar M && rm M && cd {outside} && tar xf ~+/a.tar",
                f"echo x > M && zip -q a.zip M && rm M && unzip -oq a.zip -d {outside}",
                f"mkdir -p d && echo x > d/M && cp -r d/. {outside}/",
                f"ln -s {outside} d2 && echo x > d2/M",
                f"ln -s {outside} d3; cp f d3/M",
                f"ln -s {outside}/M h; echo x > h",
                f"ln -sf {outside} l && touch l/M",
            ]
        )
    )


def test_issue29_oracle_is_meaningful(oracle: Oracle) -> None:
    """Ordinary use under the class rules still runs unasked."""
    engine = engines(oracle.work, CLASS_RULES)[1]
    for harmless in ("timeout 5 ls", "nice -n 5 ls", "git status", "make -n"):
        d = engine.check("Bash", {"command": harmless}, read_only=False)
        assert d.behavior == "allow", (harmless, d)


@CLASS_SETTINGS
@given(data=st.data())
def test_wrappers_never_hide_the_command(oracle: Oracle, data: st.DataObject) -> None:
    _check_never_allowed(oracle, data.draw(wrapped(oracle.payload)), CLASS_RULES)


@CLASS_SETTINGS
@given(data=st.data())
def test_run_time_text_never_becomes_code_unasked(oracle: Oracle, data: st.DataObject) -> None:
    command = data.draw(spliced(oracle.payload, str(oracle.marker)))
    _check_never_allowed(oracle, command, CLASS_RULES)


@CLASS_SETTINGS
@given(data=st.data())
def test_option_spellings_are_read_as_getopt_reads_them(
    oracle: Oracle, data: st.DataObject
) -> None:
    _check_never_allowed(oracle, data.draw(spelled(oracle.payload)), CLASS_RULES)


@CLASS_SETTINGS
@given(data=st.data())
def test_program_tables_cover_what_runs(oracle: Oracle, data: st.DataObject) -> None:
    _check_never_allowed(oracle, data.draw(missing_table(oracle.payload)), CLASS_RULES)


@CLASS_SETTINGS
@given(data=st.data())
def test_configuring_variables_never_pass(oracle: Oracle, data: st.DataObject) -> None:
    command = data.draw(configuring_variable(oracle.payload, str(oracle.outside)))
    _check_never_allowed(oracle, command, CLASS_RULES)


@CLASS_SETTINGS
@given(data=st.data())
def test_unseen_writes_never_pass(oracle: Oracle, data: st.DataObject) -> None:
    _check_never_allowed(oracle, data.draw(unseen_write(str(oracle.outside))), CLASS_RULES)


# Class 7: a repository that arrived with its own configuration. The configuration is put in
# place first (as an archive or a copied folder would leave it); the generated command is read-only
# git in any spelling, from any folder that leads there.
HOSTILE_GIT = [
    ("core.fsmonitor", "{p}; false", "status"),
    ("core.fsmonitor", "{p}; false", "diff"),
    ("diff.external", "{p}; true", "diff HEAD~0 --"),
    ("diff.ev.textconv", "{p}; cat", "log -p -1"),
    ("filter.fl.clean", "{p}; cat", "status"),
    ("core.hooksPath", "hooks-elsewhere", "status"),
    ("alias.st", "!{p}", "st"),
    ("core.pager", "{p}; cat", "-p log -1"),
]
HOSTILE_SPELLINGS = [
    "git -C hrepo {verb}",
    "cd hrepo && git {verb}",
    "cd hrepo; git --no-pager {verb}",
    "(cd hrepo && git {verb})",
    "git --git-dir=hrepo/.git --work-tree=hrepo {verb}",
    "cd hrepo/sub && git {verb}",
    "pushd hrepo >/dev/null && git {verb}",
]


def _hostile(oracle: Oracle, key: str, value: str) -> Path:
    h = oracle.work / "hrepo"
    if h.is_symlink() or h.is_file():
        h.unlink()
    shutil.rmtree(h, ignore_errors=True)
    env = _env()
    subprocess.run(["git", "init", "-q", str(h)], check=True, capture_output=True, env=env)
    (h / "sub").mkdir()
    (h / ".gitattributes").write_text("a.x diff=ev filter=fl\n")
    (h / "a.x").write_text("1\n")
    git = ["git", "-C", str(h), "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run([*git, "add", "-A"], check=True, capture_output=True, env=env)
    subprocess.run([*git, "commit", "-qm", "x"], check=True, capture_output=True, env=env)
    (h / "a.x").write_text("2\n")
    hooks = h / "hooks-elsewhere"
    hooks.mkdir()
    (hooks / "post-index-change").write_text(f"#!/bin/sh\n{oracle.payload}\n")
    (hooks / "post-index-change").chmod(0o755)
    subprocess.run(["git", "-C", str(h), "config", key, value], check=True, env=env)
    return h


@CLASS_SETTINGS
@given(data=st.data())
def test_a_repositorys_own_configuration_never_runs_unasked(
    oracle: Oracle, data: st.DataObject
) -> None:
    key, value, verb = data.draw(st.sampled_from(HOSTILE_GIT))
    _hostile(oracle, key, value.replace("{p}", oracle.payload))
    command = data.draw(st.sampled_from(HOSTILE_SPELLINGS)).replace("{verb}", verb)
    _check_never_allowed(oracle, command, CLASS_RULES)


# Class 9: bash on this (case-sensitive) file system can't show `.GIT/config` being `.git/config`;
# the property is that every spelling a case-insensitive file system (or NTFS, HFS+) folds to a
# protected name is asked exactly as the protected name is.
PROTECTED_TARGETS = [".git/config", ".git/hooks/pre-commit", ".envrc", ".vscode/tasks.json"]


@st.composite
def folded_spelling(draw: st.DrawFn) -> tuple[str, str]:
    target = draw(st.sampled_from(PROTECTED_TARGETS))
    first, _, rest = target.partition("/")
    cased = "".join(c.upper() if draw(st.booleans()) else c for c in first)
    cased += draw(st.sampled_from(["", ".", " ", "..", ". "]))
    cased = draw(st.sampled_from([cased, cased.replace("git", "g\u200cit")]))
    if first == ".git" and draw(st.booleans()):
        cased = draw(st.sampled_from(["GIT~1", "git~1"]))
    return target, cased + ("/" + rest if rest else "")


@settings(max_examples=200, deadline=None)
@given(spelling=folded_spelling(), writer=st.sampled_from(["echo x > '{t}'", "cp f '{t}'"]))
def test_folded_spellings_of_protected_names_ask(
    tmp_path_factory: pytest.TempPathFactory, spelling: tuple[str, str], writer: str
) -> None:
    work = tmp_path_factory.getbasetemp() / "fold"
    work.mkdir(exist_ok=True)
    canonical, folded = spelling
    for engine in engines(work, CLASS_RULES):
        if engine.mode == "plan":
            continue
        d = engine.check("Bash", {"command": writer.replace("{t}", folded)}, read_only=False)
        assert d.behavior != "allow", (folded, canonical, d.reason)
