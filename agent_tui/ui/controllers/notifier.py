"""Getting the person's attention when the app needs them: an approval dialog opens (exactly one
alert per dialog), or a long turn ends. A terminal bell — tmux and most terminals turn it into an
alert — and, where the terminal is known to show them, a desktop notification: OSC 9 (iTerm2,
WezTerm, Ghostty, Windows Terminal) or OSC 777 (VTE terminals such as GNOME Terminal, foot,
urxvt). Inside tmux or screen only the bell is sent (they would swallow or mangle the OSC).

`[ui] notify = false` in the user's settings turns it all off; `[ui] notify_after_s` (default
30) is how long a turn must have run for its end to be announced."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

#: a turn at least this long announces its end (the person has probably looked away)
LONG_TURN_S = 30.0

_OSC9 = ("iTerm.app", "WezTerm", "ghostty")


def notification_style(env: Mapping[str, str]) -> str | None:
    """ "osc9", "osc777" or None (bell only) for the terminal `env` describes."""
    if env.get("TMUX") or env.get("STY") or env.get("TERM", "").startswith(("screen", "tmux")):
        return None
    if env.get("TERM_PROGRAM") in _OSC9 or env.get("WT_SESSION"):
        return "osc9"
    if env.get("VTE_VERSION") or env.get("TERM", "").startswith(("foot", "rxvt-unicode")):
        return "osc777"
    return None


def _clean(text: str) -> str:
    """Text safe inside an OSC string: no control characters, no `;` (OSC 777's separator)."""
    return "".join(c if c.isprintable() and c != ";" else " " for c in text)[:200]


class Notifier:
    def __init__(
        self,
        write: Callable[[str], None],
        *,
        enabled: bool = True,
        long_turn_s: float = LONG_TURN_S,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.write = write
        self.enabled = enabled
        self.long_turn_s = long_turn_s
        self.style = notification_style(os.environ if env is None else env)
        #: every alert sent (title, body), for the tests and the curious
        self.sent: list[tuple[str, str]] = []

    def alert(self, title: str, body: str) -> None:
        if not self.enabled:
            return
        self.sent.append((title, body))
        out = "\a"
        if self.style == "osc9":
            out += f"\x1b]9;{_clean(f'{title}: {body}')}\x1b\\"
        elif self.style == "osc777":
            out += f"\x1b]777;notify;{_clean(title)};{_clean(body)}\x1b\\"
        self.write(out)

    def approval(self, tool: str, subject: str) -> None:
        """An approval dialog opened (called once per dialog)."""
        self.alert("agent-tui: approval needed", f"{tool}: {' '.join(subject.split())[:120]}")

    def turn_ended(self, seconds: float) -> None:
        """A turn ended; announced only when it ran long enough for the person to look away."""
        if seconds >= self.long_turn_s:
            self.alert("agent-tui", f"the turn ended after {seconds:.0f} s")


def load_notifier(write: Callable[[str], None]) -> Notifier:
    """A notifier with the user's `[ui] notify` / `notify_after_s` settings."""
    from agent_tui.runtime import user_setting

    enabled = user_setting("ui", "notify")
    after = user_setting("ui", "notify_after_s")
    return Notifier(
        write,
        enabled=enabled if isinstance(enabled, bool) else True,
        long_turn_s=float(after) if isinstance(after, int | float) else LONG_TURN_S,
    )
