"""The `agent-tui` command line. Exit codes: 0 ok, 1 error, 2 usage error.

Nothing heavy is imported here: the TUI path imports Textual, the headless path the agent core,
and neither imports the anthropic SDK before a request is made.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui import __version__

if TYPE_CHECKING:
    from agent_tui.runtime import Options
    from agent_tui.worktree import Worktree

EPILOG = """\
examples:
  agent-tui                          open the app (offline model when no API key is set)
  agent-tui "fix the failing test"   open the app with that prompt sent
  agent-tui -p "summarise README.md" one headless turn, print the answer
  git diff | agent-tui -p "review"   piped input joins the prompt
  agent-tui -p "hi" --output-format stream-json
  agent-tui --continue               resume the latest session in this directory
  agent-tui sessions list            past sessions (also: show, search, export, verify, delete)
  agent-tui rules try 'Bash(git:*)'  the stored calls that rule would have decided differently
  agent-tui changes list             sandboxed commands' file changes that wait for you
  agent-tui plugin add DIR           a Claude Code plugin (also: list, remove)
  agent-tui acp                      the Agent Client Protocol on stdio (Zed, Toad)

environment:
  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL   as the Anthropic SDK reads them
  AGENT_TUI_HOME=DIR                      keep all config and data under DIR
"""


def _rule(text: str) -> str:
    """argparse type for --allow/--deny: a rule that can't be parsed is a usage error."""
    from agent_tui.permissions.rules import RuleError, parse_rule

    try:
        parse_rule(text)
    except RuleError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _dollars(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an amount of US dollars") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("the spending cap must be more than 0")
    return value


def _budget(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of tokens: {text!r}") from None
    if value < 1024:
        raise argparse.ArgumentTypeError("the thinking budget is at least 1024 tokens")
    return value


def home_problem() -> str | None:
    """Why the config/data directory can't be used (a path under a file, read-only), or None."""
    value = os.environ.get("AGENT_TUI_HOME")
    if not value:
        return None
    home = Path(value).expanduser()
    try:
        home.mkdir(parents=True, exist_ok=True)
        probe = home / f".agent-tui-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        return f"cannot use AGENT_TUI_HOME={value}: {e.strerror or e}"
    return None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-tui",
        description="Work with a Claude model that can act; watch every step, approve risky ones.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for add in (_prompt_flags, _model_flags, _session_flags, _permission_flags, _turn_flags):
        add(parser)
    _project_flags(parser)
    from agent_tui.claude_flags import add_claude_flags

    add_claude_flags(parser)
    parser.add_argument("--version", action="version", version=f"agent-tui {__version__}")
    return parser


def _prompt_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-p",
        "--print",
        dest="prompt",
        metavar="PROMPT",
        nargs="?",
        const="",
        help="run one headless turn and print the answer; piped input joins the prompt "
        "(git diff | agent-tui -p 'review this')",
    )
    parser.add_argument(
        "initial",
        nargs="?",
        metavar="PROMPT",
        help="the app's first prompt, sent as it starts (with -p: the prompt)",
    )
    parser.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json"),
        default="text",
        help="headless output: the final answer, one JSON result at the end, or one JSON event "
        "a line",
    )


def _model_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", help="the model to use (default: a current Sonnet)")
    parser.add_argument("--small-model", help="the model WebFetch extracts pages with")
    parser.add_argument(
        "--offline",
        action="store_true",
        help="use the built-in offline model even when an API key is set",
    )


def _session_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-r",
        "--resume",
        nargs="?",
        const="",
        metavar="ID",
        help="resume a session (a picker when no ID is given)",
    )
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_",
        action="store_true",
        help="resume the latest session in this directory",
    )
    parser.add_argument(
        "--fork-session",
        action="store_true",
        help="with --continue/--resume: go on in a copy of the session (a new id); also what to "
        "do when another agent-tui has that session open",
    )


def _permission_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow",
        action="append",
        type=_rule,
        default=[],
        metavar="RULE",
        help="allow rule, e.g. 'Bash(git diff:*)' (repeatable)",
    )
    parser.add_argument(
        "--deny",
        action="append",
        type=_rule,
        default=[],
        metavar="RULE",
        help="deny rule, e.g. 'WebFetch(domain:example.com)' (repeatable)",
    )
    parser.add_argument(
        "--mode",
        choices=("default", "accept-edits", "plan", "yolo"),
        default=None,
        help="permission mode (default: Claude Code's permissions.defaultMode, else default)",
    )
    parser.add_argument(
        "--approve-asks",
        action="store_true",
        help="headless: run calls that would ask instead of denying them",
    )


def _turn_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-cost",
        "--max-budget-usd",
        type=_dollars,
        metavar="USD",
        help="stop (headless) or ask (TUI) before spending more than USD in this session",
    )
    parser.add_argument(
        "--thinking",
        nargs="?",
        const=-1,
        type=_budget,
        metavar="TOKENS",
        help="extended thinking, with a budget in tokens (default: the setting, else 8000)",
    )
    parser.add_argument(
        "--mcp-config",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="MCP servers to start, in Claude Code's mcpServers JSON format (repeatable)",
    )


def _project_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trust-project",
        action="store_true",
        help="honour the grants in this project's own .agent-tui settings without asking",
    )
    parser.add_argument(
        "--sandbox",
        choices=("off", "on", "auto"),
        default=None,
        help="run Bash inside an OS sandbox: auto (default: commands asked about only for what "
        "the sandbox contains run unasked; their protected changes wait at its gate), on (the "
        "usual questions too), off",
    )
    parser.add_argument("--cwd", type=Path, default=None, help="working directory for tools")


def _sessions(argv: list[str]) -> int:
    from agent_tui.sessions.cli import main as sessions_main

    return sessions_main(argv)


def _changes(argv: list[str]) -> int:
    from agent_tui.sessions.changes_cli import main as changes_main

    return changes_main(argv)


def _acp(argv: list[str]) -> int:
    from agent_tui.acp.server import main as acp_main

    return acp_main(argv)


def _plugin(argv: list[str]) -> int:
    from agent_tui.plugins.cli import main as plugin_main

    return plugin_main(argv)


def _rules(argv: list[str]) -> int:
    from agent_tui.sessions.rules_cli import main as rules_main

    return rules_main(argv)


#: `agent-tui WORD …`: the sub-commands, each with a command line of its own
SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {
    "sessions": _sessions,
    "changes": _changes,
    "acp": _acp,
    "plugin": _plugin,
    "rules": _rules,
}


class _Refused(Exception):
    """The command line can't start a session: said in one line, with the exit code."""

    def __init__(self, code: int, message: str, *, usage: bool = False) -> None:
        super().__init__(message)
        self.code, self.usage = code, usage


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]](argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    from agent_tui.debug_log import from_args

    if (debug := from_args(args)) is not None:
        print(f"agent-tui: debug log: {debug}", file=sys.stderr)
    try:
        return _start(args)
    except _Refused as exc:
        if exc.usage:
            parser.print_usage(sys.stderr)
        print(f"agent-tui: {exc}", file=sys.stderr)
        return exc.code


def _start(args: argparse.Namespace) -> int:
    """The phases of a start: where, the flags, the prompt, the set-up, the session, the run."""
    cwd = (args.cwd or Path.cwd()).expanduser()
    if not cwd.is_dir():
        raise _Refused(2, f"--cwd {cwd} is not a directory")
    from agent_tui.claude_flags import claude_options

    claude, usage = claude_options(args, cwd)
    if usage:
        raise _Refused(2, f"error: {usage}", usage=True)
    if args.prompt is not None:
        args.prompt, args.initial = _headless_prompt(args.prompt, args.initial)
    _check_setup()
    if args.prompt is None and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise _Refused(2, 'not a terminal; use -p "PROMPT"')
    worktree = _worktree(cwd, args.worktree)
    options = _options(args, worktree.cwd if worktree is not None else cwd, claude)
    from agent_tui.runtime import setup_problem

    problem = setup_problem(options)
    if problem:
        raise _Refused(1, problem)
    if args.prompt is not None:
        return _headless(options, args.prompt, args.output_format, worktree)
    return _app(options, worktree)


def _headless_prompt(prompt: str, initial: str | None) -> tuple[str, str | None]:
    """`-p`'s prompt, with what is piped in joined to it (`agent-tui -p --flag "PROMPT"`
    takes the positional one)."""
    from agent_tui.piped_input import PipedInputError, read_piped, with_piped

    if not prompt.strip() and initial:
        prompt, initial = initial, None
    try:
        prompt = with_piped(prompt, read_piped())
    except PipedInputError as exc:
        raise _Refused(1, str(exc)) from None
    if not prompt.strip():
        raise _Refused(2, "error: -p needs a prompt (as an argument, or piped in)", usage=True)
    return prompt, initial


def _check_setup() -> None:
    """The config/data directory, then the person's settings."""
    problem = home_problem()
    if problem is None:
        from agent_tui.settings_check import settings_problem

        problem = settings_problem()
    if problem:
        raise _Refused(1, problem)


def _worktree(cwd: Path, name: str | None) -> Worktree | None:
    """`-w/--worktree`: the session runs in a worktree of its own (None: in `cwd`)."""
    if name is None:
        return None
    from agent_tui.worktree import WorktreeError, create

    try:
        worktree = create(cwd, name or None)
    except WorktreeError as exc:
        raise _Refused(1, str(exc)) from None
    print(f"agent-tui: working in {worktree.cwd} (new branch {worktree.branch})")
    return worktree


def _options(args: argparse.Namespace, cwd: Path, claude: dict[str, Any]) -> Options:
    from agent_tui.runtime import Options

    return Options(
        model=args.model,
        small_model=args.small_model,
        offline=args.offline,
        cwd=cwd.resolve(),
        allow=[*args.allow, *claude["allow"]],
        deny=[*args.deny, *claude["deny"]],
        mode=claude["mode"],
        resume=args.resume,
        continue_=args.continue_,
        fork_session=args.fork_session,
        headless=args.prompt is not None,
        approve_asks=args.approve_asks,
        trust_project=args.trust_project,
        max_cost=args.max_cost,
        thinking=args.thinking,
        mcp_configs=[p.expanduser() for p in args.mcp_config],
        sandbox=args.sandbox,
        initial_prompt=args.initial if args.prompt is None else None,
        system_prompt=args.system_prompt,
        append_system_prompt=args.append_system_prompt,
        max_turns=args.max_turns,
        add_dirs=claude["add_dirs"],
        plugin_dirs=claude["plugin_dirs"],
        json_schema=claude["json_schema"],
    )


def _headless(options: Options, prompt: str, output_format: str, worktree: Worktree | None) -> int:
    from agent_tui.headless import run_headless

    try:
        return run_headless(options, prompt, output_format)
    except BrokenPipeError:  # `agent-tui -p … | head`: the reader left, nothing is wrong
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        _leave(worktree, interactive=False)


def _app(options: Options, worktree: Worktree | None) -> int:
    from agent_tui.ui.startup.gc_tuning import for_startup, freeze_imports

    for_startup()  # before the UI is imported: start-up's objects live as long as the process
    from agent_tui.ui.app import AgentApp

    freeze_imports()  # the modules just imported: never garbage, never walked again
    app = AgentApp(options, tune_collector=True)
    app.run()
    if app.terminated:
        print("agent-tui: stopped by SIGTERM (the turn stopped, its commands' changes held)")
    if app.resume_hint:
        print(app.resume_hint)
    _leave(worktree, interactive=sys.stdin.isatty())
    return app.return_code or 0


def _leave(worktree: Worktree | None, *, interactive: bool) -> None:
    """A session in its own worktree ends: keep it or remove it (`worktree.offer_on_leave`)."""
    if worktree is not None:
        from agent_tui.worktree import offer_on_leave

        print(offer_on_leave(worktree, interactive=interactive), file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
