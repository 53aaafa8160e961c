"""`/sandbox` and the palette's "Sandbox: status": the backend, the mode, the resolved lists."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import make_app, type_prompt, wait_for
from bwrap_support import needs_bwrap

from agent_tui.ui.app import AgentApp
from agent_tui.ui.chat.messages import NoticeMessage

pytestmark = pytest.mark.usefixtures("offline_env")


def notices(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [n.text for n in app.query(NoticeMessage)]


async def slash_sandbox(app: AgentApp) -> str:
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await type_prompt(pilot, "/sandbox")
        await wait_for(pilot, lambda: any(t.startswith("Sandbox") for t in notices(app)))
        [text] = [t for t in notices(app) if t.startswith("Sandbox")]
        assert app.agent is not None and app.agent.messages == []  # not sent to the model
        names = [c.title for c in app.get_system_commands(app.screen)]
        assert "Sandbox: status" in names
        return text


@needs_bwrap
async def test_slash_sandbox_shows_the_transaction_and_what_a_command_sees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_not_for_commands")
    app = make_app(tmp_path, sandbox=None)  # the default: auto
    work = app.options.cwd
    text = await slash_sandbox(app)
    assert "mode: auto (from default)" in text and "backend: bubblewrap: bubblewrap 0." in text
    assert "as a transaction" in text and "run unasked" in text
    assert f"through each command's overlay: its writes are its change set):\n  {work}" in text
    assert "/tmp and /var/tmp (the session's own)" in text
    assert "home: the session's own" in text
    assert "left out of yours" in text and "GITHUB_TOKEN" in text
    assert "network (one namespace for the session" in text


@needs_bwrap
async def test_slash_sandbox_without_change_sets_lists_the_direct_scheme(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    work = app.options.cwd
    (work / ".git").mkdir()
    (work / ".git" / "config").write_text("")
    app.options.sandbox = "on"
    from agent_tui.sandbox import runner

    real = runner.Sandbox._probe_overlay
    runner.Sandbox._probe_overlay = lambda self: "this test's pretend kernel"  # type: ignore[method-assign]
    try:
        text = await slash_sandbox(app)
    finally:
        runner.Sandbox._probe_overlay = real  # type: ignore[method-assign]
    assert "writing to the project directly (this test's pretend kernel)" in text
    assert f"writable:\n  {work}" in text and "/tmp (private to this session)" in text
    assert f"{work}/.git/config" in text  # read-only inside the project
    assert f"{work}/.envrc (not there: kept from being made)" in text


async def test_slash_sandbox_when_it_is_off(tmp_path: Path) -> None:
    app = make_app(tmp_path, sandbox="off")
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await type_prompt(pilot, "/sandbox")
        await wait_for(pilot, lambda: any(t.startswith("Sandbox") for t in notices(app)))
        [text] = [t for t in notices(app) if t.startswith("Sandbox")]
        assert "mode: off (from --sandbox)" in text and "without a sandbox" in text


async def test_a_sandboxed_commands_new_host_asks_the_domain_question() -> None:
    from textual.widgets import Static
    from ui.test_approval import DialogApp, dialog, rendered

    from agent_tui.permissions.types import ApprovalRequest, Decision

    request = ApprovalRequest(
        "toolu_1",
        "Bash",
        {"host": "docs.example.com", "port": 443},
        "docs.example.com",
        Decision(
            "ask",
            reason="Bash wants to reach docs.example.com: no rule allows it",
            suggestions=("WebFetch(domain:docs.example.com)",),
            risk="Bash wants to reach docs.example.com",
        ),
        "/home/ada/project",
        save_to=".agent-tui/settings.local.toml",
    )
    screen = dialog(request)
    app = DialogApp(screen)
    async with app.run_test(size=(100, 30)):
        assert "Bash wants to reach docs.example.com" in rendered(screen.query_one("#risk"))
        labels = [rendered(w) for w in screen.query(Static) if w.has_class("label")]
        assert labels[0] == "domain"
        assert "WebFetch(domain:docs.example.com)" in rendered(screen.query_one("#always"))


async def test_where_the_sandbox_cant_run_the_start_says_so_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.sandbox.base import Availability
    from agent_tui.sandbox.bwrap import BwrapBackend

    monkeypatch.setattr(
        BwrapBackend, "availability", lambda self: Availability(False, "no bwrap found: test")
    )
    app = make_app(tmp_path, sandbox="auto")
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: any(t.startswith("No sandbox") for t in notices(app)))
        said = [t for t in notices(app) if t.startswith("No sandbox")]
        assert said == [
            "No sandbox: no bwrap found: test. Bash commands run without one (only the "
            "permission checks apply); /sandbox says more."
        ]
        assert not app.agent.config.sandbox.active
