"""How the sandbox changes a Bash decision: auto mode's free pass, and leaving the sandbox."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.permissions.rules import parse_rule
from agent_tui.permissions.settings import SourcedRule
from agent_tui.sandbox.policy import sandbox_decision


@dataclass
class FakeSandbox:
    mode: str = "auto"
    active: bool = True
    #: commands run as transactions (the overlay and the commit gate hold)
    transactional: bool = True

    def excluded(self, command: str) -> bool:
        return False


def decide(tmp_path: Path, command: str, sandbox: FakeSandbox, mode: str = "default", **extra):  # type: ignore[no-untyped-def]
    rules = [SourcedRule(parse_rule("Bash(git push:*)"), "deny", "user")]
    engine = PermissionEngine(tmp_path, rules, mode=mode)  # type: ignore[arg-type]
    raw = {"command": command, **extra}
    return sandbox_decision(sandbox, raw, engine.check("Bash", raw, read_only=False))


CONTAINED = [
    "npm test",
    "python -m pytest -q",
    "make",
    "cat a | sort | python3 tally.py",
    "echo x > f",
    # contained too: a write outside fails inside, a protected one waits at the commit gate
    "echo x > /etc/motd",
    "echo x > .git/config",
    "echo 'use nix' >> .envrc",
]


@pytest.mark.parametrize("command", CONTAINED)
def test_auto_runs_what_the_sandbox_contains_unasked(tmp_path: Path, command: str) -> None:
    d = decide(tmp_path, command, FakeSandbox())
    assert (d.behavior, d.source) == ("allow", "sandbox")


@pytest.mark.parametrize("command", CONTAINED[:5])
def test_auto_asks_as_on_does_where_commands_are_no_transactions(
    tmp_path: Path, command: str
) -> None:
    assert decide(tmp_path, command, FakeSandbox(transactional=False)).behavior == "ask"


@pytest.mark.parametrize("command", ["rm -rf build", "git reset --hard", "rm a.o"])
def test_auto_still_asks_destructive(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command, FakeSandbox()).behavior == "ask"


def test_deny_rules_come_first(tmp_path: Path) -> None:
    assert decide(tmp_path, "git push origin main", FakeSandbox()).behavior == "deny"
    d = decide(tmp_path, "git push", FakeSandbox(), dangerouslyDisableSandbox=True)
    assert d.behavior == "deny"


def test_on_mode_and_an_inactive_sandbox_change_nothing(tmp_path: Path) -> None:
    assert decide(tmp_path, "npm test", FakeSandbox(mode="on")).behavior == "ask"
    assert decide(tmp_path, "npm test", FakeSandbox(active=False)).behavior == "ask"
    off = decide(tmp_path, "ls", FakeSandbox(active=False), dangerouslyDisableSandbox=True)
    assert off.behavior == "allow"  # no sandbox to leave: the flag changes nothing


@pytest.mark.parametrize("mode", ["default", "accept-edits", "yolo"])
def test_leaving_the_sandbox_always_asks_and_is_never_always(tmp_path: Path, mode: str) -> None:
    d = decide(tmp_path, "ls", FakeSandbox(mode="on"), mode, dangerouslyDisableSandbox=True)
    assert (d.behavior, d.source, d.suggestions) == ("ask", "sandbox", ())
    assert "OUTSIDE the sandbox" in d.risk


async def test_headless_never_leaves_the_sandbox_even_with_approve_asks(tmp_path: Path) -> None:
    from agent_tui.agent.approvals import Approvals
    from agent_tui.tools.base import ToolContext
    from agent_tui.tools.builtin.bash import BashTool

    engine = PermissionEngine(tmp_path, mode="yolo")
    events: list[object] = []

    async def ask(request):  # type: ignore[no-untyped-def]
        raise AssertionError("headless never asks")

    approvals = Approvals(
        engine, ask, events.append, cwd=tmp_path, headless=True, allow_asks=True,
        sandbox=FakeSandbox(mode="on"),
    )  # fmt: skip
    tool = BashTool()
    raw = {"command": "ls", "dangerouslyDisableSandbox": True}
    ctx = ToolContext(cwd=tmp_path, data_dir=tmp_path)
    out = await approvals.authorize("t1", tool, raw, tool.validate(raw), ctx)
    assert not out.allowed and out.denial is not None and out.denial.is_error
    plain = {"command": "npm test"}
    verdict = await approvals.authorize("t2", tool, plain, tool.validate(plain), ctx)
    assert verdict.allowed and verdict.denial is None


def test_excluded_commands_run_outside_with_the_usual_questions(tmp_path: Path) -> None:
    from agent_tui.sandbox.config import SandboxConfig
    from agent_tui.sandbox.runner import Sandbox

    config = SandboxConfig(mode="auto", excluded_commands=("docker", "npm run e2e"))
    sandbox = Sandbox(config, tmp_path, PermissionEngine(tmp_path), data_dir=tmp_path)
    assert sandbox.excluded("docker build -t app .")
    assert sandbox.excluded("/usr/bin/docker ps && npm run e2e -- --headed")
    assert not sandbox.excluded("docker ps; rm -rf x")  # every part must be excluded
    assert not sandbox.excluded("docker $(cat cmd)")  # hidden code never is
    assert not sandbox.excluded("npm run build")
    sandbox.availability  # noqa: B018
    if sandbox.active:  # auto's free pass doesn't apply outside the sandbox
        raw = {"command": "docker build ."}
        engine = PermissionEngine(tmp_path)
        d = sandbox_decision(sandbox, raw, engine.check("Bash", raw, read_only=False))
        assert d.behavior == "ask"


def test_sandbox_lists_what_runs_outside(tmp_path: Path) -> None:
    from agent_tui.sandbox.config import SandboxConfig
    from agent_tui.sandbox.runner import Sandbox

    config = SandboxConfig(mode="on", excluded_commands=("docker",))
    sandbox = Sandbox(config, tmp_path, PermissionEngine(tmp_path), data_dir=tmp_path / "d")
    try:
        assert "run outside it (excludedCommands):\n  docker" in sandbox.describe()
    finally:
        sandbox.close()
