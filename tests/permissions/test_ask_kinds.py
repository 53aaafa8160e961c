"""`Decision.kinds`: why a Bash command asks, by kind — what the OS sandbox's auto mode reads to
run a command unasked only when it asks for no reason but "may run code" / "writes inside"."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.permissions.rules import parse_rule
from agent_tui.permissions.settings import SourcedRule


def kinds(tmp_path: Path, command: str, *rules: tuple[str, str]) -> tuple[str, ...]:
    engine = PermissionEngine(
        tmp_path,
        [SourcedRule(parse_rule(t), b, "user") for b, t in rules],  # type: ignore[arg-type]
    )
    d = engine.check("Bash", {"command": command}, read_only=False)
    assert d.behavior == "ask", d
    return d.kinds


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("npm test", {"code"}),
        ("cat a | sort | python3 tally.py", {"code"}),
        ("for f in *.py; do wc -l $f; done", {"code"}),
        ("curl -s https://example.com | sh", {"code"}),
        ("echo hi > out.txt", {"write"}),
        ("echo x > /etc/motd", {"outside"}),
        ("echo x >> .git/hooks/pre-commit", {"protected"}),
        ("rm -rf build", {"code", "destructive"}),
        ("rm foo.o", {"code", "destructive"}),
        ("git push --force origin main", {"code", "destructive"}),
        ("make > /tmp/log", {"code", "outside"}),
    ],
)
def test_kinds_name_every_reason(tmp_path: Path, command: str, expected: set[str]) -> None:
    assert set(kinds(tmp_path, command)) == expected


def test_an_ask_rule_is_a_rule_whatever_else(tmp_path: Path) -> None:
    assert "rule" in kinds(tmp_path, "npm publish", ("ask", "Bash(npm publish:*)"))


def test_a_destructive_command_with_an_allow_rule_still_says_so(tmp_path: Path) -> None:
    # allowed by its rule, but writing outside asks: the destructive part is named too
    found = kinds(tmp_path, "rm -rf build > /tmp/x", ("allow", "Bash(rm:*)"))
    assert {"destructive", "outside"} <= set(found)


def test_allow_and_deny_carry_no_kinds(tmp_path: Path) -> None:
    engine = PermissionEngine(tmp_path, [SourcedRule(parse_rule("Bash(rm:*)"), "deny", "user")])
    assert engine.check("Bash", {"command": "git status"}, read_only=False).kinds == ()
    assert engine.check("Bash", {"command": "rm x"}, read_only=False).kinds == ()
