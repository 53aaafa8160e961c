"""Connects a running `Agent` to the session store: every message block, tool result, decision and
domain event is written as it happens. The session row is created lazily at the first message, so
opening the app and quitting leaves no empty session behind."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from agent_tui.agent import recording
from agent_tui.agent.context import context_used
from agent_tui.protocol.events import (
    ApprovalDecided,
    BlockFinished,
    ContextCompacted,
    Event,
    MessageFinished,
    Notice,
    RequestStarted,
    StreamFailed,
    TextDelta,
    ToolCallReady,
    ToolFinished,
    ToolInputDelta,
    TurnFinished,
    TurnStarted,
    UsageCounted,
)
from agent_tui.sessions.backlog import Backlog, Ref
from agent_tui.sessions.draft import Draft
from agent_tui.sessions.faults import STORE_ERRORS, describe
from agent_tui.sessions.recorded_blobs import RecordedBlobs
from agent_tui.sessions.records import StoreUnavailable
from agent_tui.sessions.session_lock import SessionInUse, SessionLock
from agent_tui.sessions.store import SessionStore
from agent_tui.sessions.stored_session import StoredSession, find_session, read_session

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.runtime import Options

NOT_RECORDING = "Not recording this session from here on"
KEPT = (
    "The work goes on; what isn't recorded is kept in memory and saved as soon as the session "
    "database works again"
)
RESUMED = "Recording resumed: everything since it stopped is saved"


class Recorder:
    """Records one agent's session. Every write goes through `backlog` (`backlog.py`): when the
    store fails, the agent goes on unrecorded, one notice says so, and the writes wait in memory
    until the store takes them again (tried at each new turn)."""

    def __init__(
        self,
        store: SessionStore,
        agent: Agent,
        session_id: str | None = None,
        *,
        parent: Recorder | None = None,
        title: str | None = None,
        backlog: Backlog | None = None,
        lock: SessionLock | None = None,
    ) -> None:
        self.store = store
        self.agent = agent
        self.session_id = session_id
        #: closed (the app quits): later events are not written
        self.closed = False
        # One session, one process (`session_lock.py`); raises `SessionInUse` before anything
        # is attached. A sub-agent's session is its own and never continued.
        if lock is None and session_id is not None and parent is None:
            lock = SessionLock.take(store.path, session_id)
        self._held = lock
        #: a sub-agent's recorder: the recorder that ran it, and the title its session gets
        self._parent, self._title = parent, title
        if backlog is None:
            backlog = parent.backlog if parent is not None else self._new_backlog()
        self.backlog: Backlog = backlog
        self._message: Ref[int] | None = None
        #: a message begun to keep a streaming answer (`_draft_message`), for the loop to fill
        self._adopt: Ref[int] | None = None
        self._draft = Draft(self._save_draft)
        self._tool_runs: dict[str, Ref[int]] = {}
        self._inputs: dict[str, dict[str, Any]] = {}
        self._turn_started = time.time()
        #: file contents kept for undo go to the session
        self.blobs = RecordedBlobs(store, self._session, self.backlog)
        recording.attach(agent, self)

    def _new_backlog(self) -> Backlog:
        home = threading.get_ident()
        backlog: Backlog

        def say(event: Notice) -> None:
            if threading.get_ident() == home:
                self.agent.emit(event)
            else:  # a failure met in a worker thread (a file kept for undo): said from home
                backlog.held.append(event)

        def failed(why: str) -> None:
            say(Notice("warning", f"{NOT_RECORDING}: {why}. {KEPT}"))

        def resumed(written: int, dropped: int) -> None:
            missing = f" (its replay misses {dropped:,} streamed pieces)" if dropped else ""
            say(Notice("info", f"{RESUMED}{missing}."))

        backlog = Backlog(failed, resumed)
        return backlog

    @property
    def unrecorded(self) -> bool:
        """Whether writes are waiting for a store that fails (the session isn't all on disk)."""
        return self.backlog.failing

    def _write(self, op: Callable[[], object], *, event: bool = False) -> None:
        self.backlog.run(op, event=event)

    def system_prompt_changed(self) -> None:
        """The agent's system prompt changed (a model switch): a resumed session sends it."""
        if self.session_id is not None or self.backlog.failing:
            system = self.agent.config.system
            self._write(lambda: self.store.sessions.set_system_prompt(self._session(), system))

    def record_subagent(self, sub: Agent, label: str) -> None:
        """Record a sub-agent's conversation as a session linked to this one."""
        Recorder(self.store, sub, parent=self, title=f"↳ Task: {label}")

    def _session(self) -> str:
        """This recorder's session, created (with its system prompt, in one transaction) when
        first written to; raises a store error when it can't be."""
        if self.session_id is None:
            parent = self._parent._session() if self._parent is not None else None
            with self.store.batch():
                session_id = self.store.sessions.create(
                    self.agent.config.cwd, self.agent.config.model, self._title, parent_id=parent
                )
                self.store.sessions.set_system_prompt(session_id, self.agent.config.system)
            if parent is None:  # a new id: no one else can hold it yet
                self._held = SessionLock.take(self.store.path, session_id)
            self.session_id = session_id
        return self.session_id

    # ConversationObserver
    def message_started(self, role: str) -> None:
        adopt, self._adopt = self._adopt, None
        if adopt is not None and role == "assistant":  # begun already, for its streaming text
            self._message = adopt
            return
        ref = self._message = Ref[int]()

        def begin() -> None:
            ref.value = self.store.messages.begin(self._session(), role)

        self._write(begin)

    def block_added(self, block: dict[str, Any]) -> None:
        ref = self._message
        if ref is None:  # cannot happen: the loop begins every message it fills
            self.message_started(self.agent.conversation.messages[-1]["role"])
            ref = self._message
            assert ref is not None
        self._write(lambda: self.store.messages.append_block(self._session(), ref.get(), block))

    def prompt_withdrawn(self) -> None:
        """A prompt none of which was sent is taken out of the stored conversation too, so the
        next `--continue` doesn't send it (the events keep that it was typed and refused)."""
        ref, self._message = self._message, None
        if ref is not None:
            self._write(lambda: self.store.messages.drop_last(self._session(), ref.get()))

    def on_event(self, event: Event) -> None:
        if self.closed:
            return  # the app is quitting: what comes after the last write can't be kept
        if isinstance(event, ToolInputDelta | UsageCounted) or (
            self.session_id is None
            and not self.backlog.failing
            and not isinstance(event, TurnStarted)
        ):
            return
        self._say_held()
        if isinstance(event, TurnStarted):
            self._turn_started = time.time()
            self.backlog.retry()  # a new prompt: is the store back?
        self._write(lambda: self.store.events.append(self._session(), event), event=True)
        if isinstance(event, TextDelta):
            self._draft.add(event.index, event.text)
        elif isinstance(event, BlockFinished):
            self._draft.finished(event.index)
        elif isinstance(event, RequestStarted | StreamFailed | TurnFinished):
            self._draft.clear()  # a broken stream's text is kept as a block (`keep_partial`)
        if isinstance(event, ToolCallReady) and not event.server:
            self._inputs[event.tool_use_id] = event.input
        elif isinstance(event, ApprovalDecided):
            self._record_decision(event)
        elif isinstance(event, ToolFinished):
            self._record_result(event)
        elif isinstance(event, TurnFinished):
            self._record_turn(event)

    def _save_draft(self, text: str) -> None:
        """Keep the answer streaming now (`draft.py`), in the message its block will join."""
        if self.backlog.failing:  # the finished block waits in the backlog; drafts needn't
            return
        if self.agent.conversation.last_role == "assistant" and self._message is not None:
            ref = self._message  # blocks of this response are going there already
        else:  # the response's first block: begin its message now, for the loop to take
            if self._adopt is None:
                self._adopt = ref = Ref[int]()
                session = self._session

                def begin() -> None:
                    ref.value = self.store.messages.begin(session(), "assistant")

                self._write(begin)
            ref = self._adopt
        self._write(lambda: self.store.messages.put_draft(self._session(), ref.get(), text))

    def _say_held(self) -> None:
        held = self.backlog.held
        while held:
            self.agent.emit(held.pop(0))

    def _record_decision(self, event: ApprovalDecided) -> None:
        ref = self._tool_runs[event.tool_use_id] = Ref[int]()
        tool_input = self._inputs.get(event.tool_use_id, {})
        started = time.time()

        def record() -> None:
            ref.value = self.store.runs.record(
                self._session(),
                event.tool_use_id,
                event.tool,
                tool_input,
                decision=event.decision,
                decided_by=event.by,
                rule=event.rule,
                rule_source=event.rule_source,
                answer=event.answer,
                mode=event.mode,
                provenance=event.provenance,
                answer_s=event.answer_s,
                started_at=started,
            )

        self._write(record)

    def _record_result(self, event: ToolFinished) -> None:
        tool_input = self._inputs.pop(event.tool_use_id, {})
        result: dict[str, Any] = {
            "summary": event.summary,
            "is_error": event.is_error,
            "duration_s": event.duration_s,
        }
        finished = time.time()
        ref = self._tool_runs.pop(event.tool_use_id, None)
        if ref is not None:
            self._write(lambda: self.store.runs.finish(ref.get(), **result))
            return
        # never reached a decision (invalid input, unknown tool): one record
        self._write(
            lambda: self.store.runs.record(
                self._session(),
                event.tool_use_id,
                event.tool,
                tool_input,
                finished_at=finished,
                **result,
            )
        )

    def _record_turn(self, event: TurnFinished) -> None:
        started, finished, model = self._turn_started, time.time(), self.agent.config.model
        self._write(
            lambda: self.store.turns.record(
                self._session(),
                event.usage,
                event.cost_usd,
                stop_reason=event.stop_reason,
                requests=event.requests,
                model=model,
                started_at=started,
                finished_at=finished,
            )
        )

    def detach(self) -> None:
        """Stop recording this agent (another session takes over); the store stays open."""
        recording.detach(self.agent, self)
        self._write(self.store.flush)
        self._release()

    def close(self) -> None:
        """Write what waits (a last try if the store failed) and close the store. Never raises
        for the store's sake: `unrecorded` says whether everything got written."""
        self.backlog.retry()
        self.closed = True
        with contextlib.suppress(*STORE_ERRORS):
            self.store.close()
        self._release()

    def _release(self) -> None:
        if self._held is not None:
            self._held.release()
            self._held = None


def record_from_here(store: SessionStore, agent: Agent) -> Recorder:
    """Record an agent that ran unrecorded so far (the database couldn't be opened): its
    conversation up to now goes into a new session first."""
    recorder = Recorder(store, agent)
    if agent.messages:
        so_far = [dict(m) for m in agent.messages]
        recorder._write(lambda: store.messages.extend(recorder._session(), so_far))
    return recorder


def attach_recorder(
    agent: Agent,
    options: Options,
    store: SessionStore | None = None,
    *,
    stored: StoredSession | None = None,
) -> Recorder:
    """Record the agent's session; resumes the conversation `--continue`/`--resume` names (or
    `stored`, that session read already from `store`, which is then this call's to close if it
    fails, as a store it opened).

    Raises `LookupError` for an unknown or ambiguous `--resume` id, `SessionInUse` when another
    process records that session (`options.fork_session` goes on in a copy instead), and
    `StoreUnavailable` (one line: which file, what is wrong) when the store can't be opened or
    read."""
    opened = store is None or stored is not None
    store = store or SessionStore.open_default()
    try:
        if stored is not None:
            return resume_into(
                store, agent, stored.session_id, fork=options.fork_session, stored=stored
            )
        info = find_session(store, options)
        if info is None:
            return Recorder(store, agent)
        return resume_into(store, agent, info.id, fork=options.fork_session)
    except (LookupError, SessionInUse):  # the caller says so (and may start or fork a session)
        if opened:
            with contextlib.suppress(*STORE_ERRORS):
                store.close()
        raise
    except STORE_ERRORS as exc:
        if opened:
            with contextlib.suppress(*STORE_ERRORS):
                store.close()
        if isinstance(exc, StoreUnavailable):
            raise
        raise StoreUnavailable(f"cannot read {store.path}: {describe(exc)}") from exc


def resume_into(
    store: SessionStore,
    agent: Agent,
    session_id: str,
    *,
    backlog: Backlog | None = None,
    fork: bool = False,
    stored: StoredSession | None = None,
) -> Recorder:
    """Load a stored session's (repaired) messages into the agent and keep recording there, or
    with `fork` in a new session that starts as a copy of it. Raises `SessionInUse` when another
    process records that session (unless forking). Everything is read (`read_session`, or
    `stored` if it was read already) before the agent changes, so a store that fails leaves it
    as it was."""
    read = stored if stored is not None else read_session(store, session_id, fork=fork)
    lock, info, raw, fixed = read.lock, read.info, read.raw, read.messages
    read.lock = None  # the recorder's from here on
    agent.conversation.messages[:] = fixed
    agent.approvals.provenance.seed(fixed)  # what the resumed session's tools returned
    if info is not None:  # the totals shown and the spending cap count the whole session
        agent.set_session_spend(info.usage, info.cost_usd)
    if read.system:  # the same bytes as before: the cached prefix still matches
        agent.config.system = read.system
    last, compacted = read.last_finished, read.last_compacted
    if isinstance(last, MessageFinished):  # how full the context is, for the next compaction
        agent.compactor.used = context_used(last.usage)
    # requests go on from a client-side compaction's summary, as before
    if (
        isinstance(compacted, ContextCompacted)
        and compacted.how == "client"
        and 0 < compacted.start < len(fixed)
    ):
        agent.conversation.compact(compacted.start, compacted.summary)
    # what its turns changed on disk, for undo and rewind
    agent.checkpoints.history = read.checkpoints
    agent.checkpoints.next_id = read.next_checkpoint
    if fork:
        from agent_tui.sessions.fork import FORK_SUFFIX, fork_session

        copy = fork_session(store, agent, session_id, len(fixed), FORK_SUFFIX)
        return Recorder(store, agent, copy, backlog=backlog)
    recorder = Recorder(store, agent, session_id, backlog=backlog, lock=lock)
    # Persist what repair appended (e.g. "interrupted" tool results), so the stored conversation
    # stays valid as new messages follow it.
    if len(fixed) > len(raw) and fixed[: len(raw)] == raw:
        for message in fixed[len(raw) :]:
            add = partial(store.messages.add, session_id, message["role"], message["content"])
            recorder._write(add)
    return recorder
