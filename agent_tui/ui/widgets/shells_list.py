"""The background shells at the top of the tool pane: each running shell's id, age, command, the
ports forwarded to this machine, and last line of output. Focus it (Tab, or a click) and ↑/↓
choose a shell; `k` or Delete kills it.

The shells themselves are the session's `ShellRegistry` (`tools/shells.py`); this widget owns
only which one is selected, and redraws once a second while any shell runs.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Static

from agent_tui.text import clean_line, one_line
from agent_tui.tools.shell_ports import forwarded
from agent_tui.tools.shells import BackgroundShell, age


class ShellsList(Static, can_focus=True):
    BINDINGS = [
        Binding("up", "move(-1)", "Previous shell", show=False),
        Binding("down", "move(1)", "Next shell", show=False),
        Binding("k,delete", "kill", "Kill shell"),
    ]

    def __init__(self) -> None:
        super().__init__("", id="shells")
        self.registry: Any = None
        self.selected = 0
        self.display = False
        self._drawn: str | None = None

    def follow(self, registry: Any) -> None:
        """Show `registry`'s shells from now on."""
        self.registry = registry
        self.set_interval(1.0, self.refresh_list)
        self.refresh_list()

    def running(self) -> list[BackgroundShell]:
        return self.registry.running() if self.registry is not None else []

    def refresh_list(self) -> None:
        shells = self.running()
        self.display = bool(shells)
        if not shells:
            self._drawn = None
            return
        self.selected = min(self.selected, len(shells) - 1)
        now = self.registry.clock()
        text = Text(f"Background shells · {len(shells)} running", style="bold")
        for n, shell in enumerate(shells):
            mark = "▶ " if n == self.selected and self.has_focus else "  "
            row = Text("\n" + mark)
            row.append(f"{shell.id} ", style="bold")
            row.append(f"{age(now - shell.started)} ", style="dim")
            row.append(one_line(shell.command, 60))
            for port, host in forwarded(self.registry, shell.id).items():
                shown = f" · {port} → http://127.0.0.1:{host}/"
                row.append(shown if host != port else f" · http://127.0.0.1:{port}/", style="bold")
            last = clean_line(shell.output.last_line(), 80)
            if last:
                row.append(f"\n    {last}", style="dim")
            text.append_text(row)
        if self.has_focus:
            text.append("\n↑/↓ choose · k kill", style="dim")
        if text.plain != self._drawn:
            self._drawn = text.plain
            self.update(text)

    def action_move(self, step: int) -> None:
        count = len(self.running())
        if count:
            self.selected = (self.selected + step) % count
            self.refresh_list()

    def action_kill(self) -> None:
        shells = self.running()
        if not shells:
            return
        shell = shells[min(self.selected, len(shells) - 1)]
        self.notify(f"Killing {shell.id}: {one_line(shell.command, 60)}", markup=False)
        self.run_worker(self._kill(shell), group="kill-shell")

    async def _kill(self, shell: BackgroundShell) -> None:
        await self.registry.kill(shell)
        self.refresh_list()

    def on_focus(self) -> None:
        self.refresh_list()

    def on_blur(self) -> None:
        self.refresh_list()
