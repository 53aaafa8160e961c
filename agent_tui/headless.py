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
from typing import Any

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


async def _run(options: Options, prompt: str, output_format: str) -> int:
    from agent_tui import headless_gc
    from agent_tui.sessions.recorder import attach_recorder
    from agent_tui.sessions.records import StoreUnavailable
    from agent_tui.sessions.session_lock import SessionInUse

    if options.json_schema is not None:  # the answer's shape, told with the instructions
        from agent_tui.structured_output import instruction

        told = instruction(options.json_schema)
        extra = options.append_system_prompt
        options.append_system_prompt = f"{extra}\n\n{told}" if extra else told
    agent = make_agent(options)
    agent.listeners.append(headless_gc.on_event)
    terminated = _stop_on_sigterm(agent)
    permissions = agent.permissions
    from agent_tui.runtime import project_trusted
    from agent_tui.slash_commands import headless_command

    # `/command args` expands as in the app (the project's commands once it is trusted)
    prompt, problem = headless_command(
        prompt,
        options.cwd,
        project_trusted=project_trusted(options, permissions),
        plugins=agent.config.plugins,
    )
    if problem:
        print(f"agent-tui: {problem}", file=sys.stderr)
        return 2
    for warning in getattr(permissions, "load_warnings", ()):
        print(f"agent-tui: warning: {warning}", file=sys.stderr)
    sandbox = agent.config.sandbox
    for note in getattr(sandbox, "start_notices", ()):
        print(f"agent-tui: warning: {note}", file=sys.stderr)
    held = sandbox.held_offer(tui=False) if sandbox is not None else None
    if held:
        print(f"agent-tui: {held}", file=sys.stderr)
    if options.approve_asks and getattr(permissions, "settings_broken", False):
        # Deny rules that couldn't be read must not be overridden by approving every ask.
        agent.approvals.allow_asks = False
        print(
            "agent-tui: --approve-asks is off for this run: the settings above could not be "
            "read, so calls they might deny will be refused instead",
            file=sys.stderr,
        )
    withheld = getattr(agent.permissions, "untrusted_grants", ())
    if withheld:
        rules = ", ".join(r.rule.text for r in withheld)
        print(
            f"agent-tui: ignoring this project's own grants ({rules}): the project is not "
            "trusted; run with --trust-project to honour them",
            file=sys.stderr,
        )
    shaping = [
        *getattr(permissions, "untrusted_hooks", ()),
        *getattr(permissions, "untrusted_files", ()),
    ]
    if shaping:
        print(
            f"agent-tui: not loading this project's {'; '.join(shaping)}: the project is not "
            "trusted; run with --trust-project to use them",
            file=sys.stderr,
        )
    setup = agent.mcp
    for warning in setup.warnings if setup is not None else ():
        print(f"agent-tui: warning: {warning}", file=sys.stderr)
    for plugin in agent.config.plugins.pending() if agent.config.plugins else ():
        print(
            f"agent-tui: not loading plugin {plugin.name} ({plugin.root}): it is not trusted; "
            "trust it in the app (or `agent-tui plugin add`), or run with --trust-project",
            file=sys.stderr,
        )
    held = [s for s in setup.pending if s.source == "project"] if setup is not None else []
    if held:
        names = ", ".join(s.name for s in held)
        print(
            f"agent-tui: not starting this project's MCP servers ({names}): the project is not "
            "trusted; run with --trust-project to start them",
            file=sys.stderr,
        )
    unrecorded = False  # the session (or part of it) could not be written: exit 1
    try:
        recorder = attach_recorder(agent, options) if options.record else None
    except LookupError as exc:  # `--resume ID` with an unknown or ambiguous id
        print(f"agent-tui: could not resume: {exc}", file=sys.stderr)
        return 1
    except SessionInUse as exc:  # another agent-tui records it: its turns and ours would mix
        print(
            f"agent-tui: could not resume: {exc}; run with --fork-session to go on in a copy",
            file=sys.stderr,
        )
        return 1
    except StoreUnavailable as exc:
        if options.resume is not None or options.continue_:
            print(f"agent-tui: could not resume: {exc}", file=sys.stderr)
            return 1
        # The run goes on (the person asked for an answer, not a record); the file stays as is,
        # and the exit code (1) says the session is not on disk.
        print(f"agent-tui: warning: not recording this session: {exc}", file=sys.stderr)
        recorder = None
        unrecorded = True
    from agent_tui.headless_denials import Denials

    answer: list[str] = []
    failed: list[str] = []
    denials = Denials()
    first = True  # the first stream-json event not printed yet
    from agent_tui.stream_json import ClaudeStream, dollars

    claude = ClaudeStream(agent, lambda: recorder.session_id if recorder is not None else None)

    def emit(data: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(redact_obj(data), ensure_ascii=False) + "\n")
        sys.stdout.flush()

    def on_event(event: Event) -> None:
        nonlocal first
        if isinstance(event, RequestStarted):  # the final answer is the last response's text
            answer.clear()
        if isinstance(event, TextDelta):
            answer.append(event.text)
        if isinstance(event, StreamFailed):
            failed.append(event.error)
        if output_format != "stream-json" and isinstance(event, Notice | ContextCompacted):
            # what the TUI says in the chat (retries, compaction, limits) goes to stderr
            what = event.text if isinstance(event, Notice) else f"context compacted ({event.how})"
            level = event.level if isinstance(event, Notice) else "info"
            print(f"agent-tui: {level}: {what}", file=sys.stderr)
        if not claude.announced and output_format == "stream-json":  # Claude Code's first
            emit(claude.init(mcp_status(mcp)))  # line (the session is recorded by now)
        for line in claude.on_event(event):  # Claude Code's lines, beside ours
            if output_format == "stream-json":
                emit(line)
        if output_format == "stream-json" and not isinstance(event, _SKIP):
            data = claude.decorate(event, stream_json(event))
            # The first and the last event say which session this run was recorded in.
            session_id = recorder.session_id if recorder is not None else None
            if session_id and (first or event.kind == "turn_finished"):
                data["session_id"] = session_id
            if isinstance(event, TurnFinished):  # the whole session's, a resumed one's too
                data["cost_usd"] = dollars(event.cost_usd)
                data["total_cost_usd"] = dollars(agent.session_cost)
                data["session_usage"] = agent.session_usage.to_dict()
            first = False
            emit(data)

    agent.listeners.append(on_event)
    agent.listeners.append(denials.on_event)
    mcp = agent.mcp.manager if agent.mcp is not None else None
    try:
        if mcp is not None:  # headless: the servers' tools must be there for the one turn
            mcp.start()
            await mcp.wait_started()
        result = await agent.submit(prompt)
        shaped = await _structured(agent, options, result, answer)
    finally:
        from agent_tui.agent.turn_hooks import session_end

        await session_end(agent, "other")
        if agent.config.shells is not None:  # a background shell never outlives the run
            await agent.config.shells.kill_all()
        if mcp is not None:
            await mcp.stop()
        if agent.config.sandbox is not None:
            agent.config.sandbox.close()
        if recorder is not None:
            recorder.close()  # a last try if the store failed; never raises for the store
    if terminated:
        print(TERMINATED, file=sys.stderr)
        return 143
    if output_format == "text":
        text = "".join(answer).strip()
        if text:
            print(text)
    result = shaped.turn if shaped is not None else result
    if output_format in ("json", "stream-json"):  # Claude Code's `result`, the last line
        data = claude.result(result, "".join(answer), denials.as_json())
        if shaped is not None:
            data.update(shaped.fields())
        emit(data)
    if result.stop_reason == "max_turns":
        said = f"stopped after {result.requests} model responses (--max-turns)"
        print(f"agent-tui: {said}", file=sys.stderr)
    for line in denials.report():
        print(line, file=sys.stderr)
    if shaped is not None and shaped.error:
        print(f"agent-tui: --json-schema: {shaped.error}, after one retry", file=sys.stderr)
        return 1
    if failed or result.failed:
        print(f"agent-tui: {failed[-1] if failed else 'the turn failed'}", file=sys.stderr)
        return 1
    if recorder is not None and recorder.unrecorded:
        if output_format == "stream-json":  # else the notice said it on stderr already
            why = recorder.backlog.failure
            print(f"agent-tui: warning: {NOT_RECORDED}: {why}", file=sys.stderr)
        unrecorded = True
    if result.stop_reason == "max_turns":  # Claude Code's error_max_turns: exit 1
        return 1
    if result.stop_reason == "max_cost":  # not sent, or cut: not the answer asked for
        if output_format == "stream-json":  # (else the notice said it as it happened)
            why = agent.budget.stop_text or "Spending cap reached: the answer was cut short."
            print(f"agent-tui: {why}", file=sys.stderr)
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
