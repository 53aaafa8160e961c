"""The rubber-stamp guard: approvals given too fast to have been read slow the next dialog down.

Each answer's time (dialog shown → key) is measured by the dialog (`ApprovalAnswer.took_s`) and
reported here. After `streak` approvals in a row each faster than `fast_s`, or one fast approval
of a destructive call, the next dialog pauses its keys for `pause_s` (it shows "keys active in
0.8 s") and marks what differs from the last call approved. Textual-free: the queue owns one
guard and hands each dialog its `Pause`.

User settings (`[ui]` in the user's own settings.toml; a project can't change them):
`approval_pause = false` turns the guard off; `approval_fast_s`, `approval_streak` and
`approval_pause_s` tune it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from agent_tui.permissions.types import ApprovalAnswer, ApprovalRequest

_TOKEN = re.compile(r"\s+|[^\s]+")


@dataclass(frozen=True, slots=True)
class GuardSettings:
    """How the guard is tuned (`[ui]` in the user's settings): what counts as fast, how many in a
    row, how long a pause."""

    enabled: bool = True
    #: an approval faster than this was not read
    fast_s: float = 1.0
    #: this many fast approvals in a row pause the next dialog
    streak: int = 3
    #: how long the next dialog's keys are paused
    pause_s: float = 1.5

    @classmethod
    def from_settings(cls, table: dict[str, Any] | None) -> GuardSettings:
        """From the `[ui]` table; a value of the wrong type or range keeps the default."""
        t = table if isinstance(table, dict) else {}
        d = cls()

        def num(key: str, default: float, low: float) -> float:
            v = t.get(key)
            if isinstance(v, int | float) and not isinstance(v, bool) and v >= low:
                return float(v)
            return default

        enabled = t.get("approval_pause", True)
        return cls(
            enabled=enabled if isinstance(enabled, bool) else True,
            fast_s=num("approval_fast_s", d.fast_s, 0.0),
            streak=max(1, int(num("approval_streak", d.streak, 1))),
            pause_s=num("approval_pause_s", d.pause_s, 0.0),
        )


@dataclass(frozen=True, slots=True)
class Pause:
    """The pause a dialog makes before its keys work: how long, why, and what differs from the last
    call approved."""

    seconds: float
    #: why, for the person: "you approved 3 calls in a row, each in under a second"
    why: str
    #: the subject in pieces, True where it differs from the last approved call's
    differs: tuple[tuple[str, bool], ...] = ()
    #: the last approved call, as "Tool subject"
    previous: str = ""


def destructive(request: ApprovalRequest) -> bool:
    d = request.decision
    return "destructive" in d.kinds or any(w in d.risk for w in ("deletes files", "destroys data"))


def differences(before: str, after: str) -> tuple[tuple[str, bool], ...]:
    """`after` in pieces (words and the blanks between), marked where it isn't in `before`."""
    old, new = _TOKEN.findall(before), _TOKEN.findall(after)
    out: list[tuple[str, bool]] = []

    def put(text: str, changed: bool) -> None:
        if out and out[-1][1] == changed:
            out[-1] = (out[-1][0] + text, changed)
        elif text:
            out.append((text, changed))

    for op, _, _, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        text = "".join(new[j1:j2])
        if op == "equal":
            put(text, False)
            continue
        core = text.strip()  # the blanks around a changed run aren't part of the change
        lead = text[: len(text) - len(text.lstrip())]
        put(lead, False)
        put(core, True)
        put(text[len(lead) + len(core) :], False)
    # a blank between two changed runs reads as part of one change
    merged: list[tuple[str, bool]] = []
    for i, (text, changed) in enumerate(out):
        inner = 0 < i < len(out) - 1 and text.isspace() and out[i - 1][1] and out[i + 1][1]
        changed = changed or inner
        if merged and merged[-1][1] == changed:
            merged[-1] = (merged[-1][0] + text, changed)
        else:
            merged.append((text, changed))
    out = merged
    return tuple(out)


class StampGuard:
    def __init__(self, settings: GuardSettings | None = None) -> None:
        self.settings = settings or GuardSettings()
        #: fast approvals in a row, and whether the last one was of a destructive call
        self.fast_streak = 0
        self._fast_destructive = False
        self._last: ApprovalRequest | None = None

    def before(self, request: ApprovalRequest) -> Pause | None:
        """The pause the next dialog should make, or None."""
        s = self.settings
        if not s.enabled or s.pause_s <= 0:
            return None
        if self._fast_destructive:
            why = "you approved a destructive call in under a second"
        elif self.fast_streak >= s.streak:
            why = f"you approved {self.fast_streak} calls in a row, each in under {_secs(s.fast_s)}"
        else:
            return None
        last = self._last
        if last is None:
            return Pause(s.pause_s, why)
        previous = f"{last.tool} {last.subject}"
        if last.tool != request.tool:
            return Pause(s.pause_s, why, ((request.subject, True),), previous)
        return Pause(s.pause_s, why, differences(last.subject, request.subject), previous)

    def after(self, request: ApprovalRequest, answer: ApprovalAnswer) -> None:
        """Count one answer: a fast approval extends the streak; anything else ends it."""
        approved = answer.choice != "deny"
        fast = answer.took_s is not None and answer.took_s < self.settings.fast_s
        if approved:
            self._last = request
        if approved and fast:
            self.fast_streak += 1
            self._fast_destructive = destructive(request)
        else:
            self.fast_streak = 0
            self._fast_destructive = False


def _secs(s: float) -> str:
    return "a second" if s == 1 else f"{s:g} s"


def load_settings() -> GuardSettings:
    """The guard's settings from the user's own settings file (`[ui]`)."""
    from agent_tui.runtime import user_setting

    keys = ("approval_pause", "approval_fast_s", "approval_streak", "approval_pause_s")
    return GuardSettings.from_settings(
        {k: v for k in keys if (v := user_setting("ui", k)) is not None}
    )
