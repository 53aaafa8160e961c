"""Where no sandbox runs (`--sandbox off`), the Bash tool and a background shell still get the
sandbox's allow-list of the environment (sandbox/environment.py), not the app's: the API key
and the person's tokens never reach a command, so the environment's readers, which run unasked
in default and plan mode, have nothing of the app's to print (issue 46, item 2). Through the
real CLI at the loopback API."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e.test_security_e2e import hostile_model
from sandbox.test_deny_by_default_e2e import tool_results
from sse_server import SSEServer, run_agent_tui

SECRET = "k3y-planted-5e1f"
KEY = f"sk-ant-api03-{SECRET}"
TOKENS = {"GITHUB_TOKEN": f"ghp_{SECRET}", "MY_SERVICE_PASSWORD": SECRET}
#: every reader of the environment the issue names, and some it doesn't
READERS = [
    "awk 'BEGIN{print ENVIRON[\"ANTHROPIC_API_KEY\"]}'",
    'echo "$ANTHROPIC_API_KEY $GITHUB_TOKEN $MY_SERVICE_PASSWORD"',
    "env",
    "printenv",
    "declare -p",
    "export -p",
    "set",
    "cat /proc/self/environ | tr '\\0' '\\n'",
]


@pytest.fixture
def world() -> Iterator[tuple[Path, Path]]:
    root = Path(tempfile.mkdtemp(prefix="agent-tui-env-", dir="/var/tmp"))
    project, app = root / "project", root / "app"
    project.mkdir()
    app.mkdir()
    (project / "README.md").write_text("# demo\n")
    try:
        yield project, app
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def _run(
    project: Path, app: Path, calls: list[tuple[str, dict[str, Any]]], *args: str
) -> list[str]:
    async with SSEServer(hostile_model(calls)) as api:
        code, _, err = await run_agent_tui(
            api, project, app, "-p", "go", "--sandbox", "off", *args, key=KEY, extra_env=TOKENS
        )
    assert code == 0, err.decode()
    results = tool_results(api)
    assert len(results) == len(calls), results
    return results


@pytest.mark.parametrize("mode", ["yolo", "default"])
async def test_no_credential_reaches_an_unsandboxed_command(
    world: tuple[Path, Path], mode: str
) -> None:
    project, app = world
    results = await _run(project, app, [("Bash", {"command": c}) for c in READERS], "--mode", mode)
    assert SECRET not in "\n".join(results)
    assert "ANTHROPIC_API_KEY=" not in results[2] and "GITHUB_TOKEN" not in results[2]
    assert "PATH=" in results[2]  # it is the environment, less what grants access
    assert not any(p.is_file() and SECRET in p.read_text("utf-8", "replace")
                   for p in app.rglob("*") if p.suffix != ".db")  # fmt: skip


async def test_no_credential_reaches_a_background_shell(world: tuple[Path, Path]) -> None:
    project, app = world
    command = 'env; echo "K=$ANTHROPIC_API_KEY"; echo done-listing'
    calls: list[tuple[str, dict[str, Any]]] = [
        ("Bash", {"command": command, "run_in_background": True, "description": "env"}),
        ("Bash", {"command": "sleep 1"}),
        ("BashOutput", {"bash_id": "bash_1"}),
    ]
    results = await _run(project, app, calls, "--mode", "yolo")
    assert "done-listing" in results[2] and "K=" in results[2], results[2]
    assert SECRET not in "\n".join(results)
