"""The status line: model (or "offline model"), permission mode, tokens and cost, activity."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from agent_tui.protocol.events import Usage


def _tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


class StatusLine(Static):
    model: reactive[str] = reactive("")
    mode: reactive[str] = reactive("default")
    activity: reactive[str] = reactive("ready")
    usage: reactive[Usage] = reactive(Usage, always_update=True)
    cost: reactive[float] = reactive(0.0)
    session: reactive[str] = reactive("")

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f" {self.model} ", style="bold reverse")
        if self.mode == "yolo":
            text.append(" YOLO: everything but deny rules runs ", style="bold white on red")
        elif self.mode != "default":
            text.append(f" {self.mode} ", style="bold black on yellow")
        text.append(f"  {self.activity}")
        u = self.usage
        sent = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
        text.append(f"   ↑{_tokens(sent)} ↓{_tokens(u.output_tokens)} tokens")
        if u.web_search_requests:
            text.append(f" · {u.web_search_requests} searches")
        text.append(f" · ${self.cost:.4f}")
        if self.session:
            text.append(f"   session {self.session}", style="dim")
        return text
