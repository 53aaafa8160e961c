"""`agent-tui sessions …`: list, show, search, export and delete recorded sessions.

`main(argv)` takes the arguments after `sessions` and returns the exit code: 0 ok, 1 error (an
unknown or ambiguous id, an unwritable file, a database that is damaged, from a newer agent-tui
or can't be opened: one line on stderr, never a traceback), 2 usage error (from argparse), 3
`verify` found the session's stored events changed (the first row that no longer matches is named
on stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from agent_tui.sessions.export import export_jsonl, export_markdown
from agent_tui.sessions.faults import STORE_ERRORS, describe
from agent_tui.sessions.records import (
    AmbiguousSessionId,
    SessionInfo,
    SessionNotFound,
    StoreUnavailable,
)
from agent_tui.sessions.review import export_review, export_review_html
from agent_tui.sessions.session_lock import SessionInUse, holding
from agent_tui.sessions.store import SessionStore
from agent_tui.text import one_line


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agent-tui sessions", description="Recorded sessions.")
    parser.add_argument("--db", type=Path, help="session database (default: the data dir's)")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("list", help="sessions, most recently active first")
    p.add_argument("--limit", type=int, default=20, metavar="N", help="at most N (0: all)")
    p.add_argument("--offset", type=int, default=0, metavar="N", help=argparse.SUPPRESS)
    p.add_argument("--cwd", metavar="DIR", help="only sessions started in DIR")
    p.add_argument("--json", action="store_true", help="one JSON array of session objects")
    p.add_argument("--hide-empty", action="store_true", help="leave out sessions without an answer")
    p.add_argument(
        "--review",
        choices=("unreviewed", "denied"),
        help="only sessions where a tool call ran without your review (allowed by a rule, the "
        "mode or --approve-asks), or where one was denied",
    )
    p.add_argument(
        "--rule",
        metavar="RULE",
        help='only sessions where this rule decided a tool call, e.g. --rule "Bash(git push:*)"',
    )
    p.add_argument(
        "--hide-failed",
        action="store_true",
        help="leave out sessions whose last turn failed or was cancelled",
    )
    p.add_argument("--no-header", action="store_true", help="rows only, no header line")

    p = sub.add_parser("show", help="a session's details and transcript")
    p.add_argument("id", help="a session id or a unique prefix of one")
    p.add_argument("--json", action="store_true", help="the session object only, as JSON")

    p = sub.add_parser("search", help="full-text search of prompts, answers, commands, output")
    p.add_argument("text", nargs="+")
    p.add_argument("--limit", type=int, default=20, metavar="N", help="at most N (0: all)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser(
        "export",
        help="a transcript (md), the API messages (jsonl), or a review report (review: Markdown, "
        "review-html: one HTML page) with every call's decision and the hash chain",
    )
    p.add_argument("id")
    p.add_argument("--format", choices=("md", "jsonl", "review", "review-html"), default="md")
    p.add_argument("-o", "--output", type=Path, metavar="FILE", help="write to FILE, not stdout")

    p = sub.add_parser(
        "verify", help="recompute the hash chain over a session's stored events (exit 3: broken)"
    )
    p.add_argument("id")
    p.add_argument(
        "--expect", metavar="HASH", help="also require this head hash (from a review report)"
    )

    p = sub.add_parser(
        "calls",
        help="tool calls that ran without your review, or were denied, and what decided each",
    )
    p.add_argument(
        "--review",
        choices=("unreviewed", "denied"),
        required=True,
        help="unreviewed: allowed by a rule, the mode or --approve-asks and able to change "
        "something or reach the network; denied: refused by a rule or by you",
    )
    p.add_argument("--session", metavar="ID", help="only this session's calls")
    p.add_argument("--cwd", metavar="DIR", help="only calls in sessions started in DIR")
    p.add_argument("--limit", type=int, default=0, metavar="N", help="at most N (0: all)")
    p.add_argument("--json", action="store_true", help="one JSON object a line")

    p = sub.add_parser("delete", help="delete a session")
    p.add_argument("id")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    return parser


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def _row(info: SessionInfo) -> str:
    title = info.title or "(untitled)"
    return (
        f"{info.id}  {_when(info.updated_at)}  {info.message_count:>5}  "
        f"${info.cost_usd:>7.4f}  {title}  [{info.cwd}]"
    )


HEADER = f"{'ID':<13}  {'UPDATED':<16}  {'MSGS':>5}  {'COST':>8}  TITLE  [DIRECTORY]"


def _fail(message: str) -> int:
    print(f"agent-tui sessions: {message}", file=sys.stderr)
    return 1


def main(argv: list[str]) -> int:
    if argv[:1] == ["sessions"]:  # tolerate being handed the full sub-command line
        argv = argv[1:]
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse: --help exits 0, errors exit 2
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    try:
        store = SessionStore(args.db) if args.db else SessionStore.open_default()
    except StoreUnavailable as exc:  # says which file
        return _fail(str(exc))
    except STORE_ERRORS as exc:
        return _fail(f"cannot open the session database {args.db}: {describe(exc)}")
    try:
        return _run(store, args)
    except AmbiguousSessionId as exc:
        return _fail(str(exc))
    except SessionNotFound as exc:
        return _fail(str(exc.args[0]) if exc.args else "no such session")
    except BrokenPipeError:  # `agent-tui sessions list | head`: the reader left
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # the file written by `export -o`
        return _fail(str(exc))
    except STORE_ERRORS as exc:  # a damaged database, a full disk
        return _fail(f"{store.path}: {describe(exc)}")
    except Exception as exc:  # a bug: still one line, not a traceback
        return _fail(f"internal error: {type(exc).__name__}: {exc}")
    finally:
        with contextlib.suppress(*STORE_ERRORS):
            store.close()


#: sessions fetched by the first query when listing (each next query fetches twice as many): the
#: first rows print at once, and 10,000 take a handful of queries
LIST_PAGE = 200


def _list(store: SessionStore, args: argparse.Namespace, out: Any) -> int:
    """Stream the listing page by page (10,000 sessions: the first screen comes at once)."""
    limit = args.limit if args.limit > 0 else None
    offset, shown, page_size = args.offset, 0, LIST_PAGE
    review = f"rule:{args.rule}" if args.rule else args.review
    while limit is None or shown < limit:
        want = page_size if limit is None else min(page_size, limit - shown)
        page_size *= 2
        page = store.sessions.recent(
            limit=want,
            offset=offset,
            cwd=args.cwd,
            hide_empty=args.hide_empty,
            hide_failed=args.hide_failed,
            review=review,
        )
        if args.json:
            lead = "[" if shown == 0 else ","
            items = ",".join(json.dumps(s.to_dict(), ensure_ascii=False) for s in page)
            if items:
                out.write(lead + items)
        else:
            if shown == 0 and page and not args.no_header:
                out.write(HEADER + "\n")
            out.write("".join(_row(s) + "\n" for s in page))
        out.flush()
        shown += len(page)
        offset += len(page)
        if len(page) < want:
            break
    if args.json:
        out.write(("[" if shown == 0 else "") + "]\n")
    elif not shown:
        print("no sessions", file=sys.stderr)
    return 0


#: `sessions verify`: the chain doesn't hold
EXIT_BROKEN = 3


def _verify(store: SessionStore, session_id: str, expect: str | None) -> int:
    check = store.events.verify_chain(session_id)
    if not check.ok:
        print(f"agent-tui sessions: {session_id}: {check.problem}", file=sys.stderr)
        print(f"  {check.rows} events before it verify (head {check.head or '-'})", file=sys.stderr)
        return EXIT_BROKEN
    if expect is not None and expect.strip().lower() != check.head:
        print(
            f"agent-tui sessions: {session_id}: the chain holds but its head is {check.head}, "
            f"not {expect.strip()} (events were added, cut off or rewritten since)",
            file=sys.stderr,
        )
        return EXIT_BROKEN
    sys.stdout.write(f"{session_id}: {check.rows} events verify; head {check.head}\n")
    return 0


def _calls(store: SessionStore, args: argparse.Namespace, out: Any) -> int:
    """One line a call, newest first: time, session, tool, subject, decision and what made it."""
    calls = store.runs.audited(
        args.review,
        cwd=args.cwd,
        session_id=store.sessions.resolve(args.session) if args.session else None,
        limit=args.limit if args.limit > 0 else None,
    )
    for call in calls:
        if args.json:
            out.write(json.dumps(call.to_dict(), ensure_ascii=False) + "\n")
            continue
        by = f"rule {call.rule} ({call.source_file})" if call.rule else call.decided_by
        out.write(
            f"{_when(call.started_at)}  {call.session_id}  {call.tool:<9}  "
            f"{one_line(call.subject, 80)}  {call.decision} by {by}\n"
        )
    if not calls:
        print(f"no {args.review} calls", file=sys.stderr)
    return 0


def _run(store: SessionStore, args: argparse.Namespace) -> int:
    out = sys.stdout
    if args.command == "list":
        return _list(store, args, out)
    if args.command == "search":
        return _search(store, args, out)
    if args.command == "calls":
        return _calls(store, args, out)
    session_id = store.sessions.resolve(args.id)
    if args.command == "show":
        return _show(store, session_id, args, out)
    if args.command == "export":
        return _export(store, session_id, args, out)
    if args.command == "verify":
        return _verify(store, session_id, args.expect)
    if args.command == "delete":
        return _delete(store, session_id, args)
    return _fail(f"unknown command {args.command!r}")


def _search(store: SessionStore, args: argparse.Namespace, out: TextIO) -> int:
    hits = store.sessions.search(" ".join(args.text), limit=args.limit)
    if args.json:
        from dataclasses import asdict

        out.write(json.dumps([asdict(h) for h in hits], ensure_ascii=False) + "\n")
        return 0
    if not hits:
        print("no matches", file=sys.stderr)
    for hit in hits:
        snippet = " ".join(hit.snippet.split())
        out.write(f"{hit.session_id}  #{hit.message_seq} {hit.kind:<12} {hit.title}\n")
        out.write(f"    {snippet}\n")
    return 0


def _show(store: SessionStore, session_id: str, args: argparse.Namespace, out: TextIO) -> int:
    info = store.sessions.get(session_id)
    assert info is not None
    if args.json:
        out.write(json.dumps(info.to_dict(), ensure_ascii=False) + "\n")
    else:
        out.write(export_markdown(store, session_id))
    return 0


def _export(store: SessionStore, session_id: str, args: argparse.Namespace, out: TextIO) -> int:
    exporters = {
        "md": export_markdown,
        "jsonl": export_jsonl,
        "review": export_review,
        "review-html": export_review_html,
    }
    text = exporters[args.format](store, session_id)
    if args.output is None:
        out.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


def _delete(store: SessionStore, session_id: str, args: argparse.Namespace) -> int:
    info = store.sessions.get(session_id)
    assert info is not None
    if not args.yes:
        if not sys.stdin.isatty():
            return _fail("refusing to delete without --yes (stdin is not a terminal)")
        answer = input(f"Delete session {session_id} ({info.title or 'untitled'})? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("not deleted", file=sys.stderr)
            return 1
    try:
        with holding(store.path, session_id):  # not from under an agent recording it
            store.sessions.delete(session_id)
    except SessionInUse as exc:
        return _fail(f"{exc}; not deleted")
    print(f"deleted {session_id}", file=sys.stderr)
    return 0
