"""`/mcp`: each server's state, a login's link while it waits for the browser, and `l` / `o`
logging the chosen remote server in and out (a local one has no login, said)."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Static

from agent_tui.mcp_servers.config import ServerConfig
from agent_tui.mcp_servers.manager import ServerStatus
from agent_tui.ui.screens.mcp import McpScreen, servers_table


class FakeManager:
    def __init__(self) -> None:
        self.status = {
            "notes": ServerStatus(ServerConfig("notes", "stdio", command="notes"), "connected"),
            "docs": ServerStatus(
                ServerConfig("docs", "http", url="http://127.0.0.1:1/mcp"),
                "needs login",
                error="it needs you to log in (/mcp, then l)",
            ),
        }
        self.calls: list[tuple[str, str]] = []

    async def login(self, name: str) -> bool:
        self.calls.append(("login", name))
        self.status[name].state = "logging in"
        self.status[name].login_url = "http://127.0.0.1:1/authorize?code_challenge=x"
        return True

    async def logout(self, name: str) -> bool:
        self.calls.append(("logout", name))
        return True


class Setup:
    def __init__(self) -> None:
        self.manager: Any = FakeManager()
        self.pending: list[Any] = []


class Host(App[None]):
    def __init__(self, setup: Setup) -> None:
        super().__init__()
        self.setup = setup

    def compose(self) -> ComposeResult:
        yield Static("main")

    def on_mount(self) -> None:
        self.push_screen(McpScreen(self.setup))


def shown(app: App[Any]) -> str:
    from rich.console import Console

    screen = app.screen
    assert isinstance(screen, McpScreen)
    console = Console(width=300, record=True, file=None)
    with console.capture() as out:
        console.print(servers_table(screen.setup, screen.selected))
    return out.get()


async def test_login_and_logout_keys_act_on_the_chosen_remote_server() -> None:
    setup = Setup()
    app = Host(setup)
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.pause()
        assert "needs login: it needs you to log in" in shown(app)
        await pilot.press("l")  # "notes" is chosen: a local server
        await pilot.pause()
        assert setup.manager.calls == []
        await pilot.press("down", "l")
        await pilot.pause(0.7)
        assert setup.manager.calls == [("login", "docs")]
        assert "open this link if no browser opened: http://127.0.0.1:1/authorize" in shown(app)
        await pilot.press("o")
        await pilot.pause()
        assert setup.manager.calls[-1] == ("logout", "docs")
