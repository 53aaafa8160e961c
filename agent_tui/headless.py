"""`agent-tui -p PROMPT`: one turn without a screen. Asks become denials (reported as `permission`
events) unless `--approve-asks`; `--output-format stream-json` prints one JSON event a line.

Exit code: 0 the turn succeeded and is recorded (calls it refused are listed on stderr,
`headless_denials.py`); 1 the turn failed, or it succeeded (the answer is
printed) but the session database could not record it (one line on stderr says why: a full disk,
a damaged database, one from a newer agent-tui); 2 a usage error."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from typing import TYPE_CHECKING, Any

from agent_tui.protocol.events import (
    ChangeRecorded,
    ChangeStarted,
    ContextCompacted,
    Event,
    Notice,
    RequestStarted,
    StreamFailed,
    TextDelta,
    ToolInputDelta,
    TurnFinished,
    UsageCounted,
    stream_json,
)
from agent_tui.redact import redact_obj
from agent_tui.runtime import Options, make_agent

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.headless_denials import Denials
    from agent_tui.sessions.recorder import Recorder

NOT_RECORDED = "this session is not (all) recorded"

# Too fine-grained for a line each: the assembled `tool_call` event carries the input, and the
# turn's `files_changed` what its calls' records say.
_SKIP = (ToolInputDelta, ChangeStarted, ChangeRecorded, UsageCounted)


#: what a run stopped by SIGTERM says (CI timeouts, systemd and `docker stop` send it)
TERMINATED = (
    "agent-tui: stopped by SIGTERM: the turn was cut short (its commands stopped, their file "
    "changes held, not applied); what it did is recorded: --continue goes on"
)


def run_headless(options: Options, prompt: str, output_format: str = "text") -> int:
    from agent_tui import headless_gc

    headless_gc.start()  # start-up's objects walked once at most, the heap left at exit
    try:
        return asyncio.run(_run(options, prompt, output_format))
    except asyncio.CancelledError:  # SIGTERM before the turn began
        print(TERMINATED, file=sys.stderr)
        return 143
    finally:
        headless_gc.finish()


def _stop_on_sigterm(agent: Any) -> list[str]:
    """SIGTERM stops the run as Esc stops a turn: the running turn is cancelled (its commands'
    process groups killed, their change sets held, the record finished); before or after a
    turn the run itself is. The returned list says whether it came."""
    import signal

    came: list[str] = []
    task = asyncio.current_task()

    def on_term() -> None:
        came.append("SIGTERM")
        if not agent.cancel() and task is not None:
            task.cancel()

    # not the main thread, or no signals here: SIGTERM does what it always did
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, on_term)
    return came


def _say(line: str) -> None:
    print(f"agent-tui: {line}", file=sys.stderr)


async def _run(options: Options, prompt: str, output_format: str) -> int:
    """The run's phases: the agent built, the prompt expanded, the start's notes said, the
    session recorded, the one turn, then what it came to (`_outcome`)."""
    agent = _build(options)
    terminated = _stop_on_sigterm(agent)
    from agent_tui.runtime import project_trusted
    from agent_tui.slash_commands import headless_command

    # `/command args` expands as in the app (the project's commands once it is trusted)
    prompt, problem = headless_command(
        prompt,
        options.cwd,
        project_trusted=project_trusted(options, agent.permissions),
        plugins=agent.config.plugins,
    )
    if problem:
        _say(problem)
        return 2
    _say_start(agent, options)
    recording = _record(agent, options)
    if isinstance(recording, int):
        return recording
    recorder, unrecorded = recording
    from agent_tui.headless_denials import Denials

    denials = Denials()
    printer = _Printer(agent, output_format, recorder)
    agent.listeners.append(printer.on_event)
    agent.listeners.append(denials.on_event)
    try:
        result = await _turn(agent, prompt)
        shaped = await _structured(agent, options, result, printer.answer)
    finally:
        await _close(agent, recorder)
    if terminated:
        print(TERMINATED, file=sys.stderr)
        return 143
    return _outcome(agent, printer, denials, result, shaped, unrecorded)


def _build(options: Options) -> Agent:
    from agent_tui import headless_gc

    if options.json_schema is not None:  # the answer's shape, told with the instructions
        from agent_tui.structured_output import instruction

        told = instruction(options.json_schema)
        extra = options.append_system_prompt
        options.append_system_prompt = f"{extra}\n\n{told}" if extra else told
    agent = make_agent(options)
    agent.listeners.append(headless_gc.on_event)
    return agent


def _say_start(agent: Agent, options: Options) -> None:
    """What the app says in its chat as it starts, on stderr: settings and sandbox problems,
    held change sets, and what an untrusted project's files would have brought."""
    notes = agent.startup_notes()
    for warning in notes.settings():
        _say(f"warning: {warning}")
    for note in notes.sandbox_notices():
        _say(f"warning: {note}")
    held = notes.held_changes(tui=False)
    if held:
        _say(held)
    permissions = agent.permissions
    if options.approve_asks and permissions.settings_broken:
        # Deny rules that couldn't be read must not be overridden by approving every ask.
        agent.approvals.allow_asks = False
        _say(
            "--approve-asks is off for this run: the settings above could not be read, so "
            "calls they might deny will be refused instead"
        )
    withheld = permissions.untrusted_grants
    if withheld:
        rules = ", ".join(r.rule.text for r in withheld)
        _say(
            f"ignoring this project's own grants ({rules}): the project is not trusted; run "
            "with --trust-project to honour them"
        )
    shaping = [
        *permissions.untrusted_hooks,
        *permissions.untrusted_files,
    ]
    if shaping:
        _say(
            f"not loading this project's {'; '.join(shaping)}: the project is not trusted; run "
            "with --trust-project to use them"
        )
    _say_waiting(agent)


def _say_waiting(agent: Agent) -> None:
    """MCP configuration problems, and the plugins and servers that wait for trust."""
    setup = agent.mcp
    for warning in setup.warnings if setup is not None else ():
        _say(f"warning: {warning}")
    for plugin in agent.config.plugins.pending() if agent.config.plugins else ():
        _say(
            f"not loading plugin {plugin.name} ({plugin.root}): it is not trusted; trust it in "
            "the app (or `agent-tui plugin add`), or run with --trust-project"
        )
    waiting = [s for s in setup.pending if s.source == "project"] if setup is not None else []
    if waiting:
        names = ", ".join(s.name for s in waiting)
        _say(
            f"not starting this project's MCP servers ({names}): the project is not trusted; "
            "run with --trust-project to start them"
        )


def _record(agent: Agent, options: Options) -> tuple[Recorder | None, bool] | int:
    """The session's recorder (None: not recorded) and whether the store failed at the start
    (exit 1 at the end), or the exit code of a resume that can't be."""
    from agent_tui.sessions.recorder import attach_recorder
    from agent_tui.sessions.records import StoreUnavailable
    from agent_tui.sessions.session_lock import SessionInUse

    try:
        return (attach_recorder(agent, options) if options.record else None), False
    except LookupError as exc:  # `--resume ID` with an unknown or ambiguous id
        _say(f"could not resume: {exc}")
        return 1
    except SessionInUse as exc:  # another agent-tui records it: its turns and ours would mix
        _say(f"could not resume: {exc}; run with --fork-session to go on in a copy")
        return 1
    except StoreUnavailable as exc:
        if options.resume is not None or options.continue_:
            _say(f"could not resume: {exc}")
            return 1
        # The run goes on (the person asked for an answer, not a record); the file stays as is,
        # and the exit code (1) says the session is not on disk.
        _say(f"warning: not recording this session: {exc}")
        return None, True


class _Printer:
    """The run's events as the output format wants them: the answer kept, notices on stderr,
    stream-json's lines (ours and Claude Code's) on stdout."""

    def __init__(self, agent: Agent, output_format: str, recorder: Recorder | None) -> None:
        from agent_tui.stream_json import ClaudeStream

        self.agent, self.output_format, self.recorder = agent, output_format, recorder
        self.answer: list[str] = []
        self.failed: list[str] = []
        self.first = True  # the first stream-json event not printed yet
        self.claude = ClaudeStream(agent, self.session_id)
        self.mcp = agent.mcp.manager if agent.mcp is not None else None

    def session_id(self) -> str | None:
        return self.recorder.session_id if self.recorder is not None else None

    def emit(self, data: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(redact_obj(data), ensure_ascii=False) + "\n")
        sys.stdout.flush()

    def on_event(self, event: Event) -> None:
        if isinstance(event, RequestStarted):  # the final answer is the last response's text
            self.answer.clear()
        if isinstance(event, TextDelta):
            self.answer.append(event.text)
        if isinstance(event, StreamFailed):
            self.failed.append(event.error)
        if self.output_format != "stream-json":
            if isinstance(event, Notice | ContextCompacted):
                # what the TUI says in the chat (retries, compaction, limits) goes to stderr
                what = (
                    event.text if isinstance(event, Notice) else f"context compacted ({event.how})"
                )
                level = event.level if isinstance(event, Notice) else "info"
                _say(f"{level}: {what}")
            self.claude.on_event(event)  # Claude Code's result needs what it saw
            return
        if not self.claude.announced:  # Claude Code's first line (the session is recorded)
            self.emit(self.claude.init(mcp_status(self.mcp)))
        for line in self.claude.on_event(event):  # Claude Code's lines, beside ours
            self.emit(line)
        if not isinstance(event, _SKIP):
            self.emit(self._ours(event))

    def _ours(self, event: Event) -> dict[str, Any]:
        from agent_tui.stream_json import dollars

        data = self.claude.decorate(event, stream_json(event))
        # The first and the last event say which session this run was recorded in.
        session_id = self.session_id()
        if session_id and (self.first or event.kind == "turn_finished"):
            data["session_id"] = session_id
        if isinstance(event, TurnFinished):  # the whole session's, a resumed one's too
            data["cost_usd"] = dollars(event.cost_usd)
            data["total_cost_usd"] = dollars(self.agent.session_cost)
            data["session_usage"] = self.agent.session_usage.to_dict()
        self.first = False
        return data


async def _turn(agent: Agent, prompt: str) -> TurnFinished:
    """The one turn, with the MCP servers' tools there for it."""
    mcp = agent.mcp.manager if agent.mcp is not None else None
    if mcp is not None:
        mcp.start()
        await mcp.wait_started()
    return await agent.submit(prompt)


async def _close(agent: Agent, recorder: Recorder | None) -> None:
    """The session ends: its hooks told, its shells, servers and sandbox stopped, its record
    finished."""
    from agent_tui.agent.turn_hooks import session_end

    await session_end(agent, "other")
    if agent.config.shells is not None:  # a background shell never outlives the run
        await agent.config.shells.kill_all()
    if agent.mcp is not None and agent.mcp.manager is not None:
        await agent.mcp.manager.stop()
    if agent.config.sandbox is not None:
        agent.config.sandbox.close()
    if recorder is not None:
        recorder.close()  # a last try if the store failed; never raises for the store


def _outcome(
    agent: Agent,
    printer: _Printer,
    denials: Denials,
    result: TurnFinished,
    shaped: Any,
    unrecorded: bool,
) -> int:
    """The answer and the result line printed, what went wrong said, and the exit code."""
    output_format, answer = printer.output_format, "".join(printer.answer)
    if output_format == "text" and answer.strip():
        print(answer.strip())
    result = shaped.turn if shaped is not None else result
    if output_format in ("json", "stream-json"):  # Claude Code's `result`, the last line
        data = printer.claude.result(result, answer, denials.as_json())
        if shaped is not None:
            data.update(shaped.fields())
        printer.emit(data)
    if result.stop_reason == "max_turns":
        _say(f"stopped after {result.requests} model responses (--max-turns)")
    for line in denials.report():
        print(line, file=sys.stderr)
    if shaped is not None and shaped.error:
        _say(f"--json-schema: {shaped.error}, after one retry")
        return 1
    if printer.failed or result.failed:
        _say(printer.failed[-1] if printer.failed else "the turn failed")
        return 1
    recorder = printer.recorder
    if recorder is not None and recorder.unrecorded:
        if output_format == "stream-json":  # else the notice said it on stderr already
            _say(f"warning: {NOT_RECORDED}: {recorder.backlog.failure}")
        unrecorded = True
    if result.stop_reason == "max_turns":  # Claude Code's error_max_turns: exit 1
        return 1
    if result.stop_reason == "max_cost":  # not sent, or cut: not the answer asked for
        if output_format == "stream-json":  # (else the notice said it as it happened)
            _say(agent.budget.stop_text or "Spending cap reached: the answer was cut short.")
        return 1
    return 1 if unrecorded else 0


async def _structured(agent: Any, options: Options, result: Any, answer: list[str]) -> Any:
    """With `--json-schema`: the answer checked (and retried once, told why); None without."""
    if options.json_schema is None:
        return None
    from agent_tui.structured_output import Shaped, check, retry_prompt

    shaped = Shaped(result)
    if result.failed or result.cancelled or result.stop_reason in ("max_turns", "max_cost"):
        return shaped  # no answer to check: the run's own error says why
    shaped.checked = True
    shaped.value, shaped.error = check(options.json_schema, "".join(answer))
    if shaped.error is not None:
        shaped.turn = await agent.submit(retry_prompt(shaped.error))
        shaped.value, shaped.error = check(options.json_schema, "".join(answer))
    return shaped


def mcp_status(manager: Any) -> list[dict[str, str]]:
    """The MCP servers for Claude Code's init line: name and status (connected, failed, …)."""
    status = getattr(manager, "status", None) or {}
    return [{"name": name, "status": s.state} for name, s in status.items()]
