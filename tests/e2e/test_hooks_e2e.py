"""Hooks through the real CLI at the loopback API: a user's PreToolUse hook that exits 2 on `curl`
blocks the call (nothing of it runs) and its stderr reaches the model; a PostToolUse hook gets
`tool_name`, `tool_input`, `tool_response` and how the call was decided (`decided_by`, `rule`,
`rule_source`); a project's hook runs only once the project is trusted, and in the sandbox when it
is on, while the person's own run outside it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from bwrap_support import needs_bwrap
from scripted_calls import calls_then_done, setup
from sse_server import SSEServer, run_agent_tui

BLOCK_CURL = """
import json, sys
data = json.load(sys.stdin)
if "curl" in data["tool_input"].get("command", ""):
    print("curl is blocked by the team's policy: use WebFetch instead", file=sys.stderr)
    sys.exit(2)
"""

LOG_INPUT = """
import json, sys
with open(sys.argv[1], "a") as f:
    f.write(json.dumps(json.load(sys.stdin)) + "\\n")
"""


def result_text(body: dict[str, Any]) -> str:
    last = body["messages"][-1]["content"]
    parts = []
    for b in last:
        if b.get("type") == "tool_result":
            c = b["content"]
            parts.append(c if isinstance(c, str) else "".join(x.get("text", "") for x in c))
    return "\n".join(parts)


def hooks_toml(event: str, matcher: str, command: str) -> str:
    return (
        f"[[hooks.{event}]]\nmatcher = {json.dumps(matcher)}\n"
        f'hooks = [{{ type = "command", command = {json.dumps(command)}, timeout = 20 }}]\n'
    )


async def test_a_pre_tool_use_hook_exiting_2_blocks_curl_and_tells_the_model(
    tmp_path: Path,
) -> None:
    work, home = setup(tmp_path)
    script = tmp_path / "block_curl.py"
    script.write_text(BLOCK_CURL)
    (home / "settings.toml").write_text(
        hooks_toml("PreToolUse", "Bash", f"{sys.executable} {script}")
    )
    command = "touch ran.marker && curl -s http://127.0.0.1:9/"
    responder = calls_then_done(("Bash", {"command": command}))
    async with SSEServer(responder) as server:
        code, _out, err = await run_agent_tui(
            server, work, home, "-p", "fetch it", "--sandbox", "off", "--allow", "Bash"
        )
        assert code == 0, err.decode()
        result = result_text(server.requests[1].json)
    assert "blocked by a PreToolUse hook" in result
    assert "curl is blocked by the team's policy: use WebFetch instead" in result
    assert not (work / "ran.marker").exists()


async def test_a_post_tool_use_hook_gets_the_call_and_how_it_was_decided(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    script, log = tmp_path / "log_input.py", tmp_path / "post.jsonl"
    script.write_text(LOG_INPUT)
    (home / "settings.toml").write_text(
        hooks_toml("PostToolUse", "Bash|Write", f"{sys.executable} {script} {log}")
    )
    responder = calls_then_done(
        ("Bash", {"command": "echo hello-hooks"}), ("Read", {"file_path": str(script)})
    )
    async with SSEServer(responder) as server:
        code, _out, err = await run_agent_tui(
            server, work, home, "-p", "say hello", "--sandbox", "off", "--allow", "Bash(echo:*)"
        )
        assert code == 0, err.decode()
    [entry] = [json.loads(line) for line in log.read_text().splitlines()]  # Read: not matched
    assert entry["hook_event_name"] == "PostToolUse"
    assert entry["tool_name"] == "Bash"
    assert entry["tool_input"] == {"command": "echo hello-hooks"}
    assert entry["tool_use_id"] == "toolu_0"
    assert entry["decided_by"] == "rule"
    assert entry["rule"] == "Bash(echo:*)" and entry["rule_source"] == "cli"
    assert "hello-hooks" in entry["tool_response"]["content"]
    assert entry["tool_response"]["exit_code"] == 0
    assert entry["cwd"] == str(work.resolve()) and entry["permission_mode"] == "default"
    assert entry["session_id"]  # the recorded session's id


async def test_a_projects_hook_runs_only_once_the_project_is_trusted(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    (work / ".agent-tui").mkdir()
    (work / ".agent-tui" / "settings.toml").write_text(
        hooks_toml("PreToolUse", "*", "touch project-hook.ran")
    )
    responder = calls_then_done(("Bash", {"command": "echo hi"}))
    async with SSEServer(responder) as server:
        code, _, err = await run_agent_tui(
            server, work, home, "-p", "hi", "--sandbox", "off", "--allow", "Bash(echo:*)"
        )
        assert code == 0, err.decode()
    assert not (work / "project-hook.ran").exists()
    async with SSEServer(responder) as server:
        code, _, err = await run_agent_tui(
            server, work, home, "-p", "hi", "--sandbox", "off", "--allow", "Bash(echo:*)",
            "--trust-project",
        )  # fmt: skip
        assert code == 0, err.decode()
    assert (work / "project-hook.ran").exists()


@needs_bwrap
async def test_a_projects_hooks_run_in_the_sandbox_and_the_persons_outside(
    tmp_path: Path,
) -> None:
    work, home = setup(tmp_path)
    outside, mine = tmp_path / "outside.txt", tmp_path / "mine.txt"
    (work / ".agent-tui").mkdir()
    (work / ".agent-tui" / "settings.toml").write_text(
        hooks_toml("PreToolUse", "Bash", f"touch inside.ok; echo x > {outside}; true")
    )
    (home / "settings.toml").write_text(hooks_toml("PreToolUse", "Bash", f"echo x > {mine}"))
    responder = calls_then_done(("Bash", {"command": "echo hi"}))
    async with SSEServer(responder) as server:
        code, _, err = await run_agent_tui(
            server, work, home, "-p", "hi", "--sandbox", "on", "--allow", "Bash(echo:*)",
            "--trust-project",
        )  # fmt: skip
        assert code == 0, err.decode()
    assert (work / "inside.ok").exists()  # the project's ran, writing in the project
    assert not outside.exists()  # but not outside it
    assert mine.exists()  # the person's own hook is the person's code: outside the sandbox


async def test_user_prompt_submit_adds_context_or_blocks_the_prompt(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    hook = (
        'python3 -c \'import json,sys; p=json.load(sys.stdin)["prompt"]\n'
        'if "secret" in p: print("prompts may not hold secrets", file=sys.stderr); sys.exit(2)\n'
        'print("the team uses tabs")\''
    )
    (home / "settings.toml").write_text(hooks_toml("UserPromptSubmit", "", hook))
    async with SSEServer(calls_then_done()) as server:
        code, _out, err = await run_agent_tui(server, work, home, "-p", "format it")
        assert code == 0, err.decode()
        sent = json.dumps(server.requests[0].json["messages"])
        assert "format it" in sent and "the team uses tabs" in sent
    async with SSEServer(calls_then_done()) as server:
        code, _out, err = await run_agent_tui(server, work, home, "-p", "my secret is x")
        assert server.requests == []  # nothing was sent
    assert "prompts may not hold secrets" in err.decode()


async def test_a_stop_hook_sends_the_model_on_once(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    hook = (
        "python3 -c 'import json,sys\n"
        'if not json.load(sys.stdin)["stop_hook_active"]:\n'
        '    print("run the tests before stopping", file=sys.stderr); sys.exit(2)\''
    )
    (home / "settings.toml").write_text(hooks_toml("Stop", "", hook))
    async with SSEServer(calls_then_done()) as server:
        code, _out, err = await run_agent_tui(server, work, home, "-p", "do it")
        assert code == 0, err.decode()
        assert len(server.requests) == 2
        assert "run the tests before stopping" in json.dumps(server.requests[1].json["messages"])
