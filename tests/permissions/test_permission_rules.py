"""Rule parsing and matching."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.permissions.rules import (
    Match,
    RuleError,
    match_command,
    match_host,
    match_path,
    parse_rule,
)


@pytest.mark.parametrize(
    ("text", "tool", "tokens", "prefix"),
    [
        ("Bash", "Bash", (), False),
        ("Bash(git status)", "Bash", ("git", "status"), False),
        ("Bash(npm run test:*)", "Bash", ("npm", "run", "test"), True),
        ("  Bash(git commit -m 'a b':*)  ", "Bash", ("git", "commit", "-m", "a b"), True),
        ("Bash(ls '*.py')", "Bash", ("ls", "*.py"), False),
        ("WebSearch", "WebSearch", (), False),
        ("Read(src/**)", "Read", (), False),
        ("Edit(docs/*.md)", "Edit", (), False),
        ("Write(docs/*.md)", "Edit", (), False),
        ("mcp__server__tool", "mcp__server__tool", (), False),
    ],
)
def test_parses(text: str, tool: str, tokens: tuple[str, ...], prefix: bool) -> None:
    rule = parse_rule(text)
    assert (rule.tool, rule.tokens, rule.prefix, rule.text) == (tool, tokens, prefix, text.strip())


def test_webfetch_domain_is_lowercased() -> None:
    assert parse_rule("WebFetch(domain:Docs.Example.COM.)").domain == "docs.example.com"
    assert parse_rule("WebFetch(domain:*.example.com)").domain == "*.example.com"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "Bash(",
        "Bash(git status",
        "Bash)",
        "Bash()",
        "Bash(:*)",
        "Bash(git * main)",
        "Bash(git status; rm x)",
        "Bash(a && b)",
        "Bash(echo $(id))",
        "Bash(echo 'unterminated)",
        "Bash(line\nbreak)",
        "WebFetch(example.com)",
        "WebFetch(domain:)",
        "WebFetch(domain:exa mple.com)",
        "WebFetch(domain:http://x.com/)",
        "WebSearch(query)",
        "Read()",
        "Read( src )",
        "Unknown(thing)",
        "Ba sh",
        "1Bash",
        "Bash(git status) extra",
    ],
)
def test_malformed_rules_raise(text: str) -> None:
    with pytest.raises(RuleError):
        parse_rule(text)


def test_non_string_rule_raises() -> None:
    with pytest.raises(RuleError):
        parse_rule(42)  # type: ignore[arg-type]


def test_exact_and_prefix_matching() -> None:
    exact, prefix = parse_rule("Bash(git status)"), parse_rule("Bash(npm run test:*)")
    assert match_command(exact, ("git", "status")) is Match.YES
    assert match_command(exact, ("git", "status", "-s")) is Match.NO
    assert match_command(prefix, ("npm", "run", "test")) is Match.YES
    assert match_command(prefix, ("npm", "run", "test", "--", "-u")) is Match.YES
    assert match_command(prefix, ("npm", "run", "testx")) is Match.NO  # word boundary
    assert match_command(prefix, ("npm", "run")) is Match.NO


def test_unknown_words_are_maybe_where_the_rule_looks() -> None:
    rule = parse_rule("Bash(rm -rf:*)")
    assert match_command(rule, ("rm", None, "/")) is Match.MAYBE
    assert match_command(rule, ("rm", "-rf", None)) is Match.YES
    assert match_command(rule, ("ls", None)) is Match.NO
    assert match_command(parse_rule("Bash(rm x)"), ("rm", "x"), open_args=True) is Match.MAYBE


def test_basename_only_when_asked() -> None:
    rule = parse_rule("Bash(rm:*)")
    assert match_command(rule, ("/bin/rm", "x")) is Match.NO
    assert match_command(rule, ("/bin/rm", "x"), basename=True) is Match.YES


def test_host_matching() -> None:
    assert match_host(parse_rule("WebFetch(domain:example.com)"), "example.com")
    assert not match_host(parse_rule("WebFetch(domain:example.com)"), "sub.example.com")
    assert not match_host(parse_rule("WebFetch(domain:example.com)"), "evilexample.com")
    wild = parse_rule("WebFetch(domain:*.example.com)")
    assert match_host(wild, "a.b.example.com")
    assert not match_host(wild, "example.com") and not match_host(wild, "badexample.com")


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        ("src/**", "src/a/b.py", True),
        ("src/**", "srcx/a.py", False),
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/a/b.py", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "x/y/a.py", True),
        ("*.py", "deep/down/a.py", True),
        (".env", "sub/.env", True),
        (".env", "sub/.envrc", False),
        ("docs/", "docs/x/y.md", True),
        ("./top.txt", "top.txt", True),
        ("./top.txt", "sub/top.txt", False),
        ("file?.txt", "file1.txt", True),
        ("file[0-9].txt", "file7.txt", True),
        ("file[!0-9].txt", "file7.txt", False),
    ],
)
def test_path_globs(glob: str, path: str, expected: bool, tmp_path: Path) -> None:
    assert match_path(parse_rule(f"Read({glob})"), tmp_path / path, tmp_path) is expected


def test_absolute_and_home_globs(tmp_path: Path) -> None:
    assert match_path(parse_rule(f"Edit({tmp_path}/out/**)"), tmp_path / "out/a", Path("/"))
    home = Path("~").expanduser()
    assert match_path(parse_rule("Read(~/.ssh/**)"), home / ".ssh/id_rsa", tmp_path)
