"""Where the sandbox can't run: said once at start, commands run as before, no sandbox claimed."""

from __future__ import annotations

from pathlib import Path

from agent_tui.permissions.engine import PermissionEngine
from agent_tui.sandbox.base import Availability, Wrapped
from agent_tui.sandbox.config import SandboxConfig
from agent_tui.sandbox.runner import Sandbox
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin.bash import BashInput, BashTool


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


def test_fail_if_unavailable_refuses_bash_instead(tmp_path: Path) -> None:
    import asyncio

    sandbox = Sandbox(
        SandboxConfig(mode="on", fail_if_unavailable=True),
        tmp_path,
        PermissionEngine(tmp_path),
        data_dir=tmp_path,
        backend=Missing(),
    )
    assert sandbox.refusal and "failIfUnavailable" in sandbox.start_notices[0]
    marker = tmp_path / "ran"
    ctx = ToolContext(cwd=tmp_path, data_dir=tmp_path, sandbox=sandbox)
    out = asyncio.run(BashTool().run(BashInput(command=f"touch {marker}"), ctx))
    assert out.is_error and "refused" in out.content and not marker.exists()


def test_fail_if_unavailable_is_read_from_the_users_settings(tmp_path: Path) -> None:
    from agent_tui.sandbox.config import load_config

    (tmp_path / "settings.toml").write_text(
        "[sandbox]\nenabled = true\nautoAllowBashIfSandboxed = false\nfailIfUnavailable = true\n"
        '[sandbox.network]\nallowedDomains = ["pypi.org"]\n'
    )
    project = tmp_path / "p"
    (project / ".agent-tui").mkdir(parents=True)
    (project / ".agent-tui" / "settings.toml").write_text('[sandbox]\nmode = "off"\n')
    config = load_config(tmp_path, project)
    assert (config.mode, config.fail_if_unavailable) == ("on", True)  # the project can't lower it
    assert config.allowed_domains == ("pypi.org",)
    assert load_config(tmp_path, project, "auto").mode == "auto"  # --sandbox wins over settings
    (project / ".agent-tui" / "settings.toml").write_text('[sandbox]\nmode = "on"\n')
    raised = load_config(tmp_path, project, "auto")
    assert raised.mode == "on" and raised.mode_source.startswith("project")
