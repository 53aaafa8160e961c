"""Change sets that wait for the person: a command stopped before it ended, an app killed while one
ran, protected changes refused for want of someone to ask. Listed, shown and applied file by file
(through the same gate: protected files and files changed since are never taken unasked), or
discarded — from the TUI (`/changes`, and the offer at start) and from the command line
(`agent-tui changes`). Nothing here is applied without being asked for.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from agent_tui.sandbox.settle import ReviewFn, Settled, settle
from agent_tui.sandbox.transaction import HeldSet, Transaction, held_sets


def started_ns(held: HeldSet) -> int:
    try:
        manifest = json.loads((held.folder / "manifest.json").read_text("utf-8"))
        return int(manifest.get("started_ns") or 0)
    except (OSError, ValueError, TypeError):
        return 0


def transaction(held: HeldSet) -> Transaction:
    """The held set as a transaction again; what changed in the project since its command
    started counts as a conflict (someone else's)."""
    return held.transaction(started_ns(held) or time.time_ns())


def when(held: HeldSet) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(held.created)) if held.created else "?"


def offer(base: Path, project: Path, *, tui: bool = True) -> str | None:
    """The line a start says when change sets of this project wait (None: none wait)."""
    found = held_sets(base, project)
    if not found:
        return None
    first = found[0]
    if len(found) == 1:
        what = "1 command's file changes wait"
    else:
        what = f"{len(found)} commands' file changes wait"
    how = "/changes reviews them" if tui else "`agent-tui changes list` shows them"
    return f"{what} for you, not applied ({first.reason}; `{short(first.command)}`): {how}."


def short(command: str, most: int = 60) -> str:
    line = " ".join(command.split())
    return line if len(line) <= most else line[: most - 1] + "…"


async def review(held: HeldSet, ask: ReviewFn, *, blobs: Any = None) -> Settled:
    """Show a held set file by file and apply what the person ticks (the rest is dropped);
    `ask` answering None leaves it held as it is."""
    return await settle(transaction(held), ask=ask, review=True, held=True, blobs=blobs)


def find(base: Path, ident: str, project: Path | None = None) -> HeldSet | None:
    """A held set by its id, or by a unique start of it."""
    found = [h for h in held_sets(base, project) if h.id.startswith(ident)]
    return found[0] if len(found) == 1 else None
