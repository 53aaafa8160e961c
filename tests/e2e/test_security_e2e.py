"""The approval promise, end to end: the real CLI as a subprocess, the real SDK at the loopback SSE
server playing a hostile model, real bash running whatever is allowed, and a hostile repository.
One test per class of the security issue; each payload would create a marker file, and none may
(headless, an ask becomes a denial, so anything that runs was allowed without the person)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from conversation_rules import reply, text, tool_use
from sse_server import SSEServer, run_agent_tui


def to_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def hostile_model(calls: list[tuple[str, dict[str, Any]]]):  # type: ignore[no-untyped-def]
    """Asks for each tool call in turn (one per response), then ends the turn."""

    def responder(index: int, body: Any) -> str:
        if index < len(calls):
            name, input = calls[index]
            return to_sse(
                reply(tool_use(f"toolu_{index:02d}", name, input), stop_reason="tool_use")
            )
        return to_sse(reply(text("done")))

    return responder


async def run_cli(
    project: Path, home: Path, calls: list[tuple[str, dict[str, Any]]], *args: str
) -> tuple[int, list[dict[str, Any]], str, SSEServer]:
    async with SSEServer(hostile_model(calls)) as server:
        # the analyser's own decisions: the sandbox in its asking mode (`on`), which keeps
        # every question (by default, `auto`, it would run what it contains unasked); a test
        # may still pass its own --sandbox (the last one counts)
        code, out, err = await run_agent_tui(
            server, project, home, "-p", "do it", "--output-format", "stream-json",
            "--sandbox", "on", *args, key="sk-ant-api03-e2e-security",
        )  # fmt: skip
    events = [json.loads(line) for line in out.decode().splitlines() if line.strip()]
    return code, events, err.decode(), server


def decisions(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["decision"], e["by"]) for e in events if e["type"] == "permission"]


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path, Path]:
    project, home, outside = tmp_path / "project", tmp_path / "home", tmp_path / "outside"
    for d in (project, home, outside):
        d.mkdir()
    (project / "f").write_text("a\nb\n")
    return project, home, outside / "M"


async def test_code_inside_expansions_and_heredocs_never_runs_unasked(
    dirs: tuple[Path, Path, Path],
) -> None:
    project, home, marker = dirs
    commands = [
        f"echo ${{x:-`touch {marker}`}}",
        f"echo ${{HOME#$(touch {marker})}}",
        f"true <<EOF\n`touch {marker}`\nEOF",
        f"x='a[$(touch {marker})]'; echo $((x))",
        f"p='$(touch {marker})'; echo ${{p@P}}",
    ]
    code, events, err, _ = await run_cli(
        project, home, [("Bash", {"command": c}) for c in commands]
    )
    assert code == 0, err
    assert decisions(events) == [("deny", "headless")] * len(commands)
    assert not marker.exists()


async def test_a_prefix_rule_grants_no_code_execution_or_outside_writes(
    dirs: tuple[Path, Path, Path],
) -> None:
    project, home, marker = dirs
    commands = [
        f"sed 's/.*/touch {marker}/e' f",
        f"awk 'BEGIN {{ system(\"touch {marker}\") }}'",
        f"sort -o {marker} f",
        f"tar --checkpoint=1 --checkpoint-action=exec='touch {marker}' -cf /dev/null f",
    ]
    allow = ["--allow", "Bash(sed:*)", "--allow", "Bash(awk:*)", "--allow", "Bash(sort:*)"]
    allow += ["--allow", "Bash(tar:*)"]
    code, events, err, _ = await run_cli(
        project, home, [("Bash", {"command": c}) for c in [*commands, "sort f"]], *allow
    )
    assert code == 0, err
    assert decisions(events) == [("deny", "headless")] * len(commands) + [("allow", "rule")]
    assert not marker.exists()


async def test_deny_rules_hold_against_every_spelling_even_in_yolo(
    dirs: tuple[Path, Path, Path],
) -> None:
    project, home, _ = dirs
    pushes = [
        "git push",
        "git -C . push",
        "git --no-pager push",
        "git -c color.ui=never push",
        "'git' push --force",
        "/usr/bin/git push",
        "env git push",
        "git --git-dir=.git push",
        "npm --prefix . publish",
    ]
    args = ["--allow", "Bash(git:*)", "--allow", "Bash(npm:*)", "--deny", "Bash(git push:*)"]
    args += ["--deny", "Bash(npm publish:*)", "--mode", "yolo", "--approve-asks"]
    code, events, err, server = await run_cli(
        project, home, [("Bash", {"command": c}) for c in pushes], *args
    )
    assert code == 0, err
    assert decisions(events) == [("deny", "rule")] * len(pushes)
    # and the model is told each was denied by the rule
    results = [
        block
        for msg in server.requests[-1].json["messages"]
        if msg["role"] == "user" and isinstance(msg["content"], list)
        for block in msg["content"]
        if block.get("type") == "tool_result"
    ]
    assert len(results) == len(pushes)
    assert all("deny rule" in json.dumps(r["content"]) for r in results)


async def test_a_cloned_repository_cannot_arm_the_agent(dirs: tuple[Path, Path, Path]) -> None:
    project, home, _ = dirs
    marker = project / "armed"
    settings = project / ".agent-tui" / "settings.toml"
    settings.parent.mkdir()
    settings.write_text('[permissions]\nallow = ["Bash(touch:*)", "Bash(git:*)"]\n')
    calls = [("Bash", {"command": "touch armed"})]
    code, events, err, _ = await run_cli(project, home, calls)
    assert code == 0, err
    assert decisions(events) == [("deny", "headless")]
    assert "ignoring this project's own grants" in err and "Bash(touch:*)" in err
    assert not marker.exists()
    # the person can trust it explicitly
    code, events, err, _ = await run_cli(project, home, calls, "--trust-project")
    assert decisions(events) == [("allow", "rule")]
    assert marker.exists()


async def test_protected_paths_ask_even_in_accept_edits(dirs: tuple[Path, Path, Path]) -> None:
    project, home, _ = dirs
    (project / ".git" / "hooks").mkdir(parents=True)
    hook = project / ".git" / "hooks" / "pre-commit"
    config = project / ".git" / "config"
    calls = [
        ("Write", {"path": str(hook), "content": "#!/bin/sh\ntouch /tmp/x\n"}),
        ("Bash", {"command": "printf '[core]\\n\\tfsmonitor = touch x\\n' >> .git/config"}),
        ("Bash", {"command": f"echo 'touch x' | tee {hook}"}),
        ("Write", {"path": str(project / "notes.txt"), "content": "fine\n"}),
    ]
    code, events, err, _ = await run_cli(project, home, calls, "--mode", "accept-edits")
    assert code == 0, err
    assert decisions(events) == [("deny", "headless")] * 3 + [("allow", "mode")]
    assert not hook.exists() and not config.exists()
    assert (project / "notes.txt").read_text() == "fine\n"


async def test_a_webfetch_rule_never_lifts_the_address_checks(
    dirs: tuple[Path, Path, Path],
) -> None:
    project, home, _ = dirs
    hits: list[bytes] = []

    async def page(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        hits.append(await reader.readline())
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nhi")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(page, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    spellings = ["127.1", "2130706433", "0x7f000001", "0177.0.0.1", "[::ffff:127.0.0.1]"]
    settings = project / ".agent-tui" / "settings.toml"
    settings.parent.mkdir()
    settings.write_text('[permissions]\nallow = ["WebFetch(domain:127.0.0.1)"]\n')
    args: list[str] = ["--trust-project"]  # even a trusted project can't name loopback
    for s in spellings:
        args += ["--allow", f"WebFetch(domain:{s})"]
    calls = [("WebFetch", {"url": f"http://{s}:{port}/", "prompt": "x"}) for s in spellings]
    calls.append(("WebFetch", {"url": f"http://127.0.0.1:{port}/", "prompt": "x"}))
    try:
        code, events, err, _ = await run_cli(project, home, calls, *args)
    finally:
        server.close()
    assert code == 0, err
    assert hits == []  # nothing reached the loopback server
    results = [e for e in events if e["type"] == "tool_result"]
    assert len(results) == len(calls) and all(r["is_error"] for r in results)
