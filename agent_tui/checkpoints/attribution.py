"""Which changes are the agent's: each call's record is what changed while that call ran, less
what the app itself wrote meanwhile (the `.gitignore` line for the local settings, the settings
file an "always" answer writes); a turn's records joined per file, keeping every break where
someone else changed a file between two of the agent's calls (a restore treats it as a
conflict). Pure: no disk, no git."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.protocol.events import ChangeRecorded, ChangeStarted, FilesChanged, FilesRestored

#: what a restore says about a change that could not be told apart from the person's
UNRECORDED = "the app stopped while {tool} ran ({subject}); what it changed was never recorded"


@dataclass(frozen=True, slots=True)
class OwnWrite:
    """The app wrote `path`: its blob id before and after (None: absent)."""

    path: Path
    before: str | None
    after: str | None


def entry(
    path: Path,
    before: str | None,
    after: str | None,
    before_mode: str,
    after_mode: str,
    by: str,
) -> dict[str, Any]:
    return {
        "path": str(path),
        "before": before,
        "after": after,
        "before_mode": before_mode if before else "",
        "after_mode": after_mode if after else "",
        "by": by,
    }


def without_own_writes(files: list[dict[str, Any]], own: list[OwnWrite]) -> list[dict[str, Any]]:
    """`files` (one call's changes) less what the app wrote to them while the call ran: a write
    of the app's at either end of a change is peeled off; a change that was only the app's goes."""
    if not own:
        return files
    kept: list[dict[str, Any]] = []
    for f in files:
        before, after = f["before"], f["after"]
        for write in (w for w in own if str(w.path) == f["path"]):
            if write.before == before:  # the app wrote first, then the call changed it
                before = write.after
            elif write.after == after:  # the call changed it, then the app wrote
                after = write.before
        if before == after:
            continue
        changed = {**f, "before": before, "after": after}
        if before != f["before"]:
            changed["before_mode"] = "100644" if before else ""
        if after != f["after"]:
            changed["after_mode"] = "100644" if after else ""
        kept.append(changed)
    return kept


def join(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A turn's per-call changes, in the order recorded, as one entry per file — several when
    someone else changed the file between two of the agent's calls (the break is kept for the
    restore to see). A record the same as the last one (two calls running at once both saw
    it) counts once. Sorted by path."""
    joined: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        chain = joined.setdefault(record["path"], [])
        last = chain[-1] if chain else None
        if last is not None and (last["before"], last["after"]) == (
            record["before"],
            record["after"],
        ):
            continue
        if last is not None and last["after"] == record["before"]:
            tools = last["by"].split(", ")
            by = last["by"] if record["by"] in tools else f"{last['by']}, {record['by']}"
            chain[-1] = {
                **last,
                "after": record["after"],
                "after_mode": record["after_mode"],
                "by": by,
            }
            continue
        chain.append(dict(record))
    return [e for path in sorted(joined) for e in joined[path]]


def rebuild(
    events: list[ChangeStarted | ChangeRecorded | FilesChanged | FilesRestored],
) -> list[FilesChanged | FilesRestored]:
    """A session's checkpoints and restores as stored, with a `FilesChanged` made up for each
    turn that never reached its end (the app was killed): from its calls' records, and the calls
    that started but were never recorded listed as `interrupted`."""
    out: list[FilesChanged | FilesRestored] = []
    ended = {e.checkpoint for e in events if isinstance(e, FilesChanged)}
    open_turns: dict[int, tuple[list[ChangeStarted], dict[str, ChangeRecorded], int]] = {}
    for event in events:
        if isinstance(event, ChangeStarted) and event.checkpoint not in ended:
            turn = open_turns.setdefault(event.checkpoint, ([], {}, len(out)))
            turn[0].append(event)
        elif isinstance(event, ChangeRecorded) and event.checkpoint in open_turns:
            open_turns[event.checkpoint][1][event.tool_use_id] = event
        elif isinstance(event, FilesChanged | FilesRestored):
            out.append(event)
    # a made-up checkpoint goes where its turn began, before any later restore
    for checkpoint, (started, recorded, at) in sorted(open_turns.items(), reverse=True):
        made = unfinished_turn(checkpoint, started, recorded)
        if made is not None:
            out.insert(at, made)
    return out


def unfinished_turn(
    checkpoint: int, started: list[ChangeStarted], recorded: dict[str, ChangeRecorded]
) -> FilesChanged | None:
    records: list[dict[str, Any]] = []
    interrupted: list[dict[str, Any]] = []
    unrestorable: list[str] = []
    trees: list[str] = []
    for call in started:
        done = recorded.get(call.tool_use_id)
        trees += [t for t in (call.tree, done.tree if done else "") if t]
        if done is not None and (call.path or call.tree or call.exact):
            records.extend(done.files)
        elif call.exact:
            continue  # killed before its change set was applied: nothing reached the project
        elif not call.path and not call.tree:
            unrestorable.append(call.subject)
        else:
            interrupted.append(
                {
                    "tool": call.tool,
                    "subject": call.subject,
                    "path": call.path,
                    "before": call.before,
                    "before_mode": call.before_mode,
                    "tree": call.tree,
                }
            )
    if not records and not interrupted and not unrestorable:
        return None
    first = started[0]
    return FilesChanged(
        checkpoint,
        first.message_index,
        first.prompt,
        join(records),
        trees,
        list(dict.fromkeys(unrestorable)),
        interrupted,
    )
