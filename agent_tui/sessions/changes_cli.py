"""`agent-tui changes`: the change sets that wait for the person (`held.py`).

    agent-tui changes list [--all]             this project's (or every project's) held sets
    agent-tui changes show ID                  each file: what it is, why it waits, its diff
    agent-tui changes apply ID [PATH ...] [--protected]
                                               apply the held set: every file that needs no one
                                               (protected files and files changed since stay
                                               out unless named, or --protected); the rest is
                                               dropped
    agent-tui changes discard ID               drop it

Exit codes: 0 done, 1 no such held set (or a file failed), 2 usage.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from agent_tui.sandbox import held as held_mod
from agent_tui.sandbox.gate import CONFLICT_WHY
from agent_tui.sandbox.settle import ChangeReview, ReviewItem
from agent_tui.sandbox.transaction import HeldSet, changes_dir, held_sets, remove_folder


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agent-tui changes", description=__doc__.split("\n")[0])
    parser.add_argument("--project", type=Path, default=None, help="the project (default: here)")
    sub = parser.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("list", help="the held change sets")
    listing.add_argument("--all", action="store_true", help="every project's")
    show = sub.add_parser("show", help="a held change set, file by file")
    show.add_argument("id")
    apply = sub.add_parser("apply", help="apply a held change set")
    apply.add_argument("id")
    apply.add_argument("paths", nargs="*", help="also these protected or changed-since files")
    apply.add_argument("--protected", action="store_true", help="protected files too")
    discard = sub.add_parser("discard", help="drop a held change set")
    discard.add_argument("id")
    return parser


def _base(project: Path) -> Path:
    from agent_tui.paths import data_dir

    return changes_dir(data_dir(), project)


def _line(h: HeldSet) -> str:
    return f"{h.id}  {held_mod.when(h)}  {h.project}  `{held_mod.short(h.command)}` — {h.reason}"


async def _review_of(h: HeldSet) -> ChangeReview:
    """The held set's files as the TUI would show them (nothing is applied)."""
    seen: list[ChangeReview] = []

    async def look(review: ChangeReview) -> tuple[int, ...] | None:
        seen.append(review)
        return None  # leave it as it is

    await held_mod.review(h, look)
    return seen[0] if seen else ChangeReview(h.command, (), "held", str(h.project))


def _show(h: HeldSet) -> int:
    review = asyncio.run(_review_of(h))
    print(_line(h))
    for item in review.items:
        mark = "[x]" if item.kept else "[ ]"
        print(f"\n{mark} {item.title}" + (f" ({item.action})" if item.action else ""))
        if item.why:
            print(f"    waits: {item.why}")
        print(item.diff)
    return 0


def _apply(h: HeldSet, paths: list[str], protected: bool) -> int:
    named = [p.rstrip("/") for p in paths]

    def wanted(item: ReviewItem) -> bool:
        if any(item.title == p or item.title.startswith(p + "/") for p in named):
            return True
        if item.why == CONFLICT_WHY:
            return False  # changed in the project since: only when named
        return protected if item.why else True

    async def choose(review: ChangeReview) -> tuple[int, ...] | None:
        return tuple(n for n, item in enumerate(review.items) if wanted(item))

    from agent_tui.sessions.outside_record import outside_record

    with outside_record(h.project) as record:
        if isinstance(record, str):
            if (h.folder / "applied").exists():  # what a cut-short apply replaced is kept there
                print(f"agent-tui changes: not applied: {record}", file=sys.stderr)
                return 1
            settled = asyncio.run(held_mod.review(h, choose))
            note = f"(not recorded for undo: {record}; git can take it back)"
        else:
            settled = asyncio.run(held_mod.review(h, choose, blobs=record.blobs))
            note = "(nothing of it to record for undo)"
            if settled.entries:
                subject = f"agent-tui changes apply {h.id}"
                number = record.files_changed(subject, settled.entries)
                note = f"(recorded as checkpoint {number}: `agent-tui --continue`, then /undo)"
    if settled.applied:
        print(f"applied {len(settled.applied)}: {', '.join(settled.applied[:20])}")
    if settled.refused:
        print(f"left out (dropped): {', '.join(settled.refused[:20])}")
    for rel, why in settled.failed:
        print(f"could not apply {rel}: {why}", file=sys.stderr)
    if settled.applied:
        print(note)
    return 1 if settled.failed else 0


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    project = (args.project or Path.cwd()).resolve()
    base = _base(project)
    if args.action == "list":
        found = held_sets(base, None if args.all else project)
        for h in found:
            print(_line(h))
        if not found:
            print("no change set waits" + ("" if args.all else " for this project"))
        return 0
    found_set = held_mod.find(base, args.id, None)
    if found_set is None:
        print(f"agent-tui changes: no held change set {args.id!r} (see `list`)", file=sys.stderr)
        return 1
    h = found_set
    if args.action == "show":
        return _show(h)
    if args.action == "discard":
        remove_folder(h.folder)
        print(f"discarded {h.id}")
        return 0
    from agent_tui.checkpoints.scratch import clean_stale
    from agent_tui.paths import data_dir

    clean_stale(data_dir())  # a killed apply's temporary files, beside their targets, go first
    return _apply(h, args.paths, args.protected)
