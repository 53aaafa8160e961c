"""The MCP servers view (`/mcp`, the palette's "MCP: servers"): each configured server, where it
came from, whether it is connected, failed (and why) or waiting for the project to be trusted,
and how many tools it gave."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

STATE_STYLES = {"connected": "green", "failed": "red", "starting": "yellow", "stopped": "dim"}


def servers_table(setup: Any) -> Table | Text:
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
    for column in ("server", "from", "state", "tools", "runs"):
        table.add_column(column, style="bold" if column == "server" else None)
    for status in rows:
        state = Text(status.state, style=STATE_STYLES.get(status.state, ""))
        if status.error:
            state.append(f": {status.error}")
        config = status.config
        tools = str(status.tools) if status.state == "connected" else "–"
        table.add_row(Text(config.name), config.source, state, tools, Text(config.describe()))
    for config in pending:
        state = Text("waiting: trust the project to start it", style="yellow")
        table.add_row(Text(config.name), config.source, state, "–", Text(config.describe()))
    return table


class McpScreen(ModalScreen[None]):
    CSS_PATH = "../styles/help.tcss"
    AUTO_FOCUS = "#help"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("q", "close", show=False),
    ]

    def __init__(self, setup: Any) -> None:
        super().__init__()
        self.setup = setup

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as scroll:
            scroll.border_title = "MCP servers"
            yield Static(servers_table(self.setup), id="servers")

    def action_close(self) -> None:
        self.dismiss(None)
