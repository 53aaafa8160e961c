"""The status line's activity has one owner (`ui/views/activity.py`): no other module sets it."""

from __future__ import annotations

import ast
from pathlib import Path

import agent_tui

ROOT = Path(agent_tui.__file__).parent
OWNER = ROOT / "ui" / "views" / "activity.py"


def writers(source: str) -> list[int]:
    """Lines that assign a status line's `activity` (`status.activity = …`, `x.status.activity`)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        targets = node.targets if isinstance(node, ast.Assign) else []
        targets += [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
        for t in targets:
            if isinstance(t, ast.Attribute) and t.attr == "activity":
                owner = t.value
                name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
                if name == "status":
                    lines.append(t.lineno)
    return lines


def test_only_the_owner_sets_the_activity() -> None:
    found = {
        str(path.relative_to(ROOT)): lines
        for path in ROOT.rglob("*.py")
        if path != OWNER and (lines := writers(path.read_text("utf-8")))
    }
    assert found == {}
    assert writers(OWNER.read_text("utf-8"))  # the checker sees the owner's


def test_the_checker_sees_each_spelling() -> None:
    assert writers("self.host.status.activity = 'x'") == [1]
    assert writers("status.activity = 'x'") == [1]
    assert writers("self.activity = activity") == []
