"""Hooks as Claude Code users write them: in ~/.claude/settings.json and a project's
.claude/settings.json (the project's only once trusted), the events Claude Code has beyond our
first five, its renamed tools in matchers, a PreToolUse hook that fails blocking the call (fail
closed, unless its `onFailure` says "continue"), `updatedInput` decided anew by the engine, and
the person's own hooks outside the OS sandbox."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from agent_tui.agent.approvals import Approvals, deny_all
from agent_tui.hooks.config import HookCommand, HookSettings, load_hooks
from agent_tui.hooks.outcome import judge
from agent_tui.hooks.runner import HookRun, HookRunner, session_hooks
from agent_tui.permissions.engine import PermissionEngine
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.bash import BashTool


def claude_dir() -> Path:
    return Path(os.environ["CLAUDE_CONFIG_DIR"])


def hooks_json(event: str, matcher: str, command: str, **extra: Any) -> dict[str, Any]:
    entry = {"type": "command", "command": command, "timeout": 20, **extra}
    return {"hooks": {event: [{"matcher": matcher, "hooks": [entry]}]}}


def test_claude_code_settings_hooks_are_read_and_a_projects_wait_for_trust(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    (work / ".claude").mkdir(parents=True)
    (work / ".claude" / "settings.json").write_text(
        json.dumps(hooks_json("PreToolUse", "Bash", "./guard.sh"))
    )
    claude_dir().joinpath("settings.json").write_text(
        json.dumps(hooks_json("PostToolUse", "Edit|Write", "~/bin/log.sh"))
    )
    home = Path(os.environ["AGENT_TUI_HOME"])
    engine = PermissionEngine.load(work, config_dir=home)
    hooks = session_hooks(work, engine, None)
    assert hooks is not None
    assert [c.command for c in hooks.matching("PostToolUse", "Write")] == ["~/bin/log.sh"]
    assert hooks.matching("PreToolUse", "Bash") == []  # the project's: not trusted
    assert "hook PreToolUse(Bash): ./guard.sh  (.claude/settings.json)" in engine.trust_question
    engine.decide_trust(True)
    assert [c.command for c in hooks.matching("PreToolUse", "Bash")] == ["./guard.sh"]


def test_a_hook_in_several_files_runs_once(tmp_path: Path) -> None:
    home = Path(os.environ["AGENT_TUI_HOME"])
    (home / "settings.toml").write_text(
        '[[hooks.Stop]]\nhooks = [{ type = "command", command = "say done" }]\n'
    )
    claude_dir().joinpath("settings.json").write_text(
        json.dumps(hooks_json("Stop", "", "say done"))
    )
    assert [c.source for c in load_hooks(home, tmp_path).commands] == ["user"]


def test_matchers_match_claude_codes_new_tool_names_too() -> None:
    def hook(matcher: str) -> HookCommand:
        return HookCommand("PreToolUse", matcher, "true", 5, "user", Path("s"))

    assert hook("Agent").matches("Task") and hook("Task").matches("Task")
    assert hook("TaskOutput").matches("BashOutput") and hook("TaskStop").matches("KillShell")
    assert not hook("Agent").matches("Bash")
    start = HookCommand("SessionStart", "resume|compact", "true", 5, "user", Path("s"))
    assert start.matches("resume") and not start.matches("startup")


def failed_run(event: str, code: int | None, on_failure: str | None = None, **kw: Any) -> HookRun:
    hook = HookCommand(event, "", "/tmp/nowhere/hook.sh", 5, "user", Path("s"), on_failure)
    return HookRun(hook, code, "", kw.pop("err", ""), **kw)


def test_a_pre_tool_use_hook_that_fails_blocks_the_call_with_one_line() -> None:
    cant_start = failed_run("PreToolUse", 127, err="bash: /tmp/nowhere/hook.sh: No such file")
    verdict = judge("PreToolUse", [cant_start])
    assert verdict.decision == "deny"
    assert verdict.block is not None and "\n" not in verdict.block
    assert "could not start (exit 127" in verdict.block and "/tmp/nowhere/hook.sh" in verdict.block
    for run in (
        failed_run("PreToolUse", 1, err="Traceback (most recent call last):"),
        failed_run("PreToolUse", None, timed_out=True),
        failed_run("PreToolUse", None, error="could not start: [Errno 2] bash"),
        failed_run("PreToolUse", -9, error="was killed by signal 9"),
    ):
        assert judge("PreToolUse", [run]).decision == "deny", run
    # unless the hook says otherwise; and other events warn by default
    assert judge("PreToolUse", [failed_run("PreToolUse", 1, "continue")]).decision is None
    assert judge("PostToolUse", [failed_run("PostToolUse", 1)]).block is None
    assert judge("Stop", [failed_run("Stop", 1, "block")]).block is not None


def test_an_on_failure_that_is_not_block_or_continue_is_left_out(tmp_path: Path) -> None:
    claude_dir().joinpath("settings.json").write_text(
        json.dumps(hooks_json("PreToolUse", "", "x", onFailure="ignore"))
    )
    settings = load_hooks(Path(os.environ["AGENT_TUI_HOME"]), tmp_path)
    assert settings.commands == [] and "onFailure" in settings.warnings[0]


class _Sandbox:
    """A sandbox that is on, and says so if anything tries to start a command in it."""

    active = True

    async def prepare(self, argv: list[str], ask: Any = None) -> Any:
        raise AssertionError("the person's own hook was started inside the sandbox")


async def test_the_persons_own_hooks_run_outside_the_sandbox(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    hook = HookCommand("Stop", "", f"touch {marker}", 10, "user", tmp_path / "s")
    runner = HookRunner(HookSettings([hook]), tmp_path, sandbox=_Sandbox())
    [result] = await runner.run("Stop", {"stop_hook_active": False})
    assert result.exit_code == 0 and marker.exists()


def _approvals(work: Path, hooks: HookRunner) -> Approvals:
    engine = PermissionEngine.load(work, config_dir=Path(os.environ["AGENT_TUI_HOME"]))
    return Approvals(engine, deny_all, lambda e: None, cwd=work, headless=True, hooks=hooks)


def _ctx(work: Path) -> ToolContext:
    return ToolContext(cwd=work, data_dir=work)


async def test_updated_input_is_decided_anew_by_the_engine(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()

    def rewriting_to(command: str) -> HookRunner:
        out = {"hookSpecificOutput": {"permissionDecision": "allow",
                                      "updatedInput": {"command": command}}}  # fmt: skip
        script = f"echo '{json.dumps(out)}'"
        hook = HookCommand("PreToolUse", "Bash", script, 10, "user", tmp_path / "s")
        return HookRunner(HookSettings([hook]), work)

    tool = BashTool()
    raw = {"command": "ls"}
    # rewritten to a read-only command: the hook's allow stands, and the call runs rewritten
    approvals = _approvals(work, rewriting_to("echo rewritten"))
    verdict = await approvals.authorize("t1", tool, raw, tool.validate(raw), _ctx(work))
    assert verdict.allowed and verdict.denial is None
    assert verdict.input == {"command": "echo rewritten"}
    assert verdict.params.command == "echo rewritten"
    # rewritten to one a deny rule covers: denied, whatever the hook said
    approvals = _approvals(work, rewriting_to("rm -rf ./src"))
    approvals.permissions.add_rules(["Bash(rm:*)"], "deny")
    verdict = await approvals.authorize("t2", tool, raw, tool.validate(raw), _ctx(work))
    assert not verdict.allowed and verdict.denial is not None and "rm:*" in verdict.denial.content


async def test_additional_context_from_pre_tool_use_is_kept_for_the_result(tmp_path: Path) -> None:
    out = {"hookSpecificOutput": {"additionalContext": "the tests live in t/"}}
    hook = HookCommand("PreToolUse", "", f"echo '{json.dumps(out)}'", 10, "user", tmp_path)
    approvals = _approvals(tmp_path, HookRunner(HookSettings([hook]), tmp_path))
    tool, raw = BashTool(), {"command": "ls"}
    verdict = await approvals.authorize("t", tool, raw, tool.validate(raw), _ctx(tmp_path))
    assert verdict.allowed and verdict.hook_context == ("the tests live in t/",)


def test_hooks_of_the_persons_settings_flag_need_no_trust(tmp_path: Path) -> None:
    from agent_tui.permissions import claude_settings

    claude_settings.use_cli_settings([json.dumps(hooks_json("Stop", "", "say done"))])
    settings = load_hooks(Path(os.environ["AGENT_TUI_HOME"]), tmp_path)
    runner = HookRunner(settings, tmp_path)  # the project not trusted
    assert [(c.source, c.command) for c in runner.matching("Stop")] == [("cli", "say done")]
    assert runner.untrusted == ()
