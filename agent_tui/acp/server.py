"""`agent-tui acp [--model M] [--offline] [--mode MODE] [--sandbox MODE]`: agent-tui as an ACP
agent on stdio (JSON-RPC, one message a line; stdout is the protocol's, anything said goes to
stderr).

Each `session/new` builds a session as the app does (`runtime.make_agent`: the same tools,
permission engine, sandbox, hooks and MCP servers; the project's own files only if trusted
before, as in a headless run) and records it in agent-tui's store as the app does, so `sessions
list`, `sessions calls` and the review features see it. `session/prompt` runs one turn: its
text, thinking, tool calls and plan stream as `session/update`s, in order; a call that needs
the person becomes `session/request_permission` (`mapping`); `session/cancel` stops the turn as
Esc does. `session/set_mode` switches the permission mode (default, accept-edits, plan, yolo).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.acp import mapping

MODES = (
    ("default", "Default", "asks before what a rule doesn't allow"),
    ("accept-edits", "Accept edits", "file edits in the project run unasked"),
    ("plan", "Plan", "read-only: the model plans, changes nothing"),
    ("yolo", "YOLO", "no questions (deny rules and the sandbox still hold)"),
)


@dataclass
class Session:
    agent: Any
    recorder: Any
    #: the updates waiting to be sent, in order (`AcpAgent._send`)
    outbox: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)
    sender: asyncio.Task[None] | None = None


class AcpAgent:
    """The protocol's `Agent` side (`acp.interfaces.Agent`), over agent-tui's agents."""

    def __init__(self, options: argparse.Namespace) -> None:
        self.options = options
        self.conn: Any = None
        self.sessions: dict[str, Session] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **_: Any) -> Any:
        from acp import PROTOCOL_VERSION
        from acp.schema import (
            AgentCapabilities,
            Implementation,
            InitializeResponse,
            PromptCapabilities,
        )

        from agent_tui import __version__

        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=False,
                prompt_capabilities=PromptCapabilities(embedded_context=True),
            ),
            agent_info=Implementation(name="agent-tui", title="agent-tui", version=__version__),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **_: Any) -> Any:
        return None

    async def new_session(self, cwd: str, **_: Any) -> Any:
        from acp.schema import NewSessionResponse, SessionMode, SessionModeState

        from agent_tui.runtime import make_agent
        from agent_tui.sessions.recorder import attach_recorder

        session_id = uuid.uuid4().hex
        options = self._session_options(Path(cwd))
        agent = make_agent(options, ask=self._asker(session_id))
        agent.config.ask_user = self._questioner(session_id)
        for note in agent.startup_notes().sandbox_notices():
            print(f"agent-tui acp: {note}", file=sys.stderr)
        recorder = attach_recorder(agent, options)
        session = Session(agent, recorder)
        session.sender = asyncio.get_running_loop().create_task(self._send(session_id, session))
        agent.listeners.append(lambda event: self._queue(session, event))
        self.sessions[session_id] = session
        if agent.mcp is not None and agent.mcp.manager is not None:
            agent.mcp.manager.start()
        modes = [SessionMode(id=m, name=n, description=d) for m, n, d in MODES]
        mode = agent.permissions.mode
        return NewSessionResponse(
            session_id=session_id,
            modes=SessionModeState(current_mode_id=mode, available_modes=modes),
        )

    def _session_options(self, cwd: Path) -> Any:
        from agent_tui.runtime import Options

        o = self.options
        return Options(
            model=o.model, offline=o.offline, cwd=cwd.resolve(), mode=o.mode, sandbox=o.sandbox
        )

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> Any:
        from acp import RequestError

        session = self._session(session_id)
        try:
            session.agent.permissions.mode = mode_id
        except ValueError as exc:
            raise RequestError.invalid_params({"modeId": str(exc)}) from None
        return None

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> Any:
        from acp.schema import PromptResponse

        session = self._session(session_id)
        text = "\n\n".join(_block_text(b) for b in prompt if _block_text(b))
        result = await session.agent.submit(text)
        await session.outbox.join()  # every update of the turn is out before its answer
        if result.cancelled:
            stop = "cancelled"
        elif result.failed:
            from acp import RequestError

            raise RequestError.internal_error({"message": "the turn failed (see the log)"})
        else:
            stop = mapping.STOP_REASONS.get(result.stop_reason or "", "end_turn")
        return PromptResponse(stop_reason=stop)  # type: ignore[arg-type]

    async def cancel(self, session_id: str, **_: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.agent.cancel()

    async def close(self) -> None:
        """The client went away: every session stopped, its record finished."""
        for session in self.sessions.values():
            session.agent.cancel()
            if session.sender is not None:
                session.sender.cancel()
            manager = getattr(session.agent.mcp, "manager", None)
            if manager is not None:
                await manager.stop()
            if session.agent.config.sandbox is not None:
                session.agent.config.sandbox.close()
            if session.recorder is not None:
                session.recorder.close()

    # --- the session's side ---

    def _session(self, session_id: str) -> Session:
        from acp import RequestError

        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"sessionId": f"no session {session_id}"})
        return session

    def _queue(self, session: Session, event: Any) -> None:
        for update in mapping.updates(event):
            session.outbox.put_nowait(update)

    async def _send(self, session_id: str, session: Session) -> None:
        while True:
            update = await session.outbox.get()
            try:
                await self.conn.session_update(session_id=session_id, update=update)
            except Exception as exc:  # the client left: nothing more to send it
                print(f"agent-tui acp: an update was not sent: {exc}", file=sys.stderr)
            finally:
                session.outbox.task_done()

    def _asker(self, session_id: str) -> Any:
        async def ask(request: Any) -> Any:
            call, options = mapping.permission(request)
            started = time.monotonic()
            response = await self.conn.request_permission(
                session_id=session_id, tool_call=call, options=options
            )
            return mapping.answer(request, response.outcome, time.monotonic() - started)

        return ask

    def _questioner(self, session_id: str) -> Any:
        async def ask_user(questions: list[dict[str, Any]]) -> dict[str, str] | None:
            answers: dict[str, str] = {}
            for n, q in enumerate(questions):
                call, options = mapping.question(f"question-{uuid.uuid4().hex[:8]}-{n}", q)
                response = await self.conn.request_permission(
                    session_id=session_id, tool_call=call, options=options
                )
                outcome = response.outcome
                if outcome.outcome != "selected":
                    return None
                answers[q["question"]] = q["options"][int(outcome.option_id)]["label"]
            return answers

        return ask_user


def _block_text(block: Any) -> str:
    """A prompt block's text: text as it is, an embedded resource's text with its URI, a link
    as its URI (images and audio are not taken: the capabilities say so)."""
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind == "resource":
        res = block.resource
        body = getattr(res, "text", None)
        return f"{res.uri}:\n{body}" if body is not None else str(res.uri)
    if kind == "resource_link":
        return str(block.uri)
    return ""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="agent-tui acp", description="agent-tui as an Agent Client Protocol agent on stdio"
    )
    parser.add_argument("--model", help="the model (default: as the app chooses)")
    parser.add_argument("--offline", action="store_true", help="the built-in offline model")
    parser.add_argument("--mode", choices=[m for m, _n, _d in MODES], default="default")
    parser.add_argument("--sandbox", choices=("off", "on", "auto"), default=None)
    args = parser.parse_args(argv)
    try:
        import acp
    except ImportError:
        print("agent-tui acp: the agent-client-protocol package is missing", file=sys.stderr)
        return 1

    agent = AcpAgent(args)

    async def serve() -> None:
        try:
            # the protocol's optional methods (load, fork, list…) are not ours: the router
            # answers them "method not found", which the Protocol type can't say
            await acp.run_agent(agent)  # type: ignore[arg-type]
        finally:
            with contextlib.suppress(Exception):
                await agent.close()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())
    return 0
