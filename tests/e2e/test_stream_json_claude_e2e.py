"""`--output-format stream-json` read by a Claude Code consumer (`claude_code_schema`, written
from Claude Code's published SDK types): a real run (the real SDK against the loopback API) with
a tool call that runs, one that is denied and an answer; every line parses, the init line first,
`result` last; `--max-turns` ends in `error_max_turns` (exit 1); `--output-format json` is the
`result` object with Claude Code's fields and rounded costs; and today's own event types are all
still there."""

from __future__ import annotations

import json
from pathlib import Path

from claude_code_schema import (
    Assistant,
    Result,
    ResultError,
    ResultSuccess,
    SystemInit,
    User,
    check_stream,
)
from scripted_calls import calls_then_done, setup
from sse_server import SSEServer, run_agent_tui

CALLS = (
    ("Bash", {"command": "echo hello-stream"}),
    # no rule allows it: headless, a question is a denial (in the sandbox's asking mode, `on`: by
    # default, `auto`, a write inside the project runs in the sandbox unasked)
    ("Bash", {"command": "touch made.txt"}),
)


async def test_every_line_of_a_real_run_parses_for_a_claude_code_consumer(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    async with SSEServer(calls_then_done(*CALLS)) as server:
        code, out, err = await run_agent_tui(
            server, work, home, "-p", "go", "--output-format", "stream-json", "--verbose",
            "--allowedTools", "Bash(echo *)", "--model", "sonnet", "--sandbox", "on",
        )  # fmt: skip
        sent = [r.json for r in server.requests]
    assert code == 0, err.decode()
    lines = out.decode().splitlines()
    typed = check_stream(lines)
    init = typed[0]
    assert isinstance(init, SystemInit)
    assert init.model == "claude-sonnet-5-5" and sent[0]["model"] == "claude-sonnet-5-5"
    assert init.cwd == str(work.resolve()) and "Bash" in init.tools
    assert init.permissionMode == "default"
    assistants = [m for m in typed if isinstance(m, Assistant)]
    users = [m for m in typed if isinstance(m, User)]
    assert len(assistants) == 3 and len(users) == 2
    assert [b["type"] for b in assistants[0].message["content"]] == ["tool_use"]
    first = users[0].message.content[0]
    assert not isinstance(first, str) and "hello-stream" in str(first.content)
    result = typed[-1]
    assert isinstance(result, ResultSuccess) and result.result == "done"
    assert result.num_turns == 3 and result.terminal_reason == "completed"
    assert [d.tool_input for d in result.permission_denials] == [{"command": "touch made.txt"}]
    assert list(result.modelUsage) == ["claude-sonnet-5-5"]
    # today's own events are all still there, unchanged in name
    ours = [json.loads(line)["type"] for line in lines]
    for kind in ("turn_start", "text", "tool_call", "permission", "tool_result", "turn_end"):
        assert kind in ours, kind


async def test_max_turns_ends_in_error_max_turns_and_exit_1(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    async with SSEServer(calls_then_done(*CALLS)) as server:
        code, out, err = await run_agent_tui(
            server, work, home, "-p", "go", "--output-format", "stream-json", "--max-turns", "1",
            "--allowedTools", "Bash(echo *)",
        )  # fmt: skip
        assert len(server.requests) == 1
    assert code == 1 and "--max-turns" in err.decode()
    result = check_stream(out.decode().splitlines())[-1]
    assert isinstance(result, ResultError) and result.subtype == "error_max_turns"
    assert result.terminal_reason == "max_turns" and result.num_turns == 1


async def test_json_output_is_claude_codes_result(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    async with SSEServer(calls_then_done(CALLS[0])) as server:
        code, out, err = await run_agent_tui(
            server, work, home, "-p", "go", "--output-format", "json",
            "--allowedTools", "Bash(echo *)",
        )  # fmt: skip
    assert code == 0, err.decode()
    [line] = out.decode().splitlines()
    result = Result.validate_json(line)
    assert isinstance(result, ResultSuccess) and result.duration_ms >= result.duration_api_ms > 0
    cost = json.loads(line)["total_cost_usd"]
    assert cost == round(cost, 10) and len(repr(cost)) < 16  # no float noise
