"""Connects a running `Agent` to the session store: every message block, tool result, decision and
domain event is written as it happens. The session row is created lazily at the first message, so
opening the app and quitting leaves no empty session behind."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from agent_tui.agent.context import context_used
from agent_tui.protocol.events import (
    ApprovalDecided,
    ContextCompacted,
    Event,
    MessageFinished,
    ToolCallReady,
    ToolFinished,
    ToolInputDelta,
    TurnFinished,
    TurnStarted,
)
from agent_tui.sessions.checkpoint_log import SessionBlobs
from agent_tui.sessions.records import SessionInfo
from agent_tui.sessions.store import SessionStore

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.runtime import Options


class Recorder:
    def __init__(
        self,
        store: SessionStore,
        agent: Agent,
        session_id: str | None = None,
        *,
        parent_id: str | None = None,
        title: str | None = None,
    ) -> None:
        self.store = store
        self.agent = agent
        self.session_id = session_id
        #: a sub-agent's recorder: the session that ran it, and the title its session gets
        self._parent_id, self._title = parent_id, title
        self._message_seq: int | None = None
        self._tool_runs: dict[str, int] = {}
        self._inputs: dict[str, dict[str, Any]] = {}
        self._turn_started = time.time()
        agent.conversation.observers.append(self)
        agent.listeners.append(self.on_event)
        checkpoints = getattr(agent, "checkpoints", None)
        if checkpoints is not None:  # file contents for undo go to the session
            checkpoints.blobs = SessionBlobs(store, self._session)
        subagents = getattr(agent, "subagents", None)
        if subagents is not None:
            subagents.on_start = self.record_subagent

    def record_subagent(self, sub: Agent, label: str) -> None:
        """Record a sub-agent's conversation as a session linked to this one."""
        Recorder(self.store, sub, parent_id=self._session(), title=f"↳ Task: {label}")

    def _session(self) -> str:
        if self.session_id is None:
            self.session_id = self.store.create_session(
                self.agent.config.cwd,
                self.agent.config.model,
                self._title,
                parent_id=self._parent_id,
            )
            self.store.set_system_prompt(self.session_id, self.agent.config.system)
        return self.session_id

    # ConversationObserver
    def message_started(self, role: str) -> None:
        self._message_seq = self.store.begin_message(self._session(), role)

    def block_added(self, block: dict[str, Any]) -> None:
        session = self._session()
        if self._message_seq is None:  # cannot happen: the loop begins every message it fills
            self._message_seq = self.store.begin_message(
                session, self.agent.conversation.messages[-1]["role"]
            )
        self.store.append_block(session, self._message_seq, block)

    def on_event(self, event: Event) -> None:
        if isinstance(event, ToolInputDelta) or (
            self.session_id is None and not isinstance(event, TurnStarted)
        ):
            return
        session = self._session()
        if isinstance(event, TurnStarted):
            self._turn_started = time.time()
        self.store.append_event(session, event)
        if isinstance(event, ToolCallReady) and not event.server:
            self._inputs[event.tool_use_id] = event.input
        elif isinstance(event, ApprovalDecided):
            self._tool_runs[event.tool_use_id] = self.store.record_tool_run(
                session,
                event.tool_use_id,
                event.tool,
                self._inputs.get(event.tool_use_id, {}),
                decision=event.decision,
                decided_by=event.by,
                rule=event.rule,
                rule_source=event.rule_source,
                answer=event.answer,
                mode=event.mode,
                started_at=time.time(),
            )
        elif isinstance(event, ToolFinished):
            tool_input = self._inputs.pop(event.tool_use_id, {})
            result: dict[str, Any] = {
                "summary": event.summary,
                "is_error": event.is_error,
                "duration_s": event.duration_s,
            }
            run = self._tool_runs.pop(event.tool_use_id, None)
            if run is None:  # never reached a decision (invalid input, unknown tool): one record
                self.store.record_tool_run(
                    session,
                    event.tool_use_id,
                    event.tool,
                    tool_input,
                    finished_at=time.time(),
                    **result,
                )
            else:
                self.store.finish_tool_run(run, **result)
        elif isinstance(event, TurnFinished):
            self.store.record_turn(
                session,
                event.usage,
                event.cost_usd,
                stop_reason=event.stop_reason,
                requests=event.requests,
                model=self.agent.config.model,
                started_at=self._turn_started,
                finished_at=time.time(),
            )

    def detach(self) -> None:
        """Stop recording this agent (another session takes over); the store stays open."""
        if self in self.agent.conversation.observers:
            self.agent.conversation.observers.remove(self)
        if self.on_event in self.agent.listeners:
            self.agent.listeners.remove(self.on_event)
        self.store.flush()

    def close(self) -> None:
        self.store.close()


def find_session(store: SessionStore, options: Options) -> SessionInfo | None:
    """The session `--continue` / `--resume ID` asks for (None for a new session)."""
    if options.continue_:
        return store.latest_session(options.cwd)
    if options.resume:
        return store.get_session(store.resolve_id(options.resume))
    return None


def attach_recorder(agent: Agent, options: Options, store: SessionStore | None = None) -> Recorder:
    """Record the agent's session; resumes the conversation `--continue`/`--resume` names."""
    opened = store is None
    store = store or SessionStore.open_default()
    try:
        info = find_session(store, options)
    except LookupError:  # an unknown or ambiguous `--resume` id: the caller reports it
        if opened:
            store.close()
        raise
    if info is None:
        return Recorder(store, agent)
    return resume_into(store, agent, info.id)


def resume_into(store: SessionStore, agent: Agent, session_id: str) -> Recorder:
    """Load a stored session's (repaired) messages into the agent and keep recording there."""
    from agent_tui.sessions.repair import repair_messages

    raw = store.load_messages(session_id, repair=False)
    fixed = repair_messages(raw)  # what `load_messages` does, without reading it all twice
    # Persist what repair appended (e.g. "interrupted" tool results), so the stored conversation
    # stays valid as new messages follow it.
    if len(fixed) > len(raw) and fixed[: len(raw)] == raw:
        for message in fixed[len(raw) :]:
            store.add_message(session_id, message["role"], message["content"])
    agent.conversation.messages[:] = fixed
    stored = store.get_system_prompt(session_id)
    if stored:  # the same bytes as before: the cached prefix still matches
        agent.config.system = stored
    last = store.last_event(session_id, "message_finished")
    if isinstance(last, MessageFinished):  # how full the context is, for the next compaction
        agent.compactor.used = context_used(last.usage)
    compacted = store.last_event(session_id, "context_compacted")
    # requests go on from a client-side compaction's summary, as before
    if (
        isinstance(compacted, ContextCompacted)
        and compacted.how == "client"
        and 0 < compacted.start < len(fixed)
    ):
        agent.conversation.compact(compacted.start, compacted.summary)
    # what its turns changed on disk, for undo and rewind
    agent.checkpoints.history, agent.checkpoints.next_id = store.load_checkpoints(session_id)
    return Recorder(store, agent, session_id)
