"""Hooks without the agent: reading the TOML (bad entries warned about, not run), matchers, what
exit codes and JSON output decide, a timeout that stops a hook's whole group, and a project's hooks
listed for the trust dialog and run only once trusted."""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.hooks.config import HookCommand, HookSettings, load_hooks, read_hooks
from agent_tui.hooks.outcome import judge
from agent_tui.hooks.runner import HookRun, HookRunner, session_hooks
from agent_tui.permissions.engine import PermissionEngine


def cmd(event: str = "PreToolUse", matcher: str = "", timeout: float = 10) -> HookCommand:
    return HookCommand(event, matcher, "true", timeout, "user", Path("settings.toml"))


def test_reading_keeps_good_entries_and_warns_about_bad_ones(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text(
        '[[hooks.PreToolUse]]\nmatcher = "Bash"\nhooks = [{ type = "command", command = "a" }]\n'
        '[[hooks.PostToolUse]]\nmatcher = "("\nhooks = [{ type = "command", command = "b" }]\n'
        '[[hooks.Stop]]\nhooks = [{ type = "command", command = "c", timeout = -1 }]\n'
        "[[hooks.Nope]]\nhooks = []\n"
    )
    settings = HookSettings()
    read_hooks(path, "user", settings)
    assert [(c.event, c.command, c.timeout) for c in settings.commands] == [
        ("PreToolUse", "a", 60.0)
    ]
    assert len(settings.warnings) == 3
    assert any("not a valid regex" in w for w in settings.warnings)
    assert any("unknown event" in w for w in settings.warnings)


def test_matchers_are_names_regexes_or_everything() -> None:
    assert cmd(matcher="Bash").matches("Bash") and not cmd(matcher="Bash").matches("BashOutput")
    assert cmd(matcher="Write|Edit").matches("Edit")
    assert cmd(matcher="mcp__.*").matches("mcp__notes__add")
    assert cmd(matcher="*").matches("Read") and cmd(matcher="").matches("Read")
    assert cmd("Stop", matcher="Bash").matches(None)  # not a tool event: matcher ignored


def run(code: int | None, out: str = "", err: str = "", **kw: object) -> HookRun:
    return HookRun(cmd(), code, out, err, **kw)  # type: ignore[arg-type]


def test_exit_codes_and_json_decide_as_claude_code_documents() -> None:
    assert judge("PreToolUse", [run(2, err="no curl")]).block == "no curl"
    assert judge("PreToolUse", [run(2, err="no")]).decision == "deny"
    failed = judge("Stop", [HookRun(cmd("Stop"), 1, "", "oops\nmore")])  # a Stop hook: warns
    assert failed.block is None and failed.decision is None and "oops" in failed.notices[0]
    ask = '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}'
    allow = '{"hookSpecificOutput": {"permissionDecision": "allow"}}'
    assert judge("PreToolUse", [run(0, allow), run(0, ask)]).decision == "ask"
    assert judge("PreToolUse", [run(0, '{"decision": "approve"}')]).decision == "allow"
    post = judge("PostToolUse", [run(0, '{"decision": "block", "reason": "lint failed"}')])
    assert post.block == "lint failed"
    ctx = '{"hookSpecificOutput": {"additionalContext": "branch: main"}}'
    assert judge("UserPromptSubmit", [run(0, ctx)]).context == ["branch: main"]
    assert judge("UserPromptSubmit", [run(0, "plain context")]).context == ["plain context"]
    assert judge("Stop", [run(0, '{"continue": false, "stopReason": "enough"}')]).stop == "enough"
    timed_out = HookRun(cmd("Stop"), None, "", "", timed_out=True)
    assert "timed out" in judge("Stop", [timed_out]).notices[0]


async def test_a_hook_that_hangs_is_stopped_at_its_timeout_with_its_children(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "child.pid"
    hook = HookCommand(
        "Stop", "", f"sleep 300 & echo $! > {pidfile}; wait", 0.5, "user", tmp_path / "s"
    )
    runner = HookRunner(HookSettings([hook]), tmp_path)
    [result] = await runner.run("Stop", {"stop_hook_active": False})
    assert result.timed_out
    child = int(pidfile.read_text())
    try:
        state = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        state = "gone"
    assert state in ("gone", "Z")


def test_a_projects_hooks_wait_for_trust_and_are_listed_for_it(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / ".agent-tui").mkdir(parents=True)
    (work / ".agent-tui" / "settings.toml").write_text(
        '[[hooks.PostToolUse]]\nmatcher = "Write"\n'
        'hooks = [{ type = "command", command = "./fmt.sh" }]\n'
    )
    home = Path(os.environ["AGENT_TUI_HOME"])
    (home / "settings.toml").write_text(
        '[[hooks.Stop]]\nhooks = [{ type = "command", command = "notify-send done" }]\n'
    )
    engine = PermissionEngine.load(work, config_dir=home)
    hooks = session_hooks(work, engine, None)
    assert hooks is not None
    assert engine.trust_question == (
        "hook PostToolUse(Write): ./fmt.sh  (.agent-tui/settings.toml)",
    )
    assert hooks.matching("PostToolUse", "Write") == []
    assert [c.command for c in hooks.matching("Stop")] == ["notify-send done"]
    engine.decide_trust(True)
    assert [c.command for c in hooks.matching("PostToolUse", "Write")] == ["./fmt.sh"]
    assert engine.trust_question == ()
    assert load_hooks(home, work).of("project")[0].command == "./fmt.sh"


async def test_notification_hooks_get_the_message_and_match_its_type(tmp_path: Path) -> None:
    import asyncio

    from agent_tui.hooks.tool_gate import notify

    log = tmp_path / "n.json"
    hooks = [
        HookCommand("Notification", "permission_prompt", f"cat > {log}", 10, "user", tmp_path),
        HookCommand("Notification", "idle_prompt", f"touch {tmp_path}/idle", 10, "user", tmp_path),
    ]
    runner = HookRunner(HookSettings(hooks), tmp_path)
    notify(runner, "agent-tui needs your permission to use Bash")
    for _ in range(500):
        if log.exists() and log.read_text():
            break
        await asyncio.sleep(0.02)
    import json

    data = json.loads(log.read_text())
    assert data["hook_event_name"] == "Notification"
    assert data["message"] == "agent-tui needs your permission to use Bash"
    assert data["notification_type"] == "permission_prompt"
    assert not (tmp_path / "idle").exists()
