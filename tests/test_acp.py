"""`agent-tui acp`, driven by a client's messages replayed over its stdio (JSON-RPC, one message
a line, as Zed sends them) with the model at the loopback API: initialize, session/new,
session/prompt; the answer streams as `session/update`s; a call that asks becomes a
`session/request_permission` carrying the dialog's reason and keys (once / always with the
rule / deny), the client's choice decides it; a call a rule allows runs unasked; every call is
recorded in the store as from the TUI (`sessions calls` lists the denied and the unreviewed
one); session/cancel mid-turn ends the prompt with `cancelled`."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from conversation_rules import reply, text
from scripted_calls import calls_then_done, setup, to_sse
from sse_server import SSEServer


class Client:
    """The client's side of the wire: send a message, read what comes back."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.seen: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        await self.proc.stdin.drain()

    async def next(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), 60)
        assert line, "the agent closed its output"
        message: dict[str, Any] = json.loads(line)
        self.seen.append(message)
        return message

    async def result(self, request_id: int, answer: Any = None) -> dict[str, Any]:
        """Read until the response to `request_id`, answering permission requests meanwhile
        with `answer(params) -> optionId`."""
        while True:
            message = await self.next()
            if message.get("id") == request_id and "method" not in message:
                assert "error" not in message, message
                return dict(message["result"])
            if message.get("method") == "session/request_permission":
                chosen = answer(message["params"])
                outcome = {"outcome": "selected", "optionId": chosen}
                await self.send({"id": message["id"], "result": {"outcome": outcome}})

    def updates(self) -> list[dict[str, Any]]:
        return [m["params"]["update"] for m in self.seen if m.get("method") == "session/update"]


async def start(server: SSEServer, work: Path, home: Path) -> Client:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "AGENT_TUI_"))}
    env.update(
        ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY="sk-ant-acp", AGENT_TUI_HOME=str(home)
    )
    tree = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [tree, env.get("PYTHONPATH")]))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agent_tui", "acp", "--sandbox", "off", env=env, cwd=work,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, limit=2**24,
    )  # fmt: skip
    return Client(proc)


async def open_session(client: Client, work: Path) -> str:
    await client.send(
        {"id": 1, "method": "initialize", "params": {
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False},
                                   "terminal": False},
            "clientInfo": {"name": "zed", "version": "0.999.0"},
        }}
    )  # fmt: skip
    init = await client.result(1)
    assert init["agentInfo"]["name"] == "agent-tui" and init["protocolVersion"] == 1
    await client.send(
        {"id": 2, "method": "session/new", "params": {"cwd": str(work), "mcpServers": []}}
    )
    new = await client.result(2)
    assert new["modes"]["currentModeId"] == "default"
    assert [m["id"] for m in new["modes"]["availableModes"]] == [
        "default", "accept-edits", "plan", "yolo"
    ]  # fmt: skip
    return str(new["sessionId"])


def calls(home: Path, review: str) -> list[dict[str, Any]]:
    env = {**os.environ, "AGENT_TUI_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "agent_tui", "sessions", "calls", "--review", review, "--json"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [json.loads(x) for x in done.stdout.splitlines()]


async def test_a_prompt_its_updates_permissions_and_the_record(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    (home / "settings.toml").write_text('[permissions]\nallow = ["Bash(touch ok.txt)"]\n')
    responder = calls_then_done(
        ("Bash", {"command": "touch denied.txt"}),
        ("Bash", {"command": "touch ok.txt"}),
        ("Write", {"file_path": "note.md", "content": "hi"}),
        answer="All done.",
    )
    asked: list[dict[str, Any]] = []

    def answer(params: dict[str, Any]) -> str:
        asked.append(params)
        return "deny" if len(asked) == 1 else "once"

    async with SSEServer(responder) as server:
        client = await start(server, work, home)
        try:
            sid = await open_session(client, work)
            prompt = [{"type": "text", "text": "make the files"}]
            params = {"sessionId": sid, "prompt": prompt}
            await client.send({"id": 3, "method": "session/prompt", "params": params})
            done = await client.result(3, answer)
        finally:
            client.proc.stdin.close()  # type: ignore[union-attr]
            await asyncio.wait_for(client.proc.wait(), 30)
    assert done == {"stopReason": "end_turn"}
    assert not (work / "denied.txt").exists() and (work / "ok.txt").exists()
    assert (work / "note.md").read_text() == "hi"
    [bash, write] = asked
    assert bash["toolCall"]["title"] == "Bash: touch denied.txt"
    assert bash["toolCall"]["kind"] == "execute" and bash["toolCall"]["rawInput"] == {
        "command": "touch denied.txt"
    }
    reason = bash["toolCall"]["content"][0]["content"]["text"]
    assert reason.startswith("Asks because")
    kinds = [o["kind"] for o in bash["options"]]
    assert kinds == ["allow_once", "allow_always", "reject_once"]
    assert "Always allow Bash(touch" in bash["options"][1]["name"]
    assert write["toolCall"]["kind"] == "edit" and "note.md" in write["toolCall"]["title"]
    updates = client.updates()
    said = "".join(
        u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"
    )
    assert said == "All done."
    started = [u for u in updates if u["sessionUpdate"] == "tool_call"]
    ended = [u for u in updates if u["sessionUpdate"] == "tool_call_update"]
    assert [u["status"] for u in started] == ["pending"] * 3
    assert [u["status"] for u in ended] == ["failed", "completed", "completed"]
    assert [c["subject"] for c in calls(home, "denied")] == ["touch denied.txt"]
    assert "touch ok.txt" in [c["subject"] for c in calls(home, "unreviewed")]


async def test_cancel_ends_the_prompt_as_cancelled(tmp_path: Path) -> None:
    work, home = setup(tmp_path)

    def responder(index: int, body: Any) -> str:
        return to_sse(reply(text("never read")))

    started = asyncio.Event()

    async def slow(index: int, body: Any) -> str:
        started.set()
        await asyncio.sleep(30)
        return responder(index, body)

    async with SSEServer(slow) as server:
        client = await start(server, work, home)
        try:
            sid = await open_session(client, work)
            params = {"sessionId": sid, "prompt": [{"type": "text", "text": "think long"}]}
            await client.send({"id": 3, "method": "session/prompt", "params": params})
            await asyncio.wait_for(started.wait(), 30)
            await client.send({"method": "session/cancel", "params": {"sessionId": sid}})
            done = await client.result(3)
        finally:
            client.proc.stdin.close()  # type: ignore[union-attr]
            await asyncio.wait_for(client.proc.wait(), 30)
    assert done == {"stopReason": "cancelled"}
