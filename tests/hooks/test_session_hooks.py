"""The hook events Claude Code has beyond our first five, in the loop: SessionStart (once, with
its source; its output goes to the model with the first prompt, again after /new or a compaction),
PreCompact (its trigger and instructions; exit 2 stops the compaction), SessionEnd (its reason),
SubagentStop (a sub-agent's report sent on), and what the audit records of an updatedInput."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from conversation_rules import ScriptedProvider, reply, text, tool_use
from loop_harness import EchoTool, Harness

from agent_tui.agent.subagents import attach_subagents
from agent_tui.agent.turn_hooks import session_end
from agent_tui.hooks.config import HookCommand, HookSettings
from agent_tui.hooks.runner import HookRunner
from agent_tui.protocol.events import ApprovalDecided, Notice

LOG = """
import json, sys
data = json.load(sys.stdin)
with open(sys.argv[1], "a") as f:
    f.write(json.dumps(data) + "\\n")
print(sys.argv[2] if len(sys.argv) > 2 else "")
sys.exit(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
"""


def hook(
    tmp_path: Path, event: str, matcher: str = "", say: str = "", code: int = 0
) -> HookCommand:
    script = tmp_path / "log.py"
    script.write_text(LOG)
    log = tmp_path / f"{event}.jsonl"
    command = f"{sys.executable} {script} {log} '{say}' {code}"
    return HookCommand(event, matcher, command, 20, "user", tmp_path / "settings.toml")


def logged(tmp_path: Path, event: str) -> list[dict[str, Any]]:
    path = tmp_path / f"{event}.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def harness(tmp_path: Path, provider: ScriptedProvider, *hooks: HookCommand) -> Harness:
    h = Harness(provider, [EchoTool()], tmp_path)
    h.agent.config.hooks = h.agent.approvals.hooks = HookRunner(HookSettings(list(hooks)), tmp_path)
    return h


async def test_session_start_runs_once_and_its_output_goes_with_the_first_prompt(
    tmp_path: Path,
) -> None:
    provider = ScriptedProvider(reply(text("a")), reply(text("b")), reply(text("c")))
    h = harness(tmp_path, provider, hook(tmp_path, "SessionStart", "startup|clear", "on main"))
    await h.agent.submit("one")
    await h.agent.submit("two")
    assert "on main" in json.dumps(provider.requests[0].messages)
    assert "on main" not in json.dumps(provider.requests[1].messages[-1])
    assert [e["source"] for e in logged(tmp_path, "SessionStart")] == ["startup"]
    await session_end(h.agent, "clear")  # /new: the next session starts with source "clear"
    await h.agent.submit("three")
    assert [e["source"] for e in logged(tmp_path, "SessionStart")] == ["startup", "clear"]


async def test_pre_compact_gets_its_trigger_and_can_stop_the_compaction(tmp_path: Path) -> None:
    provider = ScriptedProvider(reply(text("a")), reply(text("b")), reply(text("summary")))
    blocking = hook(tmp_path, "PreCompact", "manual", "", 2)
    h = harness(tmp_path, provider, blocking)
    await h.agent.submit("one")
    await h.agent.submit("two")
    await h.agent.compact("keep names")
    [entry] = logged(tmp_path, "PreCompact")
    assert entry["trigger"] == "manual" and entry["custom_instructions"] == "keep names"
    assert len(provider.requests) == 2  # no summary request
    assert any("PreCompact hook stopped the compaction" in n.text for n in h.of(Notice))


async def test_session_end_gets_its_reason(tmp_path: Path) -> None:
    h = harness(tmp_path, ScriptedProvider(), hook(tmp_path, "SessionEnd"))
    await session_end(h.agent, "prompt_input_exit")
    assert [e["reason"] for e in logged(tmp_path, "SessionEnd")] == ["prompt_input_exit"]
    assert h.agent.config.hooks.matching("SessionEnd", "other")[0].timeout == 20


async def test_subagent_stop_sends_the_sub_agent_on_once(tmp_path: Path) -> None:
    task = tool_use("t1", "Task", {"description": "look", "prompt": "look around"})
    provider = ScriptedProvider(
        reply(task, stop_reason="tool_use"),
        reply(text("first report")),  # the sub-agent
        reply(text("better report")),  # the sub-agent, sent on by the hook
        reply(text("done")),
    )
    script = tmp_path / "once.py"
    script.write_text(
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "if not data['stop_hook_active']:\n"
        "    print('check your work', file=sys.stderr); sys.exit(2)\n"
    )
    once = HookCommand("SubagentStop", "", f"{sys.executable} {script}", 20, "user", script)
    h = harness(tmp_path, provider, once)
    attach_subagents(h.agent, tmp_path, tmp_path / "config", trusted=False)
    await h.agent.submit("delegate")
    assert "check your work" in json.dumps(provider.requests[2].messages)
    final = json.dumps(provider.requests[3].messages[-1])
    assert "better report" in final and len(provider.requests) == 4


async def test_the_audit_keeps_the_input_a_hook_rewrote(tmp_path: Path) -> None:
    out = {"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"text": "b"}}}
    rewrite = HookCommand("PreToolUse", "Echo", f"echo '{json.dumps(out)}'", 20, "user", tmp_path)
    echo = tool_use("t1", "Echo", {"text": "a"})
    provider = ScriptedProvider(reply(echo, stop_reason="tool_use"), reply(text("ok")))
    h = harness(tmp_path, provider, rewrite)
    await h.agent.submit("go")
    [decided] = h.of(ApprovalDecided)
    assert decided.updated_input == {"text": "b"} and decided.subject == "b"
    assert "echo: b" in json.dumps(provider.requests[1].messages)
