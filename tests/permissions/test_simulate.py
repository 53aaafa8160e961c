"""The rule simulator over a seeded store: which past calls a proposed rule would have decided
differently, what is noted about them, and the narrower rule the suggestion logic would pick."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.permissions.rules import parse_rule
from agent_tui.permissions.settings import SourcedRule
from agent_tui.permissions.simulate import simulate as simulate_with
from agent_tui.sessions import SessionStore
from agent_tui.sessions.rules_cli import main
from agent_tui.tools.subject import tool_subject

#: the simulator as the command line and the app run it: each call's subject in the tools' terms
simulate = partial(simulate_with, subject=tool_subject)

HISTORY = [
    ("Bash", {"command": "git add src/app.py"}),
    ("Bash", {"command": "git add src/app.py"}),
    ("Bash", {"command": "git add -A"}),
    ("Bash", {"command": "git commit -m wip"}),
    ("Bash", {"command": "git push --force origin main"}),
    ("Bash", {"command": "git push --force origin main"}),
    ("Bash", {"command": "git -c core.pager=less log"}),
    ("Bash", {"command": "git status"}),  # read-only: allowed without any rule
    ("Bash", {"command": "npm test"}),
    ("Bash", {"command": "echo hi > /tmp/elsewhere.txt"}),
    ("Edit", {"file_path": "src/app.py", "old_string": "a", "new_string": "b"}),
    ("WebFetch", {"url": "https://example.com/page"}),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "project"
    (work / "src").mkdir(parents=True)
    (work / "src" / "app.py").write_text("a\n")
    return work


@pytest.fixture
def store(tmp_path: Path, project: Path) -> SessionStore:
    store = SessionStore(tmp_path / "sessions.db")
    sid = store.sessions.create(project, "claude-test")
    other = store.sessions.create(tmp_path, "claude-test")  # another project: not looked at
    for i, (tool, tool_input) in enumerate(HISTORY):
        store.runs.record(sid, f"t{i}", tool, tool_input, decision="allow", decided_by="user")
    store.runs.record(other, "x", "Bash", {"command": "git push --force"}, decision="allow")
    return store


def engine(project: Path, config: Path, *rules: tuple[str, str]) -> PermissionEngine:
    sourced = [SourcedRule(parse_rule(text), behavior, "user") for text, behavior in rules]  # type: ignore[arg-type]
    return PermissionEngine(project, sourced, config_dir=config)


def test_a_broad_allow_rule(store: SessionStore, project: Path, tmp_path: Path) -> None:
    sim = simulate(
        engine(project, tmp_path / "cfg"), ["Bash(git:*)"], store.runs.past_calls(project)
    )
    assert sim.calls == len(HISTORY) and sim.distinct == len(HISTORY) - 2
    changed = {c.subject: (c.before.behavior, c.after.behavior, c.call.count) for c in sim.changes}
    assert changed == {
        "git push --force origin main": ("ask", "allow", 2),
        "git add src/app.py": ("ask", "allow", 2),
        "git add -A": ("ask", "allow", 1),
        "git commit -m wip": ("ask", "allow", 1),
    }
    assert sim.changes[0].destructive  # destructive calls come first
    assert sim.changed == 6
    assert sim.summary() == (
        "`Bash(git:*)` would have allowed 6 past calls unasked, including "
        "2 × `git push --force origin main` (destructive)"
    )
    # what "always" would have saved for those calls instead
    assert sim.narrower == [("Bash(git add:*)", 3), ("Bash(git commit:*)", 1)]
    assert sim.narrower_text() == "narrower: `Bash(git add:*)` (3), `Bash(git commit:*)` (1)"


def test_a_rule_already_in_force_or_for_another_tool_changes_nothing(
    store: SessionStore, project: Path, tmp_path: Path
) -> None:
    base = engine(project, tmp_path / "cfg", ("Bash(git add:*)", "allow"))
    sim = simulate(base, ["Bash(git add:*)"], store.runs.past_calls(project))
    assert sim.changes == [] and "would change nothing about the 12 stored calls" in sim.summary()
    assert simulate(base, ["WebSearch"], store.runs.past_calls(project)).changes == []


def test_deny_and_ask_rules(store: SessionStore, project: Path, tmp_path: Path) -> None:
    base = engine(project, tmp_path / "cfg", ("Bash(git:*)", "allow"))
    denied = simulate(base, ["Bash(git push:*)"], store.runs.past_calls(project), "deny")
    assert [(c.subject, c.before.behavior, c.after.behavior) for c in denied.changes] == [
        ("git push --force origin main", "allow", "deny")
    ]
    assert denied.summary().startswith("`Bash(git push:*)` would have denied 2 past calls")
    asked = simulate(base, ["Bash(git commit:*)"], store.runs.past_calls(project), "ask")
    assert asked.summary() == (
        "`Bash(git commit:*)` would have asked before 1 past call that ran without asking"
    )


def test_other_tools(store: SessionStore, project: Path, tmp_path: Path) -> None:
    base = engine(project, tmp_path / "cfg")
    fetch = simulate(base, ["WebFetch(domain:example.com)"], store.runs.past_calls(project))
    assert [c.subject for c in fetch.changes] == ["https://example.com/page"]
    edit = simulate(base, ["Edit(src/**)"], store.runs.past_calls(project))
    assert [c.subject for c in edit.changes] == ["src/app.py"]
    # the redirect outside the project asks whatever rule matched
    assert simulate(base, ["Bash(echo:*)"], store.runs.past_calls(project)).changes == []


def test_cli(
    store: SessionStore,
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store.close()
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    db = str(tmp_path / "sessions.db")
    assert main(["--db", db, "try", "Bash(git:*)", "--project", str(project)]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == (
        "   2 × Bash      ask → allow  git push --force origin main"
        "  [destructive: git push --force]"
    )
    assert len(lines) == 4
    assert err.splitlines()[0].startswith("`Bash(git:*)` would have allowed 6 past calls unasked")
    assert err.splitlines()[1].startswith("narrower: `Bash(git add:*)` (3)")
    assert main(["--db", db, "try", "Bash(git push:*", "--project", str(project)]) == 1
    assert "agent-tui rules:" in capsys.readouterr().err
    assert main(["--db", db, "try"]) == 2


COMMANDS = [
    "git add -A && git commit -m x",
    "git push --force",
    "git -c core.pager=less log",
    "npm run build > out.txt",
    "echo hi > notes.txt",
    "rm -rf build",
    "sed -i s/a/b/ src/app.py",
    "ls | xargs git add",
    "cat src/app.py",
    "bash -c 'git status'",
    "g'i't push",
    "\\git push",
    "/usr/bin/git push --force",
    "env GIT_DIR=x git push",
    "$(echo git) push",
    "gi?  push",
    "cat cmds.txt | sh",
]


@pytest.mark.parametrize(
    ("rule", "behavior"),
    [
        ("Bash(git:*)", "allow"),
        ("Bash(git add:*)", "allow"),
        ("Bash(npm run build)", "allow"),
        ("Edit(notes.txt)", "allow"),
        ("Edit(out.txt)", "allow"),
        ("Bash(rm:*)", "deny"),
        ("Bash(git push:*)", "ask"),
        ("Bash", "allow"),
        ("Edit(src/**)", "deny"),
        ("Bash(git push:*)", "deny"),
        ("Bash(/usr/bin/git:*)", "allow"),
    ],
)
def test_same_answer_as_the_engine_call_by_call(
    tmp_path: Path, project: Path, rule: str, behavior: str
) -> None:
    """The shortcuts (tools a rule can't affect, commands it matches no part of) never hide a
    change the engine itself would make."""
    rows = [("Bash", json.dumps({"command": c}), 1, "s") for c in COMMANDS]
    base = engine(project, tmp_path / "cfg", ("Bash(git add:*)", "allow"))
    with_rule = engine(project, tmp_path / "cfg", ("Bash(git add:*)", "allow"), (rule, behavior))
    expected = {
        c
        for c in COMMANDS
        if base.check("Bash", {"command": c}, read_only=False).behavior
        != with_rule.check("Bash", {"command": c}, read_only=False).behavior
    }
    sim = simulate(base, [rule], rows, behavior)  # type: ignore[arg-type]
    assert {c.subject for c in sim.changes} == expected


def test_the_summary_of_no_or_one_stored_call_reads_as_words() -> None:
    from agent_tui.permissions.simulate import Simulation

    none = Simulation(("Bash(make:*)",), "allow")
    assert none.summary() == "no stored calls yet to try `Bash(make:*)` on"
    one = Simulation(("Bash(make:*)",), "allow", calls=1, distinct=1)
    assert one.summary() == "`Bash(make:*)` would change nothing about the stored call"
