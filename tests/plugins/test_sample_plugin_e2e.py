"""The sample plugin (tests/fixtures/sample_plugin) through the real CLI at the loopback API: not
trusted, none of it acts — its command is no command, its skill isn't offered, its hook doesn't
run and its MCP server doesn't start (the marks file stays absent) — and the run says why;
trusted, all four act: `/sample:greet` expands, the UserPromptSubmit and PreToolUse hooks run with
`CLAUDE_PLUGIN_ROOT`, the model's `Skill` call loads the skill with the file beside it, and the
server's tool stamps."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from scripted_calls import calls_then_done, setup, tool_results
from sse_server import SSEServer, run_agent_tui

SAMPLE = Path(__file__).parents[1] / "fixtures" / "sample_plugin"


def plugin_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "sample_plugin"
    shutil.copytree(SAMPLE, folder)
    return folder


def env(marks: Path) -> dict[str, str]:
    return {"SAMPLE_PLUGIN_MARKS": str(marks), "SAMPLE_PLUGIN_PYTHON": sys.executable}


def first_prompt(server: SSEServer) -> str:
    content = server.requests[0].json["messages"][0]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


async def test_nothing_of_an_untrusted_plugin_acts(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    plugin, marks = plugin_copy(tmp_path), tmp_path / "marks"
    marks.mkdir()
    responder = calls_then_done(("Bash", {"command": "echo hi"}))
    async with SSEServer(responder) as server:
        code, _out, err = await run_agent_tui(
            server, work, home, "-p", "/sample:greet Ada", "--plugin-dir", str(plugin),
            "--sandbox", "off", "--allow", "Bash(echo:*)", extra_env=env(marks),
        )  # fmt: skip
        assert code == 0, err.decode()
        tools = [t["name"] for t in server.requests[0].json["tools"]]
        assert first_prompt(server) == "/sample:greet Ada"  # no such command: sent as typed
    assert "Skill" not in tools and not any("plugin_sample" in t for t in tools)
    assert "not loading plugin sample" in err.decode()
    assert list(marks.iterdir()) == []  # no hook ran, no server started


async def test_a_trusted_plugins_command_skill_hook_and_server_all_act(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    plugin, marks = plugin_copy(tmp_path), tmp_path / "marks"
    marks.mkdir()
    responder = calls_then_done(
        ("Skill", {"skill": "sample:haiku", "args": "main.py"}),
        ("mcp__plugin_sample_stamp__stamp", {"text": "ok"}),
        ("Bash", {"command": "echo hi"}),
    )
    async with SSEServer(responder) as server:
        code, _out, err = await run_agent_tui(
            server, work, home, "-p", "/sample:greet Ada", "--plugin-dir", str(plugin),
            "--trust-project", "--sandbox", "off", "--allow", "Bash(echo:*)",
            "--allow", "mcp__plugin_sample_stamp", extra_env=env(marks),
        )  # fmt: skip
        assert code == 0, err.decode()
        assert first_prompt(server).startswith("Greet Ada warmly, in one sentence.")
        skill = next(t for t in server.requests[0].json["tools"] if t["name"] == "Skill")
        results = tool_results(server)
    assert "- sample:haiku: Write a haiku about a piece of code" in skill["description"]
    assert results[0].startswith("Launching skill: sample:haiku")
    assert "Write a haiku about main.py." in results[0] and "- rules.md" in results[0]
    assert f"Base directory for this skill: {plugin.resolve() / 'skills' / 'haiku'}" in results[0]
    assert results[1] == "stamped: ok"
    lines = (marks / "marks").read_text().splitlines()
    root = str(plugin.resolve())
    assert lines[0] == "mcp started"
    assert f"hook prompt {root}" in lines and f"hook bash {root}" in lines
    assert "mcp stamp ok" in lines


async def test_a_plugin_trusted_once_is_used_until_its_files_change(tmp_path: Path) -> None:
    from agent_tui.permissions.trust import TrustStore
    from agent_tui.plugins.manifest import read_plugin

    work, home = setup(tmp_path)
    plugin, marks = plugin_copy(tmp_path), tmp_path / "marks"
    marks.mkdir()
    read = read_plugin(plugin)
    TrustStore.at(home).record_subject(read.key, read.digest, "trusted")
    args = ["-p", "/sample:greet Ada", "--plugin-dir", str(plugin), "--sandbox", "off"]
    async with SSEServer(calls_then_done()) as server:
        code, _out, err = await run_agent_tui(server, work, home, *args, extra_env=env(marks))
        assert code == 0, err.decode()
        assert first_prompt(server).startswith("Greet Ada warmly")
    assert "hook prompt" in (marks / "marks").read_text()
    (marks / "marks").unlink()
    (plugin / "scripts" / "mark.sh").write_text('touch "$SAMPLE_PLUGIN_MARKS/changed"\n')
    async with SSEServer(calls_then_done()) as server:
        code, _out, err = await run_agent_tui(server, work, home, *args, extra_env=env(marks))
        assert code == 0, err.decode()
        assert first_prompt(server) == "/sample:greet Ada"
    assert "not loading plugin sample" in err.decode() and list(marks.iterdir()) == []


def test_plugin_add_list_remove(tmp_path: Path) -> None:
    import os
    import subprocess

    plugin = plugin_copy(tmp_path)
    run_env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path / "home")}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agent_tui", "plugin", *args],
            capture_output=True, text=True, env=run_env, stdin=subprocess.DEVNULL, timeout=60,
        )  # fmt: skip

    added = cli("add", str(plugin))
    assert added.returncode == 0, added.stderr
    assert "Added sample" in added.stdout
    assert "plugin sample: slash command /sample:greet" in added.stdout
    assert "plugin sample: MCP server plugin_sample_stamp runs:" in added.stdout
    assert "next session's trust dialog asks" in added.stdout  # no terminal: no question
    listed = cli("list")
    assert listed.stdout.split("\t")[0] == "sample" and "waiting for trust" in listed.stdout
    assert cli("add", str(tmp_path)).returncode == 1  # not a plugin
    assert json.loads((tmp_path / "home" / "plugins.json").read_text())["plugins"] == [
        str(plugin.resolve())
    ]
    removed = cli("remove", "sample")
    assert removed.returncode == 0 and cli("list").stdout == ""
