"""Settling a transaction when its command has ended: the change set read, judged by the gate,
the person asked where it matters, what may land applied, the rest held — and the outcome said.

Who is asked, and about what:
- protected changes (the gate's), and files the person changed while the command ran
  (conflicts: theirs is never overwritten unasked) — through `ask` when someone is there;
- with `review` (`[sandbox] apply = "review"`, or the approval dialog's review key): every
  change, file by file;
- with no one to ask (headless, a hook): protected changes and conflicts are refused and held,
  everything else lands.
What the person leaves out is discarded; what no one could decide on is held
(`transaction.py`), never applied silently.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent_tui.sandbox.apply_journal import ApplyJournal
from agent_tui.sandbox.changes import Change
from agent_tui.sandbox.commit import apply_changes
from agent_tui.sandbox.gate import Unit, Verdict, judge
from agent_tui.sandbox.transaction import Transaction

#: a diff shown in a review is cut past this many characters (the whole file still lands)
DIFF_CHARS = 20_000


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """One file of a change set shown to the person."""

    #: the file (or the repository) it stands for
    title: str
    #: created, changed, deleted, made (a folder)
    action: str
    #: why it is asked about ("" in a plain review): the gate's reason, or a conflict
    why: str
    diff: str
    #: ticked when the dialog opens
    kept: bool


@dataclass(frozen=True, slots=True)
class ChangeReview:
    """A change set (or part of one) waiting for the person's choice, file by file."""

    command: str
    items: tuple[ReviewItem, ...]
    #: "gate" (protected changes or conflicts), "review" (every change), "held" (a held set)
    kind: Literal["gate", "review", "held"]
    project: str = ""


#: ask the person: the indexes of the items to apply (an empty tuple: none; None: decide later,
#: the change set stays held as it is)
ReviewFn = Callable[[ChangeReview], Awaitable[tuple[int, ...] | None]]


@dataclass
class Settled:
    """What became of a change set."""

    applied: list[str] = field(default_factory=list)
    #: checkpoint entries for undo (`FilesChanged.files`)
    entries: list[dict[str, Any]] = field(default_factory=list)
    #: rel -> why it is held (in the transaction's folder, for the person)
    held: dict[str, str] = field(default_factory=dict)
    #: what the person left out (discarded)
    refused: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    not_kept: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    held_id: str = ""

    def note(self) -> str:
        """For the model: what landed and what did not, and why."""
        parts: list[str] = []
        if self.applied:
            parts.append(f"{len(self.applied)} applied ({_names(_grouped(self.applied))})")
        if self.refused:
            parts.append(f"left out by the person: {_names(self.refused)}")
        for rel, why in list(self.held.items())[:10]:
            parts.append(f"held back: {rel} — {why}")
        if len(self.held) > 10:
            parts.append(f"and {len(self.held) - 10} more held back")
        for rel, why in self.failed[:10]:
            parts.append(f"could not be applied: {rel} ({why})")
        if self.skipped:
            parts.append(f"not carried over (fifos, sockets, devices): {_names(self.skipped)}")
        if self.not_kept:
            parts.append(f"too large to keep for undo: {_names(self.not_kept)}")
        if not parts:
            return ""
        text = "[the command's file changes: " + "; ".join(parts)
        if self.held_id:
            text += f". What is held waits for the person (agent-tui changes show {self.held_id})"
        return text + "]"

    def summary(self) -> str:
        """One line for the person."""
        bits = []
        if self.applied:
            bits.append(f"{len(self.applied)} file{'s' if len(self.applied) != 1 else ''} changed")
        if self.held:
            bits.append(f"{len(self.held)} held back")
        if self.refused:
            bits.append(f"{len(self.refused)} left out")
        if self.failed:
            bits.append(f"{len(self.failed)} failed")
        return ", ".join(bits)


def _grouped(rels: list[str]) -> list[str]:
    """Paths to name, with a repository's own files counted as one entry."""
    out: list[str] = []
    git: dict[str, int] = {}
    for rel in rels:
        parts = rel.split("/")
        at = next((n for n, p in enumerate(parts) if p == ".git"), None)
        if at is None:
            out.append(rel)
        else:
            folder = "/".join(parts[: at + 1])
            git[folder] = git.get(folder, 0) + 1
    return out + [f"{folder}/ ({n} of git's files)" for folder, n in git.items()]


def _names(rels: list[str], most: int = 8) -> str:
    shown = ", ".join(rels[:most])
    return shown + (f" and {len(rels) - most} more" if len(rels) > most else "")


def _read(path: Path | None) -> bytes | None:
    if path is None:
        return None
    try:
        if path.is_symlink():
            return os.fsencode("symbolic link to " + os.readlink(path))
        if path.is_dir():
            return None
        return path.read_bytes()
    except OSError:
        return None


def describe(change: Change, lower: Path) -> str:
    """The change as a diff (or a line saying what it is), for a review."""
    from agent_tui.checkpoints.restore import file_diff

    if change.kind == "dir":
        return f"(folder {change.rel}: {change.action or 'changed'})"
    if change.kind == "delete" and change.below == "dir":
        count = sum(len(files) for _, _, files in os.walk(lower / change.rel))
        return f"(folder {change.rel} deleted, with {count:,} files)"
    old = _read(lower / change.rel) if change.below in ("file", "link") else None
    new = _read(change.upper)
    return file_diff(old, new, change.rel)


#: in a repository's state, the files whose diff is shown (the rest are listed)
_SHOWN_IN_GIT = ("config", "config.worktree", "HEAD", "commondir", "gitdir")


def describe_unit(unit: Unit, lower: Path) -> str:
    """A unit for a review: a file's diff; for a repository, the diffs of what configures it
    (and of what git's command changed in its work tree) and the list of the rest (objects,
    refs, logs: data, not code); for an environment, the diffs of what runs at start-up and the
    list of the rest."""
    if not unit.repository and not unit.environment:
        text = describe(unit.changes[0], lower)
    else:
        shown: list[str] = []
        rest: list[str] = []
        for change in unit.changes:
            if _shown_in_unit(unit, change):
                shown.append(describe(change, lower))
            elif change.kind != "dir":
                rest.append(f"{change.action}: {change.rel}")
        text = "\n".join(shown + ([f"and {len(rest)} more:"] if rest else []) + rest)
    if len(text) > DIFF_CHARS:
        text = text[:DIFF_CHARS] + f"\n[… {len(text) - DIFF_CHARS:,} more characters …]"
    return text


#: an environment's program folders: what is in them is shown whole in a review
_PROGRAM_FOLDERS = frozenset({"bin", "Scripts", ".bin"})


def _shown_in_unit(unit: Unit, change: Change) -> bool:
    if unit.environment:
        *_, folder, name = ["", *change.rel.split("/")]
        shown = name == "pyvenv.cfg" or name.endswith(".pth") or folder in _PROGRAM_FOLDERS
        return change.kind != "dir" and shown
    if not change.rel.startswith(unit.repository + "/"):
        return change.kind != "dir"  # the work tree's: the person's files
    inner = change.rel[len(unit.repository) + 1 :]
    return inner in _SHOWN_IN_GIT or inner.startswith(("hooks/", "info/"))


def review_of(
    txn: Transaction, verdict: Verdict, *, everything: bool, kind: Literal["gate", "review", "held"]
) -> tuple[ChangeReview, list[Unit]]:
    """The review to ask about, and the units its items stand for (in order)."""
    # a held set's protected files were never looked at: they start unticked
    asked: list[tuple[Unit, bool]] = [(u, kind != "held") for u in verdict.protected]
    asked += [(u, False) for u in verdict.conflicts]
    if everything:
        asked = [(Unit((c,), "", c.rel), True) for c in verdict.free] + asked
    items = tuple(
        ReviewItem(
            unit.title,
            unit.changes[0].action if not (unit.repository or unit.environment) else "",
            unit.why,
            describe_unit(unit, txn.lower),
            kept,
        )
        for unit, kept in asked
    )
    return ChangeReview(txn.command, items, kind, str(txn.lower)), [u for u, _ in asked]


def _without_empty_shells(to_apply: list[Change], changes: Verdict) -> list[Change]:
    """Folders the command made only to hold what is not applied stay unmade: `mkdir -p
    sub/hooks` for a held `sub/hooks/pre-commit` doesn't leave an empty `sub/hooks`."""
    everything = [*changes.free, *(c for u in changes.protected for c in u.changes)]
    everything += [c for u in changes.conflicts for c in u.changes]
    applying = {c.rel for c in to_apply}
    kept: list[Change] = []
    for change in to_apply:
        if change.kind == "dir" and change.created:
            inside = [c.rel for c in everything if c.rel.startswith(change.rel + "/")]
            if inside and not any(r in applying for r in inside if not _is_dir(r, everything)):
                continue
        kept.append(change)
    return kept


def _is_dir(rel: str, changes: list[Change]) -> bool:
    return any(c.rel == rel and c.kind == "dir" for c in changes)


async def settle(
    txn: Transaction,
    *,
    ask: ReviewFn | None,
    review: bool = False,
    held: bool = False,
    blobs: Any = None,
    scratch: Any = None,
    by: str = "Bash",
    home_root: bool = False,
    nobody: str = "no one is there to approve it",
    visible: Callable[[Path], bool] | None = None,
    hook_folders: tuple[str, ...] = (),
) -> Settled:
    """Settle `txn` (its command's processes are gone). `ask`: the person, or None."""
    import asyncio

    verdict = await asyncio.to_thread(
        lambda: judge(
            txn.changes(),
            txn.lower,
            txn.upper,
            home_root=home_root,
            visible=visible,
            hook_folders=hook_folders,
        )
    )
    out = Settled(skipped=[c.rel for c, _ in verdict.skipped])
    to_apply = list(verdict.free)
    asking = bool(verdict.protected or verdict.conflicts or (review and verdict.free))
    if asking and ask is not None:
        kind: Literal["gate", "review", "held"] = "held" if held else "review" if review else "gate"
        request, changes = await asyncio.to_thread(
            review_of, txn, verdict, everything=review, kind=kind
        )
        answer = await ask(request)
        if answer is None:  # later: the change set stays held as it is
            return Settled(held={"(all)": "left for later"}, held_id=txn.id)
        chosen = set(answer)
        if review:
            to_apply = []
        for n, unit in enumerate(changes):
            if n in chosen:
                to_apply.extend(unit.changes)
            else:
                out.refused.extend(c.rel for c in unit.changes)
    elif asking:
        for unit in verdict.protected:
            out.held[unit.title] = f"{unit.why}; refused: {nobody}"
        for unit in verdict.conflicts:
            out.held[unit.title] = "changed by someone else while the command ran; theirs is kept"
        if review:
            for change in verdict.free:
                out.held[change.rel] = f"waits for review: {nobody}"
            to_apply = []
    to_apply = _without_empty_shells(to_apply, changes=verdict)
    to_apply.sort(key=lambda c: c.rel.split("/"))
    if scratch is None:
        from agent_tui.checkpoints.scratch import Scratch
        from agent_tui.paths import data_dir

        scratch = Scratch(data_dir())
    journal = ApplyJournal(txn.folder, txn.upper, txn.lower)
    applied = await asyncio.to_thread(
        apply_changes,
        txn.lower,
        to_apply,
        blobs=blobs,
        by=by,
        scratch=scratch,
        journal=journal,
        source=txn.upper,
    )
    out.applied, out.entries = applied.applied, applied.entries
    out.failed, out.not_kept = applied.failed, applied.not_kept
    done = out.applied + out.refused + [c.rel for c in verdict.unchanged] + out.skipped
    await asyncio.to_thread(txn.forget, done)
    for rel, why in out.failed:
        out.held[rel] = f"could not be applied: {why}"
    if out.held and not txn.empty():
        out.held_id = txn.id
        txn.hold("; ".join(f"{r}: {w}" for r, w in list(out.held.items())[:3]))
    else:
        await asyncio.to_thread(txn.discard)
    return out
