"""The status line: model (or "offline model"), permission mode, tokens and cost, activity."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

if TYPE_CHECKING:  # the event module is kept off the first frame's path
    from agent_tui.protocol.events import Usage


def _tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


class StatusLine(Static):
    model: reactive[str] = reactive("")
    mode: reactive[str] = reactive("default")
    activity: reactive[str] = reactive("ready")
    #: None until the first turn has counted something
    usage: reactive[Usage | None] = reactive(None, always_update=True)
    cost: reactive[float] = reactive(0.0)
    session: reactive[str] = reactive("")
    #: how full the context window was after the last response, in percent (None: unknown)
    context: reactive[int | None] = reactive(None)
    #: extended thinking's budget in tokens (0: off)
    thinking: reactive[int] = reactive(0)

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f" {self.model} ", style="bold reverse")
        if self.mode == "yolo":
            text.append(" YOLO: everything but deny rules runs ", style="bold white on red")
        elif self.mode != "default":
            text.append(f" {self.mode} ", style="bold black on yellow")
        if self.thinking:
            text.append(f" thinking {_tokens(self.thinking)} ", style="italic")
        text.append(f"  {self.activity}")
        u = self.usage
        sent = 0 if u is None else u.input_tokens + u.cache_read_input_tokens
        sent += 0 if u is None else u.cache_creation_input_tokens
        text.append(f"   ↑{_tokens(sent)} ↓{_tokens(u.output_tokens if u else 0)} tokens")
        if u is not None and u.cache_read_input_tokens:
            # The share of input served from the prompt cache (billed at a tenth of the price).
            text.append(f" · {100 * u.cache_read_input_tokens / sent:.0f}% cached")
        if u is not None and u.web_search_requests:
            text.append(f" · {u.web_search_requests} searches")
        text.append(f" · ${self.cost:.4f}")
        if self.context is not None:
            style = "bold yellow" if self.context >= 80 else ""
            text.append(f" · context {self.context}%", style=style)
        if self.session:
            text.append(f"   session {self.session}", style="dim")
        return text
