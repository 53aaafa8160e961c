"""Booting the agent: a plain function run in the boot worker's thread (`boot_agent`).

It builds the agent, the session's recorder (resuming the session asked for; a fork or a new
session when another agent-tui records it; unrecorded, said in one line, when the database can't
be had) and, for a resumed session, its recorded tool runs. The app's boot worker
(`ui/startup/boot.py`)
runs it and hands the result to the UI thread; the one question it may need to ask (fork or
new?) comes through `ask_yes_no`, which the app answers on screen.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_tui.agent.approvals import AskFn
    from agent_tui.agent.budget import SpendFn
    from agent_tui.agent.loop import Agent
    from agent_tui.runtime import Options
    from agent_tui.sessions.recorder import Recorder
    from agent_tui.sessions.session_lock import SessionLock
    from agent_tui.sessions.store import SessionStore
    from agent_tui.sessions.stored_session import StoredSession, StoredTail

FORK_QUESTION = "Go on in a copy of it (a fork)? n starts a new session."


@dataclass
class Booted:
    """What `boot_agent` hands the UI: the agent, its recorder, and what to tell the person."""

    agent: Agent
    recorder: Recorder | None = None
    #: what the person is told about the session (not resumed, forked, not recorded), if anything
    note: str | None = None
    #: the session database couldn't be opened (the app tries again at the next prompt)
    store_unavailable: bool = False
    #: a resumed session's recorded tool runs, by tool_use_id (history rows, approvals pane)
    runs: dict[str, Any] = field(default_factory=dict)


@dataclass
class ReadAhead:
    """The session `--resume ID` / `--continue` names, read before the agent is built
    (`read_ahead`): the end of its conversation first, which shows while the agent builds, then
    the whole (`read_all`), which the boot resumes, not reading it twice."""

    store: SessionStore
    session_id: str
    #: the conversation's end (`stored_session.read_tail`): what its first screen shows
    tail: StoredTail
    #: its recorded tool runs, by tool_use_id
    runs: dict[str, Any]
    #: the session's lock until the whole is read (None: a fork's original, not taken)
    lock: SessionLock | None
    #: the whole session (`read_all`), holding the lock from then on
    session: StoredSession | None = None

    def read_all(self) -> bool:
        """Read the whole session. False if that fails: the session and the store are let go,
        and the boot resumes it as it always did (and says what fails)."""
        from agent_tui.sessions.stored_session import read_held

        lock, self.lock = self.lock, None
        try:
            self.session = read_held(self.store, self.session_id, lock)  # lets it go if it fails
        except Exception:
            self.discard()
            return False
        return True

    def discard(self) -> None:
        """Not resumed after all (the build failed): the session's lock and the store let go."""
        from agent_tui.sessions.faults import STORE_ERRORS

        if self.session is not None:
            self.session.release()
        if self.lock is not None:
            self.lock.release()
            self.lock = None
        with contextlib.suppress(*STORE_ERRORS):
            self.store.close()


def read_ahead(options: Options) -> ReadAhead | None:
    """In the boot worker, before the agent is built: take the session to resume and read the
    end of its conversation. None when there is none to resume, or when reading it fails in
    any way (not found, recorded by another agent-tui, a store that won't open): the boot then
    meets the same case as it always did and says it, or asks, as before."""
    if not (options.continue_ or options.resume):
        return None
    from agent_tui.sessions.faults import STORE_ERRORS
    from agent_tui.sessions.store import SessionStore
    from agent_tui.sessions.stored_session import find_session, read_tail, stored_runs, take_lock
    from agent_tui.ui.controllers.sessions import RESUME_TAIL

    try:
        store = SessionStore.open_default()
    except Exception:  # said by the boot, which tries again
        return None
    lock: SessionLock | None = None
    try:
        info = find_session(store, options)
        if info is not None:
            lock = take_lock(store, info.id, fork=options.fork_session)
            tail = read_tail(store, info.id, 2 * RESUME_TAIL)  # the first page, and one more
            try:
                runs = stored_runs(store, info.id)
            except STORE_ERRORS:  # the history shows without its audit rows, as before
                runs = {}
            return ReadAhead(store, info.id, tail, runs, lock)
    except Exception:  # the boot meets it again, and says it
        if lock is not None:
            lock.release()
    with contextlib.suppress(*STORE_ERRORS):
        store.close()
    return None


def boot_agent(
    options: Options,
    *,
    record: bool,
    ask_yes_no: Callable[[str], bool],
    ask: AskFn | None = None,
    confirm_spend: SpendFn | None = None,
    read: ReadAhead | None = None,
) -> Booted:
    """Build the agent (`runtime.make_agent`, asking approvals through `ask`, the spending cap
    through `confirm_spend`) and, if `record`, its session (from `read`, if the session to
    resume was read ahead). Raises what `make_agent` raises (the app says it in the chat)."""
    from agent_tui.runtime import make_agent

    if read is not None and read.session is None and not read.read_all():
        read = None  # the whole could not be read: resumed as always, which says why
    try:
        booted = Booted(make_agent(options, ask, confirm_spend))
    except BaseException:
        if read is not None:
            read.discard()
        raise
    if record:
        record_session(booted, options, ask_yes_no, read)
    elif read is not None:
        read.discard()
    recorder, agent = booted.recorder, booted.agent
    if read is not None and recorder is not None and recorder.store is read.store:
        booted.runs = read.runs
    elif recorder is not None and recorder.session_id and agent.messages:
        from agent_tui.sessions.faults import STORE_ERRORS
        from agent_tui.sessions.stored_session import stored_runs

        with contextlib.suppress(*STORE_ERRORS):  # the history shows without its audit rows
            booted.runs = stored_runs(recorder.store, recorder.session_id)
    return booted


def record_session(
    booted: Booted,
    options: Options,
    ask_yes_no: Callable[[str], bool],
    read: ReadAhead | None = None,
) -> None:
    """The session's recorder (resuming the session asked for, or the one `read` ahead), and
    what to tell the person if it went otherwise."""
    from agent_tui.sessions.recorder import attach_recorder
    from agent_tui.sessions.records import StoreUnavailable
    from agent_tui.sessions.session_lock import SessionInUse

    agent = booted.agent
    try:
        try:
            if read is not None and read.session is not None:
                booted.recorder = attach_recorder(agent, options, read.store, stored=read.session)
            else:
                booted.recorder = attach_recorder(agent, options)
        except LookupError as exc:  # --resume with an unknown id: say so, record a new one
            fresh = replace(options, resume=None, continue_=False)
            booted.note = f"Could not resume: {exc}. This is a new session (ctrl+o lists them)."
            booted.recorder = attach_recorder(agent, fresh)
        except SessionInUse as exc:  # another agent-tui records it: a copy, or a new one
            if ask_yes_no(f"{exc}. {FORK_QUESTION}"):
                forked = replace(options, fork_session=True)
                booted.note = f"{exc}: this is a copy of it (a fork); the other one goes on there."
                booted.recorder = attach_recorder(agent, forked)
            else:
                fresh = replace(options, resume=None, continue_=False)
                booted.note = f"{exc}: this is a new session."
                booted.recorder = attach_recorder(agent, fresh)
    except StoreUnavailable as exc:
        booted.store_unavailable = True
        booted.note = (
            f"This session is not being recorded: {exc}. The file is left as it is: move it "
            "aside, and the next prompt records this session in a new one (/export saves a "
            "transcript meanwhile)."
        )
    except Exception as exc:  # a bug: the session goes on unrecorded, said in one line
        booted.note = f"This session is not being recorded: {type(exc).__name__}: {exc}."
