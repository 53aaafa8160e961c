"""Bash itself is the oracle: whatever bash would run, the engine must not allow unasked.

Each generated command nests the constructs from the security issue around a payload that creates
a marker file outside the working directory. The command runs in a real `bash` (in a scratch
directory, with a clean environment); whenever the marker appears, the engine's decision for that
command must not be "allow". Over-asking is fine; under-asking is the bug this guards against.
"""

from __future__ import annotations

import contextlib
import os
import shutil
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
        with contextlib.suppress(subprocess.TimeoutExpired):
            subprocess.run(
                [BASH or "bash", "-c", command],
                cwd=self.work,
                env=_env(),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=10,
            )
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


def engines(work: Path) -> list[PermissionEngine]:
    prefix = [SourcedRule(parse_rule(r), "allow", "cli") for r in PREFIX_RULES]
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


def _check_never_allowed(oracle: Oracle, command: str) -> None:
    STATS["generated"] += 1
    if not oracle.runs_payload(command):
        return
    STATS["ran_payload"] += 1
    for engine in engines(oracle.work):
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
