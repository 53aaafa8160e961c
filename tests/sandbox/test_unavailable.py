"""Where the sandbox can't run: said once at start, commands run as before, no sandbox claimed."""

from __future__ import annotations

from pathlib import Path

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.sandbox.base import Availability, Wrapped
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.runner import Sandbox
from agent_tui.tools.base import ToolContext
from agent_tui.tools.bash import BashInput, BashTool


class Missing:
    name = "bubblewrap"

    def availability(self) -> Availability:
        return Availability(False, "no bwrap found: install bubblewrap")

    def wrap(self, argv, layout, proxy_socket):  # type: ignore[no-untyped-def]
        raise AssertionError("never wrapped where it can't run")
        return Wrapped(argv)


def test_no_backend_says_so_and_runs_unsandboxed(tmp_path: Path) -> None:
    import asyncio

    engine = PermissionEngine(tmp_path)
    sandbox = Sandbox(
        SandboxConfig(mode="auto"), tmp_path, engine, data_dir=tmp_path, backend=Missing()
    )
    assert not sandbox.active
    [notice] = sandbox.start_notices
    assert "No sandbox: no bwrap found" in notice and "WITHOUT" not in notice
    assert "not available: no bwrap found" in sandbox.describe()
    assert "WITHOUT a sandbox" in sandbox.describe()
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    ctx = ToolContext(cwd=tmp_path, data_dir=tmp_path, sandbox=sandbox)
    out = asyncio.run(BashTool().run(BashInput(command=f"echo hi > {outside}; echo ok"), ctx))
    assert "ok" in out.content and not out.meta["sandboxed"]
    assert outside.exists()  # as today: only the permission checks stood in its way
    outside.unlink()
