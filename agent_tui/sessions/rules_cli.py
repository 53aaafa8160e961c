"""`agent-tui rules try 'RULE' [--project DIR] [--as allow|ask|deny]`: the rule simulator.

Prints, one a line on stdout, every distinct stored call (made in sessions started in DIR, the
current directory by default) whose decision the rule would change: how many times it was made,
the tool, the decision before → after, the command / path / URL, and a note for destructive or
risky commands. The summary ("`Bash(git:*)` would have allowed 41 past calls unasked, including …")
and the narrower rules the suggestion logic would have offered go to stderr.

Exit codes: 0 the simulation ran (whether or not anything would change), 1 error (a rule that
can't be parsed, a session database that can't be opened), 2 usage error.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from agent_tui.text import visible


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agent-tui rules", description="Permission rules.")
    parser.add_argument("--db", type=Path, help="session database (default: the data dir's)")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser(
        "try",
        help="the stored calls a rule would have decided differently, one a line",
        description="Re-run the permission engine over this project's stored calls with the "
        "rule added and print the calls whose decision would change.",
    )
    p.add_argument("rule", nargs="+", help="a rule, e.g. 'Bash(git:*)' (several: all at once)")
    p.add_argument(
        "--project", type=Path, metavar="DIR", help="sessions started in DIR (default: here)"
    )
    p.add_argument(
        "--as",
        dest="behavior",
        choices=("allow", "ask", "deny"),
        default="allow",
        help="the kind of rule to try (default: allow)",
    )
    return parser


def _fail(message: str) -> int:
    print(f"agent-tui rules: {message}", file=sys.stderr)
    return 1


def main(argv: list[str]) -> int:
    if argv[:1] == ["rules"]:
        argv = argv[1:]
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    from agent_tui.permissions.rules import RuleError
    from agent_tui.permissions.simulate import load_engine, parse_proposed, simulate
    from agent_tui.sessions.faults import STORE_ERRORS, describe
    from agent_tui.sessions.records import StoreUnavailable
    from agent_tui.sessions.store import SessionStore
    from agent_tui.tools.subject import tool_subject

    try:
        parse_proposed(args.rule)
    except RuleError as exc:
        return _fail(str(exc))
    project = (args.project or Path.cwd()).expanduser().resolve()
    if not project.is_dir():
        return _fail(f"--project {project} is not a directory")
    try:
        store = SessionStore(args.db) if args.db else SessionStore.open_default()
    except (StoreUnavailable, OSError) as exc:
        return _fail(str(exc))
    except Exception as exc:
        return _fail(f"cannot open the session database: {exc}")
    try:
        rows = store.runs.past_calls(project)
    except STORE_ERRORS as exc:  # a damaged database: one line, not a traceback
        return _fail(f"{store.path}: {describe(exc)}")
    finally:
        with contextlib.suppress(*STORE_ERRORS):
            store.close()
    sim = simulate(load_engine(project), args.rule, rows, args.behavior, subject=tool_subject)
    out = sys.stdout
    for change in sim.changes:
        out.write(visible(change.line()) + "\n")
    print(visible(sim.summary()) + f" (of {sim.calls} stored in {project})", file=sys.stderr)
    if sim.narrower_text():
        print(visible(sim.narrower_text()), file=sys.stderr)
    return 0
