"""The sessions controller: past sessions as the person moves between them — browse them (ctrl+o,
the palette, `/resume`), resume one in place, replay one on screen, start a new one (`/new`),
export this one (`/export`) — and the conversation drawn again after each. It owns the session
store opened for browsing, the stored tool runs of the session on screen, the replay, and a
choice made before the agent was built (the `--resume` picker). A collaborator of the app,
through a small host protocol (`SessionsHost`); the replay's host is this controller."""

from __future__ import annotations

import threading
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.ui.chat.messages import NoticeMessage
from agent_tui.ui.views import activity
from agent_tui.ui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.app import App
    from textual.widget import Widget

    from agent_tui.agent.loop import Agent
    from agent_tui.runtime import Options
    from agent_tui.sessions.recorder import Recorder
    from agent_tui.sessions.records import SessionInfo
    from agent_tui.sessions.store import SessionStore
    from agent_tui.sessions.stored_session import StoredTail
    from agent_tui.ui.chat.messages import ChatView
    from agent_tui.ui.controllers.replay import Replay
    from agent_tui.ui.screens.main import MainScreen
    from agent_tui.ui.screens.sessions import BrowserChoice
    from agent_tui.ui.views.event_view import EventView
    from agent_tui.ui.widgets.status import StatusLine

#: the most earlier messages a resumed session shows at first (fewer if they fill the view)
RESUME_TAIL = 40
RESUMED = "Session resumed."


class SessionsHost(Protocol):
    """What the sessions controller needs of the app besides Textual's `App` API."""

    agent: Agent | None
    recorder: Recorder | None
    options: Options
    record: bool

    @property
    def main(self) -> MainScreen: ...

    @property
    def chat(self) -> ChatView: ...

    @property
    def status(self) -> StatusLine: ...

    @property
    def live_view(self) -> EventView: ...


class Sessions:
    def __init__(self, app: App[Any], host: SessionsHost) -> None:
        self.app = app
        self.host = host
        #: the stored tool runs of the session on screen, by tool_use_id (history rows, approvals)
        self.runs: dict[str, Any] = {}
        #: the replay on screen, if any (see `replay.py`)
        self.replay: Replay | None = None
        #: a resume/replay chosen before the agent was built (the `--resume` picker)
        self.pending: BrowserChoice | None = None
        #: a resumed conversation drawn before the agent was built (`show_early`)
        self.shown_early: StoredTail | None = None
        self._store: SessionStore | None = None
        self._store_lock = threading.Lock()

    # --- what the replay uses (`ReplayHost`) ---

    @property
    def live_view(self) -> EventView:
        return self.host.live_view

    def make_view(self) -> EventView:
        return self.host.main.make_view()

    def store(self) -> SessionStore:
        """The recorder's store, or one opened just for browsing (callable from any thread)."""
        if self.host.recorder is not None:
            return self.host.recorder.store
        with self._store_lock:
            if self._store is None:
                from agent_tui.sessions.store import SessionStore

                self._store = SessionStore.open_default()
            return self._store

    # --- browsing ---

    def browse(self, review: str | None = None) -> None:
        """The sessions browser, optionally with an audit filter ("rule:<rule>", "denied"…)."""
        from agent_tui.ui.screens.sessions import SessionBrowser

        if isinstance(self.app.screen, SessionBrowser):
            return
        recorder = self.host.recorder
        current = recorder.session_id if recorder is not None else None
        browser = SessionBrowser(
            self.store, cwd=self.host.options.cwd, current_session=current, review=review
        )
        self.app.push_screen(browser, self.chosen)

    def chosen(self, choice: BrowserChoice | None) -> None:
        if choice is None:
            return
        if self.host.agent is None:  # still starting (the `--resume` picker): once it is ready
            self.pending = choice
            self.app.notify("Starting up: opening the session in a moment.")
        elif choice.action == "resume":
            self.resume(choice.session_id)
        else:
            self.start_replay(choice.session_id)

    def show_early(
        self, tail: StoredTail, runs: dict[str, Any], on_shown: Callable[[], object] | None = None
    ) -> None:
        """`--resume`/`--continue`, before the agent is built: the end of the stored conversation
        it is about to hold, read ahead by the boot (`booting.read_ahead`), drawn now; `on_shown`
        is called once the frame that shows it is painted."""
        self.runs = runs
        shown = self.show_history(tail=tail)
        self.shown_early = tail
        if on_shown is not None:
            if shown:
                self.host.chat.after_shown(shown[-1], on_shown)
            else:
                self.app.call_after_refresh(on_shown)

    def agent_ready(self) -> None:
        """The agent is built: a resumed session's history is drawn (or, drawn already while
        the agent was built, kept if the agent holds it as drawn, its pager now on the agent's
        own list), with its plan and the decisions it recorded."""
        agent = self.host.agent
        early, self.shown_early = self.shown_early, None
        if agent is None or not agent.messages:
            if early is not None:  # drawn, but the agent did not take it: not this session's
                self.app.call_later(self.redraw)
            return
        from agent_tui.ui.widgets.history import EarlierMessages
        from agent_tui.ui.widgets.plan import last_plan

        if early is not None and early.agrees(agent.messages):
            header = self.host.chat.header
            if isinstance(header, EarlierMessages):
                header.hold(agent.messages)  # it grows from here on
            self._decisions_shown()
            self.host.chat.append(NoticeMessage(RESUMED, "info"))
        elif early is not None:
            self.app.call_later(partial(self.redraw, notice=RESUMED))
        else:
            self.show_history(RESUMED)
        self.host.main.tool_pane.show_plan(last_plan(agent.messages) or [])

    def take_pending(self) -> None:
        """Act on a choice made in the `--resume` picker while the agent was being built."""
        if self.pending is not None:
            choice, self.pending = self.pending, None
            self.chosen(choice)

    def busy(self) -> bool:
        """True (and said) while the agent is starting or a turn runs."""
        agent = self.host.agent
        if agent is None:
            self.app.notify("Starting up: try again in a moment.")
        elif agent.running:
            self.app.notify("A turn is running: stop it first (Esc).", severity="warning")
        return agent is None or agent.running

    # --- resuming ---

    def resume(self, session_id: str) -> None:
        """Continue a stored session here: its conversation replaces the agent's, and recording
        goes on in that session."""
        if self.busy():
            return
        recorder = self.host.recorder
        here = recorder is not None and recorder.session_id == session_id
        if here and self.replay is None:
            self.app.notify("That is the session you are in.")
            return
        if self.replay is not None:
            self.replay.discard()
        activity.opening(self.host.status, session_id)
        load = partial(self._load, session_id)
        self.app.run_worker(load, thread=True, group="resume", exclusive=True, exit_on_error=False)

    def _load(self, session_id: str) -> None:
        from agent_tui.sessions.faults import STORE_ERRORS, describe
        from agent_tui.sessions.recorder import resume_into
        from agent_tui.sessions.records import StoreUnavailable
        from agent_tui.sessions.session_lock import SessionInUse
        from agent_tui.sessions.stored_session import stored_runs
        from agent_tui.ui.screens.confirm import ask_from_thread

        agent = self.host.agent
        assert agent is not None, "sessions are resumed once the agent is built (`busy`)"
        try:
            store = self.store()
            info = store.sessions.get(session_id)
            if info is None:
                self.app.call_from_thread(self._not_resumed, f"No session {session_id}.")
                return
            runs = stored_runs(store, session_id)
            old = self.host.recorder
            recorder: Recorder | None
            if self.host.record:
                backlog = old.backlog if old is not None else None
                try:
                    recorder = resume_into(store, agent, session_id, backlog=backlog)
                except SessionInUse as exc:  # another agent-tui records it: a copy, or nothing
                    if not ask_from_thread(self.app, f"{exc}. Go on in a copy of it (a fork)?"):
                        self.app.call_from_thread(self._not_resumed, f"Not resumed: {exc}.")
                        return
                    recorder = resume_into(store, agent, session_id, backlog=backlog, fork=True)
                    info = store.sessions.get(recorder.session_id or session_id) or info
                if old is not None:
                    old.detach()
            else:
                agent.conversation.messages[:] = store.messages.load(session_id)
                recorder = None
        except StoreUnavailable as exc:
            self.app.call_from_thread(self._not_resumed, f"Could not resume: {exc}.")
            return
        except STORE_ERRORS as exc:
            self.app.call_from_thread(self._not_resumed, f"Could not resume: {describe(exc)}.")
            return
        self.app.call_from_thread(self._loaded, recorder, info, runs)

    def _not_resumed(self, problem: str) -> None:
        self.app.notify(problem, severity="error", markup=False)
        activity.ready(self.host.status)

    def _loaded(self, recorder: Recorder | None, info: SessionInfo, runs: dict[str, Any]) -> None:
        self.runs = runs
        if recorder is not None:
            self.host.recorder = recorder
            self.host.status.session = info.id
        # The status line counts the whole session, as it would have had it never stopped.
        if self.host.agent is not None:
            self.host.agent.set_session_spend(info.usage, info.cost_usd)  # the cap's count too
        self.host.live_view.set_totals(info.usage, info.cost_usd)
        activity.ready(self.host.status)
        self.app.call_later(self._show_resumed)

    async def _show_resumed(self) -> None:
        await self.redraw(notice=RESUMED)
        self.app.query_one(PromptInput).focus()

    # --- the conversation on screen ---

    async def redraw(self, *, history: bool = True, notice: str | None = None) -> None:
        """Clear the chat and side panes, then draw the agent's conversation again."""
        await self.host.live_view.clear()
        self.host.live_view.show_totals()
        recorder = self.host.recorder
        self.host.status.session = recorder.session_id or "" if recorder is not None else ""
        agent = self.host.agent
        if history and agent is not None and agent.messages:
            self.show_history(notice)
        self.host.chat.anchor()

    def show_history(
        self, notice: str | None = None, tail: StoredTail | None = None
    ) -> list[Widget]:
        """The conversation's end (older messages page in as the person scrolls up): the
        agent's, or a stored `tail` before the agent is built (`show_early`). Returns the
        widgets of its first page, mounting."""
        from agent_tui.sessions.stored_session import StoredTail
        from agent_tui.ui.widgets.history import EarlierMessages, HistoryPager

        if tail is None:
            assert self.host.agent is not None
            tail = StoredTail(self.host.agent.messages, 0)
        chat = self.host.chat
        pager = HistoryPager(tail.messages, RESUME_TAIL, self.runs, offset=tail.first)
        # What fills two screens of the chat (the app's, before the chat's first layout),
        # estimated from the text: painted first and alone.
        width, height = chat.size
        rows = 2 * (height or self.app.size.height)
        shown = pager.first_page(rows=rows, width=max(20, width - 4))
        row = EarlierMessages(pager)
        chat.header = chat.append(row)  # pruning leaves it there
        chat.mount_all(shown)
        chat.call_after_refresh(row.fill_view)
        if self.host.agent is not None:  # the approvals pane is mounted with the agent
            self._decisions_shown()
        if notice:
            chat.append(NoticeMessage(notice, "info"))
        return shown

    def _decisions_shown(self) -> None:
        """The decisions of the session so far, as the approvals pane showed them live."""
        for decided in decisions_of(self.runs):
            self.host.main.approvals_log.add(decided)

    def start_replay(self, session_id: str, speed: float = 1.0) -> Replay | None:
        """Play a stored session's events on this screen (see `replay.py`); nothing is run."""
        from agent_tui.ui.controllers.replay import Replay

        if self.busy():
            return None
        if self.replay is not None:
            self.replay.discard()
        self.replay = Replay(self.app, self, session_id, speed)
        self.replay.start()
        return self.replay

    async def new(self) -> None:
        """Leave this session (it stays in the store) and start an empty one."""
        if self.busy():
            return
        from agent_tui.agent.conversation import Conversation
        from agent_tui.protocol.events import Usage

        agent = self.host.agent
        assert agent is not None
        from agent_tui.agent.turn_hooks import session_end

        await session_end(agent, "clear")
        old = self.host.recorder
        agent.conversation = Conversation()
        agent.set_session_spend(Usage(), 0.0)  # a new session: nothing spent, under its cap
        agent.compactor.used = 0
        agent.checkpoints.history, agent.checkpoints.next_id = [], 0
        if old is not None:
            from agent_tui.sessions.recorder import Recorder

            old.detach()
            self.host.recorder = Recorder(old.store, agent, backlog=old.backlog)
        self.host.live_view.set_totals(None, 0.0)
        await self.redraw(history=False)
        self.host.main.tool_pane.show_plan([])
        self.host.status.context = None
        self._say("New session. The previous one is in the sessions list (ctrl+o).")

    def _say(self, text: str) -> None:
        self.host.chat.append(NoticeMessage(text, "info"))

    # --- export ---

    def export(self, where: str) -> None:
        """`/export [PATH]`: this session's transcript as Markdown (written in a thread)."""
        from agent_tui.sessions.export import export_dir, export_file_name

        recorder, agent = self.host.recorder, self.host.agent
        session = recorder.session_id if recorder is not None else None
        if session is None and not (agent is not None and agent.messages):
            self._say("Nothing to export yet: this session has no messages.")
            return
        name = export_file_name(session or time.strftime("unrecorded-%Y%m%d-%H%M%S"))
        path = Path(where).expanduser() if where else export_dir() / name
        self.app.run_worker(lambda: self._export_to(session, path), thread=True)

    def _export_to(self, session: str | None, path: Path) -> None:
        """The stored transcript; while the session database fails (or never opened), the
        conversation in memory, so it can be kept anyway."""
        from agent_tui.sessions.export import memory_markdown, write_markdown
        from agent_tui.sessions.faults import STORE_ERRORS, describe

        recorder, agent = self.host.recorder, self.host.agent
        why: str | None = None  # why the store can't give the transcript
        if recorder is not None and recorder.unrecorded:
            why = recorder.backlog.failure
        elif recorder is None or session is None:
            why = "it couldn't be opened"
        try:
            if why is None and recorder is not None and session is not None:
                try:
                    write_markdown(recorder.store, session, path)
                except OSError:
                    raise  # the file written
                except STORE_ERRORS as exc:
                    why = describe(exc)
            if why is not None and agent is not None:
                text = memory_markdown(
                    list(agent.messages), cwd=str(agent.config.cwd), model=agent.config.model,
                    why=why,
                )  # fmt: skip
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
        except OSError as exc:
            self.app.call_from_thread(
                self.app.notify, f"Export failed: {exc}", severity="error", markup=False
            )
            return
        self.app.call_from_thread(self._say, f"Transcript written to {path}")


def decisions_of(runs: dict[str, Any]) -> list[Any]:
    """`ApprovalDecided` events rebuilt from stored tool runs, oldest first."""
    from agent_tui.protocol.events import ApprovalDecided
    from agent_tui.tools.subject import tool_subject

    return [
        ApprovalDecided(
            run.tool_use_id,
            run.tool,
            tool_subject(run.tool, run.input),
            run.decision,
            run.decided_by or "rule",
            run.rule,
        )
        for run in runs.values()
        if run.decision in ("allow", "deny")
    ]
