"""The main screen: the conversation, the side panes, the prompt and the status line."""

from __future__ import annotations

from textual.screen import Screen


class MainScreen(Screen[None]):
    # Focus goes to the prompt straight away, not first to the chat (the first focusable widget,
    # Textual's default) and then over: that would style both widgets twice more.
    AUTO_FOCUS = "#prompt"
