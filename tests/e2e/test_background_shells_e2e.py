"""Background shells through the real CLI at the loopback API: Bash `run_in_background` starts
`python3 -m http.server`, BashOutput reads "Serving HTTP", KillShell stops it and the port closes;
in the sandbox too (where the server's port lives in the sandbox's own network namespace, so the
oracle there is its processes); the run's end kills a shell the model left running."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path
from typing import Any

from bwrap_support import needs_bwrap
from conversation_rules import reply, text, tool_use
from sse_server import SSEServer, run_agent_tui

ALLOW = ["--allow", "Bash(python3 -m http.server:*)", "--allow", "Bash(sleep:*)"]


def to_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def last_results(body: dict[str, Any]) -> list[str]:
    last = body["messages"][-1]["content"]
    if isinstance(last, str):
        return []
    out = []
    for b in last:
        if b.get("type") == "tool_result":
            c = b["content"]
            out.append(c if isinstance(c, str) else "".join(x.get("text", "") for x in c))
    return out


def servers(marker: str) -> list[int]:
    """Pids whose command line holds `marker` (the oracle for "nothing left running")."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in cmd and "pytest" not in cmd and "agent_tui" not in cmd:
                found.append(int(entry.name))
    return found


class Script:
    def __init__(self, command: str, port: int | None, kill: bool = True) -> None:
        self.command, self.port, self.kill = command, port, kill
        self.seen: dict[str, Any] = {"polls": 0}

    def __call__(self, index: int, body: Any) -> str:
        results = last_results(body)
        joined = "\n".join(results)
        if index == 0:
            call = {"command": self.command, "run_in_background": True, "description": "server"}
            return to_sse(reply(tool_use("toolu_bg", "Bash", call), stop_reason="tool_use"))
        if "Command running in background with ID:" in joined:
            self.seen["started"] = joined
        if "Serving HTTP" in joined and "served" not in self.seen:
            self.seen["served"] = joined
            self.seen["open_while_running"] = self.port is not None and port_open(self.port)
            self.seen["pids_while_running"] = servers(self.command.split()[-1])
            if not self.kill:
                return to_sse(reply(text("Left it running.")))
            kill = tool_use("toolu_kill", "KillShell", {"shell_id": "bash_1"})
            return to_sse(reply(kill, stop_reason="tool_use"))
        if "Successfully killed shell: bash_1" in joined:
            self.seen["killed"] = joined
            self.seen["open_after_kill"] = self.port is not None and port_open(self.port)
            self.seen["pids_after_kill"] = servers(self.command.split()[-1])
            read = tool_use("toolu_after", "BashOutput", {"bash_id": "bash_1"})
            return to_sse(reply(read, stop_reason="tool_use"))
        if "<status>killed</status>" in joined:
            self.seen["status_after"] = joined
            return to_sse(reply(text("Server stopped.")))
        self.seen["polls"] += 1
        if self.seen["polls"] > 40:
            return to_sse(reply(text("gave up")))
        n = self.seen["polls"]
        return to_sse(
            reply(
                tool_use(f"toolu_sleep{n}", "Bash", {"command": "sleep 0.25"}),
                tool_use(f"toolu_read{n}", "BashOutput", {"bash_id": "bash_1"}),
                stop_reason="tool_use",
            )
        )


def project(tmp_path: Path) -> tuple[Path, Path]:
    work, home = tmp_path / "project", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work, home


async def test_a_background_server_is_started_read_and_killed(tmp_path: Path) -> None:
    work, home = project(tmp_path)
    port = free_port()
    script = Script(f"python3 -m http.server --bind 127.0.0.1 {port}", port)
    async with SSEServer(script) as server:
        code, out, err = await run_agent_tui(
            server, work, home, "-p", "start a server", "--sandbox", "off", *ALLOW
        )
    assert code == 0, err.decode()
    seen = script.seen
    assert "bash_1" in seen["started"]
    assert "Serving HTTP" in seen["served"] and "<status>running</status>" in seen["served"]
    assert seen["open_while_running"] is True
    assert seen["open_after_kill"] is False
    assert seen["pids_after_kill"] == []
    assert "<status>killed</status>" in seen["status_after"]
    assert b"Server stopped." in out


@needs_bwrap
async def test_a_background_server_runs_in_the_sandbox(tmp_path: Path) -> None:
    work, home = project(tmp_path)
    port = free_port()
    script = Script(f"python3 -m http.server --bind 127.0.0.1 {port}", None)
    async with SSEServer(script) as server:
        code, out, err = await run_agent_tui(
            server, work, home, "-p", "start a server", "--sandbox", "on", *ALLOW
        )
    assert code == 0, err.decode()
    seen = script.seen
    assert "(in the sandbox)" in seen["started"]
    assert "Serving HTTP" in seen["served"]
    assert seen["pids_while_running"], "the server ran"
    assert not port_open(port), "its port is the sandbox's own, not the host's"
    assert seen["pids_after_kill"] == []
    assert b"Server stopped." in out


async def test_the_end_of_the_run_kills_a_shell_left_running(tmp_path: Path) -> None:
    work, home = project(tmp_path)
    port = free_port()
    script = Script(f"python3 -m http.server --bind 127.0.0.1 {port}", port, kill=False)
    async with SSEServer(script) as server:
        code, _out, err = await run_agent_tui(
            server, work, home, "-p", "start a server", "--sandbox", "off", *ALLOW
        )
    assert code == 0, err.decode()
    assert script.seen["open_while_running"] is True
    assert not port_open(port)
    assert servers(f"http.server --bind 127.0.0.1 {port}") == []
