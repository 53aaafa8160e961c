"""The MCP servers view (`/mcp`, the palette's "MCP: servers"): each configured server, where it
came from, whether it is connected, failed (and why), needs a login or is waiting for the project
to be trusted, and how many tools it gave. ↑/↓ choose a server; for a remote one `l` logs in
(the browser opens at the authorization server; the link is shown too) and `o` logs out."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

STATE_STYLES = {
    "connected": "green",
    "failed": "red",
    "starting": "yellow",
    "stopped": "dim",
    "needs login": "yellow",
    "logging in": "yellow",
}


def servers_table(setup: Any, selected: int | None = None) -> Table | Text:
    manager = getattr(setup, "manager", None)
    rows = list(manager.status.values()) if manager is not None else []
    pending = list(getattr(setup, "pending", []))
    if not rows and not pending:
        return Text(
            "No MCP servers are configured. Add them in Claude Code's format to <config>/mcp.json, "
            "the project's .mcp.json (started once the project is trusted), or pass "
            "--mcp-config FILE."
        )
    table = Table(box=None, padding=(0, 2), show_edge=False)
    for column in ("", "server", "from", "state", "tools", "runs"):
        table.add_column(column, style="bold" if column == "server" else None)
    for n, status in enumerate(rows):
        state = Text(status.state, style=STATE_STYLES.get(status.state, ""))
        if status.error:
            state.append(f": {status.error}")
        if getattr(status, "login_url", ""):
            state.append(f"\nopen this link if no browser opened: {status.login_url}")
        config = status.config
        tools = str(status.tools) if status.state == "connected" else "–"
        mark = "›" if n == selected else " "
        table.add_row(mark, Text(config.name), config.source, state, tools, Text(config.describe()))
    for config in pending:
        state = Text("waiting: trust the project to start it", style="yellow")
        table.add_row(" ", Text(config.name), config.source, state, "–", Text(config.describe()))
    return table


class McpScreen(ModalScreen[None]):
    CSS_PATH = "../styles/help.tcss"
    AUTO_FOCUS = "#help"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("q", "close", show=False),
        Binding("up", "move(-1)", show=False),
        Binding("down", "move(1)", show=False),
        Binding("l", "login", "Log in"),
        Binding("o", "logout", "Log out"),
    ]

    def __init__(self, setup: Any) -> None:
        super().__init__()
        self.setup = setup
        self.selected = 0

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as scroll:
            scroll.border_title = "MCP servers  (↑/↓ choose · l log in · o log out · esc close)"
            yield Static(servers_table(self.setup, self.selected), id="servers")

    def on_mount(self) -> None:
        self.set_interval(0.5, self.redraw)  # a login's progress, a server connecting

    def redraw(self) -> None:
        self.query_one("#servers", Static).update(servers_table(self.setup, self.selected))

    def _names(self) -> list[str]:
        manager = getattr(self.setup, "manager", None)
        return list(manager.status) if manager is not None else []

    def action_move(self, step: int) -> None:
        names = self._names()
        if names:
            self.selected = (self.selected + step) % len(names)
            self.redraw()

    def _act(self, what: str) -> None:
        names = self._names()
        if not names:
            return
        manager = self.setup.manager
        name = names[self.selected]
        if manager.status[name].config.transport != "http":
            self.notify(f"{name} runs on this machine: it has no login", severity="warning")
            return
        self.run_worker(getattr(manager, what)(name), exclusive=False)
        self.set_timer(0.1, self.redraw)

    def action_login(self) -> None:
        self._act("login")

    def action_logout(self) -> None:
        self._act("logout")

    def action_close(self) -> None:
        self.dismiss(None)
