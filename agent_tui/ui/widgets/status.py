"""The status line: model (or "offline model"), permission mode, tokens and cost, activity,
the person's own `!command`s while they run, and the session's id.

Narrower than all of it, the line gives up its parts in `YIELD_STEPS`, each whole or to a
shorter form of itself (the word "session" before the id it names, the word "tokens" before
the counts), so what is left is never a label cut from what it labels. The model, the mode and
what the app is doing stay; only a line too narrow even for those is cut at its end."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

if TYPE_CHECKING:  # the event module is kept off the first frame's path
    from agent_tui.protocol.events import Usage

#: how the line gives way to a narrow terminal, first step first: each step takes one part of
#: the line to its next shorter form (or away), until the line fits; a part named twice yields
#: in two steps (the word "session" goes long before the id; the word "tokens" before the counts)
YIELD_STEPS = (
    "session",
    "searches",
    "cached",
    "tokens",
    "session",
    "tokens",
    "thinking",
    "context",
    "command",
    "cost",
    "mode",
)
#: the parts in the order they are shown
SHOWN_ORDER = (
    "model",
    "mode",
    "thinking",
    "activity",
    "command",
    "tokens",
    "cached",
    "searches",
    "cost",
    "context",
    "session",
)
#: a running `!command` is named by at most this many characters of its first line
COMMAND_CHARS = 24


def _tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def _command_name(command: str) -> str:
    lines = command.strip().splitlines() or [""]
    first = lines[0]
    if len(first) > COMMAND_CHARS or len(lines) > 1:
        return first[: COMMAND_CHARS - 1].rstrip() + "…"
    return first


class StatusLine(Static):
    model: reactive[str] = reactive("")
    mode: reactive[str] = reactive("default")
    activity: reactive[str] = reactive("ready")
    #: the person's `!command`s running now (the shortcuts controller's, beside any turn)
    commands: reactive[tuple[str, ...]] = reactive(())
    #: None until the first turn has counted something
    usage: reactive[Usage | None] = reactive(None, always_update=True)
    cost: reactive[float] = reactive(0.0)
    session: reactive[str] = reactive("")
    #: how full the context window was after the last response, in percent (None: unknown)
    context: reactive[int | None] = reactive(None)
    #: extended thinking's budget in tokens (0: off)
    thinking: reactive[int] = reactive(0)

    def render(self) -> Text:
        forms = self.parts()
        step = dict.fromkeys(forms, 0)
        width = self.size.width

        def length() -> int:
            return sum(forms[name][step[name]].cell_len for name in forms)

        for name in YIELD_STEPS:
            if length() <= width:
                break
            step[name] = min(step[name] + 1, len(forms[name]) - 1)
        text = Text(no_wrap=True, overflow="ellipsis")
        for name in SHOWN_ORDER:
            text.append_text(forms[name][step[name]])
        return text

    def parts(self) -> dict[str, list[Text]]:
        """Each part of the line in its forms, fullest first; a part that may yield ends with
        an empty form (gone)."""
        none = Text()
        forms: dict[str, list[Text]] = {
            name: [none] for name in SHOWN_ORDER if name not in ("model", "activity")
        }
        forms["model"] = [Text(f" {self.model} ", style="bold reverse")]
        if self.mode == "yolo":  # said shorter, never dropped: everything runs unasked
            forms["mode"] = [
                Text(" YOLO: everything but deny rules runs ", style="bold white on red"),
                Text(" YOLO ", style="bold white on red"),
            ]
        elif self.mode != "default":
            forms["mode"] = [Text(f" {self.mode} ", style="bold black on yellow")]
        if self.thinking:
            forms["thinking"] = [Text(f" thinking {_tokens(self.thinking)} ", "italic"), none]
        forms["activity"], forms["command"] = self._doing()
        u = self.usage
        sent = 0 if u is None else u.input_tokens + u.cache_read_input_tokens
        sent += 0 if u is None else u.cache_creation_input_tokens
        counts = f"   ↑{_tokens(sent)} ↓{_tokens(u.output_tokens if u else 0)}"
        forms["tokens"] = [Text(f"{counts} tokens"), Text(counts), none]
        if u is not None and u.cache_read_input_tokens:
            # The share of input served from the prompt cache (billed at a tenth of the price).
            forms["cached"] = [
                Text(f" · {100 * u.cache_read_input_tokens / sent:.0f}% cached"),
                none,
            ]
        if u is not None and u.web_search_requests:
            forms["searches"] = [Text(f" · {u.web_search_requests} searches"), none]
        forms["cost"] = [Text(f" · ${self.cost:.4f}"), none]
        if self.context is not None:
            style = "bold yellow" if self.context >= 80 else ""
            forms["context"] = [Text(f" · context {self.context}%", style=style), none]
        if self.session:
            forms["session"] = [
                Text(f"   session {self.session}", style="dim"),
                Text(f"   {self.session}", style="dim"),
                none,
            ]
        return forms

    def _doing(self) -> tuple[list[Text], list[Text]]:
        """What the app does (a turn's activity) and the person's running `!command`s: with no
        turn running, the commands are what it does; beside a turn, they follow its activity."""
        commands = self.commands
        if not commands:
            return [Text(f"  {self.activity}")], [Text()]
        if len(commands) == 1:
            name = _command_name(commands[0])  # a long one's "…" is the line's too
            running = f"running !{name}" + ("" if name.endswith("…") else "…")
            hint = " (esc stops it)"
        else:
            running = f"running {len(commands)} commands…"
            hint = " (esc stops them)"
        if self.activity == "ready":
            return [Text(f"  {running}")], [Text(hint), Text()]
        return [Text(f"  {self.activity}")], [Text(f" · {running}{hint}"), Text(f" · {running}")]
