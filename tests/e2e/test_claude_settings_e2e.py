"""A Claude Code user's set-up through the real CLI at the loopback API: a trusted project's
`.claude/settings.json` allow rule applies and its PreToolUse hook (exit 2) blocks `curl`; an
untrusted project's file grants and runs nothing (and says so) — in the sandbox's asking mode
(`on`) its `touch` is denied, at the default (`auto`) it runs in the sandbox on the sandbox's
say, never on the project's rule;
a `~/.claude/settings.json` PostToolUse hook gets the call's JSON; the person's own hook under
/tmp (outside the sandbox) blocks `curl`, and one that can't start blocks the call with a
reason."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from scripted_calls import calls_then_done, setup, tool_results
from sse_server import SSEServer, run_agent_tui

BLOCK_CURL = """
import json, sys
data = json.load(sys.stdin)
if "curl" in data["tool_input"].get("command", ""):
    print("curl is blocked by the team's policy", file=sys.stderr)
    sys.exit(2)
"""


def hook_entry(command: str, matcher: str = "Bash") -> dict[str, Any]:
    return {"matcher": matcher, "hooks": [{"type": "command", "command": command, "timeout": 20}]}


def claude_user_file(data: dict[str, Any]) -> None:
    (Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json").write_text(json.dumps(data))


async def test_a_trusted_projects_claude_settings_allow_and_its_hook_blocks_curl(
    tmp_path: Path,
) -> None:
    work, home = setup(tmp_path)
    (work / ".claude" / "hooks").mkdir(parents=True)
    (work / ".claude" / "hooks" / "block_curl.py").write_text(BLOCK_CURL)
    settings = {
        "permissions": {"allow": ["Bash(touch *)", "Bash(curl *)"]},
        "hooks": {"PreToolUse": [hook_entry("python3 .claude/hooks/block_curl.py")]},
    }
    (work / ".claude" / "settings.json").write_text(json.dumps(settings))
    responder = calls_then_done(
        ("Bash", {"command": "touch allowed.marker"}),
        ("Bash", {"command": "curl -s http://127.0.0.1:9/ && touch curled.marker"}),
    )
    # untrusted, the sandbox asking (`on`): the allow rule grants nothing (headless: denied) and
    # the hook runs nothing
    async with SSEServer(responder) as server:
        code, _out, err = await run_agent_tui(server, work, home, "-p", "go", "--sandbox", "on")
        assert code == 0, err.decode()
        said = "\n".join(tool_results(server))
    assert not (work / "allowed.marker").exists() and "needs approval" in said
    assert "curl is blocked" not in said
    stderr = err.decode()
    assert "ignoring this project's own grants (Bash(touch:*), Bash(curl:*))" in stderr
    assert "hook PreToolUse(Bash): python3 .claude/hooks/block_curl.py" in stderr
    # untrusted, the sandbox at its default (`auto`): `touch` runs inside it unasked, decided by
    # the sandbox, not by the project's rule; the hook still runs nothing
    decisions, said = await permissions_of(responder, work, home)
    assert decisions[0]["by"] == "sandbox" and decisions[0]["rule"] is None
    assert (work / "allowed.marker").exists() and "curl is blocked" not in said
    (work / "allowed.marker").unlink()
    # trusted (the default sandbox): the project's rule allows `touch`; the hook blocks `curl`
    # (the rule allowed it too)
    decisions, said = await permissions_of(responder, work, home, "--trust-project")
    assert (decisions[0]["by"], decisions[0]["rule"]) == ("rule", "Bash(touch:*)")
    assert decisions[0]["rule_source"] == "project" and (work / "allowed.marker").exists()
    assert (decisions[1]["decision"], decisions[1]["by"]) == ("deny", "hook")
    assert "blocked by a PreToolUse hook: curl is blocked by the team's policy" in said
    assert not (work / "curled.marker").exists()


async def permissions_of(
    responder: Any, work: Path, home: Path, *args: str
) -> tuple[list[dict[str, Any]], str]:
    """One headless run at the default sandbox: its `permission` events, and the tool results
    the model was sent."""
    async with SSEServer(responder) as server:
        code, out, err = await run_agent_tui(
            server, work, home, "-p", "go", "--output-format", "stream-json", *args
        )
        assert code == 0, err.decode()
        said = "\n".join(tool_results(server))
    events = [json.loads(line) for line in out.decode().splitlines() if line.strip()]
    return [e for e in events if e.get("type") == "permission"], said


async def test_a_user_post_tool_use_hook_gets_the_calls_json(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    log = tmp_path / "post.jsonl"  # under /tmp: the person's hook runs outside the sandbox
    logger = f'{sys.executable} -c \'import sys; open("{log}", "a").write(sys.stdin.read())\''
    claude_user_file({"hooks": {"PostToolUse": [hook_entry(logger)]}})
    async with SSEServer(calls_then_done(("Bash", {"command": "echo hello-hooks"}))) as server:
        code, _out, err = await run_agent_tui(
            server, work, home, "-p", "hi", "--allow", "Bash(echo:*)"
        )
        assert code == 0, err.decode()
    entry = json.loads(log.read_text())
    assert entry["hook_event_name"] == "PostToolUse" and entry["tool_name"] == "Bash"
    assert entry["tool_input"] == {"command": "echo hello-hooks"}
    assert "hello-hooks" in entry["tool_response"]["content"]
    assert entry["session_id"] and entry["cwd"] == str(work.resolve())


async def test_a_user_hook_under_tmp_blocks_curl_and_one_that_cant_start_blocks_too(
    tmp_path: Path,
) -> None:
    work, home = setup(tmp_path)
    script = tmp_path / "block_curl.py"  # /tmp is private inside the sandbox: not there
    script.write_text(BLOCK_CURL)
    command = "curl -s http://127.0.0.1:9/; touch ran.marker"
    claude_user_file({"hooks": {"PreToolUse": [hook_entry(f"{sys.executable} {script}")]}})
    async with SSEServer(calls_then_done(("Bash", {"command": command}))) as server:
        code, _out, err = await run_agent_tui(server, work, home, "-p", "go", "--allow", "Bash")
        assert code == 0, err.decode()
        said = "\n".join(tool_results(server))
    assert "curl is blocked by the team's policy" in said and not (work / "ran.marker").exists()
    missing = tmp_path / "no-such-dir" / "guard.sh"
    claude_user_file({"hooks": {"PreToolUse": [hook_entry(str(missing))]}})
    async with SSEServer(calls_then_done(("Bash", {"command": "touch ran.marker"}))) as server:
        code, _out, err = await run_agent_tui(server, work, home, "-p", "go", "--allow", "Bash")
        assert code == 0, err.decode()
        said = "\n".join(tool_results(server))
    assert not (work / "ran.marker").exists()
    [line] = [x for x in said.splitlines() if "PreToolUse hook" in x]
    assert "could not start" in line and str(missing) in line and "blocked" in line
