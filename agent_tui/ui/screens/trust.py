"""The trust dialog: a project's own files grant permissions, run programs or shape the agent;
the person decides once.

Shown at start-up when the working directory's own settings (`.agent-tui/settings*.toml`,
`.claude/settings*.json`) grant more than reading files or run hooks, its `.mcp.json` starts
servers, or its `.claude/` holds sub-agent types, commands or skills, and the person has not
answered for these exact contents. It lists each; `t` trusts the project, `i` / `n` / Esc ignore
them (its deny and ask rules apply either way). Keys typed in the first half second don't count:
they were meant for the prompt.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from agent_tui.text import visible
from agent_tui.ui.widgets.key_hints import key_bar

GUARD_S = 0.5


class TrustScreen(ModalScreen[bool]):
    """Dismisses with True (trust the project's grants) or False (ignore them)."""

    CSS_PATH = "../styles/trust.tcss"
    AUTO_FOCUS = "#grants"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "trust", show=False),
        Binding("i", "ignore", show=False),
        Binding("n", "ignore", show=False),
        Binding("escape", "ignore", show=False),
    ]

    def __init__(
        self,
        cwd: str,
        grants: tuple[str, ...],
        *,
        guard_s: float = GUARD_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.cwd = cwd
        self.grants = grants
        self.guard_s = guard_s
        self._clock = clock
        self._shown_at: float | None = None

    def compose(self) -> ComposeResult:
        plugins = any(g.startswith("plugin ") for g in self.grants)  # `plugins.manifest`
        project = not all(g.startswith("plugin ") for g in self.grants)
        with Vertical(id="dialog") as dialog:
            dialog.border_title = (
                "Trust this project and these plugins?"
                if plugins and project
                else "Trust these plugins?"
                if plugins
                else "Trust this project?"
            )
            why = (
                "This folder's own files grant the agent permissions, run programs or shape "
                "what it does. A cloned repository can ship these: trust them only if you "
                "trust the project."
                if project
                else ""
            )
            if plugins:
                why += (" " if why else "") + (
                    "A plugin's hooks and MCP servers run as you, outside the sandbox; nothing "
                    "of it is used until you trust it (and again when its files change)."
                )
            yield Static(Content(why), id="why")
            yield Static(Content(visible(self.cwd)), id="folder")
            with VerticalScroll(id="grants"):
                yield Static(Content("\n".join(f"• {visible(g)}" for g in self.grants)))
            keys = key_bar(
                ("t", "trust and apply them"), ("i", "ignore them (deny and ask rules still apply)")
            )
            yield Static(keys, id="keys")

    def on_screen_resume(self) -> None:
        self._shown_at = self._clock()

    def _armed(self) -> bool:
        return self._shown_at is not None and self._clock() - self._shown_at >= self.guard_s

    def action_trust(self) -> None:
        if self._armed():
            self.dismiss(True)

    def action_ignore(self) -> None:
        if self._armed():
            self.dismiss(False)
