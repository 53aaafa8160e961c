"""The coding-agent toolset through the real SDK at the loopback server, as the CLI runs it:
Grep, Glob and TodoWrite in one response; a Task whose sub-agent sees only its prompt and whose
conversation is stored as a linked session (`--continue` still picks the parent); an MCP
server's tool, asked (denied headless) with no rule and run under `mcp__notes`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from conversation_rules import reply, text, tool_use
from sse_server import SSEServer, run_agent_tui

from agent_tui.sessions.store import SessionStore

SERVER = Path(__file__).parents[1] / "fixtures" / "mcp" / "notes_server.py"
SECRET = "parent-only detail 91c2"


def to_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def results(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    last = body["messages"][-1]["content"]
    return {b["tool_use_id"]: b for b in last if b.get("type") == "tool_result"}


def project(tmp_path: Path) -> tuple[Path, Path, Path]:
    work, home = tmp_path / "project", tmp_path / "home"
    (work / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "src" / "app.py").write_text("def handler():\n    return 'TODO: wire it'\n")
    (work / ".gitignore").write_text("dist/\n")
    (work / "dist").mkdir()
    (work / "dist" / "bundle.py").write_text("TODO in a build artefact\n")
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {"notes": {"command": sys.executable, "args": [str(SERVER)]}}})
    )
    return work, home, config


def script(index: int, body: Any) -> str:
    system = json.dumps(body.get("system"))
    if "sub-agent of agent-tui" in system:
        return to_sse(reply(text("Sub-agent report: handler() in src/app.py returns a TODO.")))
    step = sum(1 for m in body["messages"] if m["role"] == "assistant")
    if step == 0:
        todos = [
            {"content": "Find the TODOs", "status": "in_progress", "activeForm": "Finding TODOs"},
            {"content": "Write a note", "status": "pending", "activeForm": "Writing a note"},
        ]
        return to_sse(
            reply(
                tool_use("toolu_grep", "Grep", {"pattern": "TODO", "output_mode": "content"}),
                tool_use("toolu_glob", "Glob", {"pattern": "**/*.py"}),
                tool_use("toolu_todo", "TodoWrite", {"todos": todos}),
                stop_reason="tool_use",
            )
        )
    if step == 1:
        task = {"description": "inspect handler", "prompt": "Look at src/app.py and report."}
        return to_sse(reply(tool_use("toolu_task", "Task", task), stop_reason="tool_use"))
    if step == 2:
        note = {"name": "todo", "text": "wire the handler"}
        return to_sse(
            reply(tool_use("toolu_mcp", "mcp__notes__add_note", note), stop_reason="tool_use")
        )
    return to_sse(reply(text("All done.")))


async def test_the_toolset_through_the_cli(tmp_path: Path) -> None:
    work, home, config = project(tmp_path)
    async with SSEServer(script) as server:
        code, out, err = await run_agent_tui(
            server, work, home, "-p", f"Find the TODOs ({SECRET})", "--mcp-config", str(config),
            extra_env={"ENABLE_TOOL_SEARCH": "true"},  # the API's tool search at loopback
        )  # fmt: skip
        assert code == 0, err.decode()
        bodies = [r.json for r in server.requests]
        parent = [b for b in bodies if "sub-agent of agent-tui" not in json.dumps(b.get("system"))]
        subs = [b for b in bodies if b not in parent]
        # the tools the model sees
        names = [t["name"] for t in parent[0]["tools"]]
        for expected in ("Bash", "Read", "Write", "Edit", "Grep", "Glob", "TodoWrite", "Task"):
            assert expected in names
        assert {"mcp__notes__add_note", "mcp__notes__read_note"} <= set(names)
        # Grep and Glob ran without asking, .gitignore respected; the plan was accepted
        first = results(parent[1])
        assert first["toolu_grep"]["content"] == "src/app.py:2:    return 'TODO: wire it'"
        assert first["toolu_glob"]["content"] == "src/app.py"
        assert "plan is updated" in first["toolu_todo"]["content"]
        # the sub-agent saw its prompt alone, and only its report came back
        (sub,) = subs
        assert sub["messages"] == [
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "Look at src/app.py and report.",
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            }
        ]
        assert SECRET not in json.dumps(sub) and "Task" not in [t["name"] for t in sub["tools"]]
        # its tools are deferred as the parent's are: WebFetch and MCP tools behind ToolSearch
        sub_tools = {t["name"]: t for t in sub["tools"]}
        assert sub_tools["WebFetch"].get("defer_loading") is True
        assert sub_tools["mcp__notes__add_note"].get("defer_loading") is True
        assert sub["tools"][-1]["name"] == "ToolSearch"
        task_result = results(parent[2])["toolu_task"]["content"]
        assert task_result.startswith("Sub-agent report:")
        # headless with no rule for the MCP tool: asked, so denied
        mcp_result = results(parent[3])["toolu_mcp"]
        assert mcp_result.get("is_error") and "mcp__notes__add_note" in json.dumps(mcp_result)
        assert out.decode().strip() == "All done."

        # allowed by a server-wide rule, the same call runs on the server
        code, _, err = await run_agent_tui(
            server, work, home, "-p", "again", "--mcp-config", str(config), "--allow", "mcp__notes"
        )
        assert code == 0, err.decode()
        last = [r.json for r in server.requests][-1]
        assert results(last)["toolu_mcp"]["content"] == "Stored note 'todo' (16 characters)."

    # the sub-agent's conversation is a session of its own, linked to the parent
    with SessionStore(home / "sessions.db") as store:
        sessions = store.sessions.recent(cwd=work)
        titles = [s.title for s in sessions]
        assert "↳ Task: inspect handler" in titles
        latest = store.sessions.latest(work)
        assert latest is not None and not latest.title.startswith("↳")
