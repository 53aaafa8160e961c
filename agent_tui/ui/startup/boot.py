"""The boot flow: building the agent after the first frame, off the UI thread, and handing it to
the screen; what the person is told when part of it can't be had — a session database that won't
open (the session runs, unrecorded), an unknown `--resume` id (a new session), or a build that
fails outright (said in the chat, rather than "starting…" for ever). The build itself is a
function (`booting.boot_agent`) run in the boot worker; this is its UI side, with the questions
the agent asks of the screen (approvals, the spending cap, trusting the project's settings). A
collaborator of the app, through a small host protocol (`BootHost`)."""

from __future__ import annotations

import logging
import threading
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui import debug_log, speedups
from agent_tui.ui.chat.messages import NoticeMessage
from agent_tui.ui.startup.gc_tuning import freeze_settled, tune_gc
from agent_tui.ui.startup.preload import READ_AHEAD_MODULES, IdleImports
from agent_tui.ui.views import activity
from agent_tui.ui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from textual.app import App

    from agent_tui.agent.budget import CapQuestion
    from agent_tui.agent.loop import Agent
    from agent_tui.permissions.types import ApprovalAnswer, ApprovalRequest
    from agent_tui.protocol.events import Event
    from agent_tui.runtime import Options
    from agent_tui.sessions.recorder import Recorder
    from agent_tui.sessions.stored_session import StoredTail
    from agent_tui.ui.chat.messages import ChatView
    from agent_tui.ui.controllers.approval_queue import ApprovalQueue
    from agent_tui.ui.controllers.notifier import Notifier
    from agent_tui.ui.controllers.session_settings import SessionSettings
    from agent_tui.ui.controllers.sessions import Sessions
    from agent_tui.ui.controllers.turns import TurnController
    from agent_tui.ui.screens.main import MainScreen
    from agent_tui.ui.views.event_view import EventView
    from agent_tui.ui.widgets.status import StatusLine

log = logging.getLogger(__name__)

STARTING = "Starting up: your prompt will be sent in a moment."
FAILED = "The agent could not start (see the chat): prompts can't be sent in this run."
#: the longest the boot worker waits for a resumed conversation's first frame (`_show_early`)
EARLY_FRAME_WAIT = 0.5


class BootHost(Protocol):
    """What the boot flow needs of the app besides Textual's `App` API: where the built agent
    goes, and the collaborators that take over once it is there."""

    agent: Agent | None
    recorder: Recorder | None
    approvals: ApprovalQueue | None
    view: EventView | None
    options: Options
    record: bool
    #: the garbage collector's settings are the app's to make (`gc_tuning`): the entry point's
    tune_collector: bool
    notifier: Notifier
    turns: TurnController
    sessions: Sessions
    settings: SessionSettings

    @property
    def main(self) -> MainScreen: ...

    @property
    def chat(self) -> ChatView: ...

    @property
    def status(self) -> StatusLine: ...

    @property
    def live_view(self) -> EventView: ...

    def on_agent_event(self, event: Event) -> None: ...

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None: ...


class BootFlow:
    def __init__(self, app: App[Any], host: BootHost) -> None:
        self.app = app
        self.host = host
        #: why the agent could not be built, if it could not (`failed`)
        self.error: str | None = None
        #: the session database couldn't be opened at the start (`retry_recording` tries again)
        self.store_unavailable = False
        #: a resumed session's reading modules, imported while the first frame waits (`preload`)
        self.idle_imports: IdleImports | None = None

    @property
    def waiting_note(self) -> str:
        """What a prompt sent before the agent is ready is told."""
        return FAILED if self.error else STARTING

    # --- the boot ---

    @property
    def reads_ahead(self) -> bool:
        """The boot reads the session to resume before it builds the agent (`--resume ID`,
        `--continue`, recorded): `booting.read_ahead`."""
        options = self.host.options
        return self.host.record and bool(options.resume or options.continue_)

    def preload(self) -> None:
        """The first screen is mounted, its first frame waits for Textual's frame tick: a
        resumed session's boot imports what reads and draws its end meanwhile
        (`preload.READ_AHEAD_MODULES`), until `start`. A new session's does nothing before
        that frame (`preload`'s docstring says why)."""
        if self.reads_ahead:
            self.idle_imports = IdleImports(READ_AHEAD_MODULES)
            self.idle_imports.start()

    def start(self) -> None:
        """After the first frame: build the agent in the boot worker (a resumed session's end
        is drawn first, `_boot`). The build begins with the system prompt's `git status`
        (`runtime.make_agent`), in a thread of its own while the agent's modules load; until
        2026-12-07 it began as the first screen was mounted, and its imports and the thread's
        start took 5-7 ms from the first frame (BENCHMARKS.md)."""
        if self.idle_imports is not None:
            self.idle_imports.stop()
        self.app.run_worker(self._boot, thread=True, group="boot", exit_on_error=False)

    def _boot(self) -> None:
        """In the boot worker: build the agent (`booting.boot_agent`) and hand it to the UI
        thread; then what the first turn would otherwise wait for."""
        from agent_tui.ui.startup.booting import boot_agent, read_ahead

        app, host = self.app, self.host
        # `--resume`/`--continue`: the conversation shows first, then the agent is built.
        read = read_ahead(host.options) if self.reads_ahead else None
        if read is not None and read.tail.messages:
            # The markdown the end is drawn with (most of that frame's CPU otherwise), loaded
            # here, not on the UI thread while this one reads: two threads taking turns on the
            # interpreter's lock can stall each other on a busy machine, a thread waiting for it
            # waiting for the OS to run the other. (Measured in balanced order, neither faster
            # nor slower beyond the noise of loaded runs: BENCHMARKS.md, issue 34, sixth session.)
            from agent_tui.ui.chat.markdown_pieces import load_markdown

            load_markdown()
            self._show_early(read.tail, read.runs)
        if read is not None and not read.read_all():  # the whole, once its end is on screen
            read = None  # resumed as always, which says what fails
        from agent_tui.runtime import warm_up
        from agent_tui.ui.controllers.approval_queue import ApprovalQueue
        from agent_tui.ui.controllers.stamp_guard import StampGuard, load_settings
        from agent_tui.ui.views.rule_preview import rule_preview

        try:
            booted = boot_agent(
                host.options,
                record=host.record,
                ask_yes_no=partial(_ask_yes_no, app),
                ask=self.ask_approval,
                confirm_spend=self.confirm_spend,
                read=read,
            )
        except Exception as exc:  # a broken install or a bug: said, not a silent "starting…"
            app.call_from_thread(self.failed, exc)
            return
        agent = booted.agent
        self.store_unavailable, host.sessions.runs = booted.store_unavailable, booted.runs
        approvals = ApprovalQueue(
            type_ahead=partial(app.call_later, self._type_ahead),
            typed_at=self._typed_at,
            stamp=StampGuard(load_settings()),
            simulate=lambda rules: rule_preview(agent, host.sessions.store, rules),
            on_show=lambda request: host.notifier.approval(request.tool, request.subject),
            settled=lambda: host.live_view.settled(),
        )
        app.call_from_thread(self.ready, agent, booted.recorder, approvals, booted.note)
        app.call_from_thread(self._settle)  # on the UI thread: it patches how Textual paints
        # the sandbox's probe (a bwrap run or two): here, off the way to a ready prompt
        notes = agent.startup_notes()
        for note in notes.sandbox_notices():
            app.call_from_thread(host.chat.append, NoticeMessage(note, "warning"))
        held = notes.held_changes()
        if held:  # a command's changes that never landed (stopped, or the app was killed)
            app.call_from_thread(host.chat.append, NoticeMessage(held, "info"))
        from agent_tui.ui.widgets.approval_parts import warm_up_dialog

        warm_up_dialog()  # the first approval's dialog and highlighter, loaded ahead of it
        from agent_tui.ui.chat.markdown_pieces import warm_up_markdown

        warm_up_markdown()  # the first answer's markdown parser and lexers
        warm_up(agent)  # tools, shell analysis, the SDK: loaded now, not on the first turn
        unready = notes.provider_problem()
        if unready:  # Bedrock/Vertex without region or credentials: said now, not at a prompt
            app.call_from_thread(host.chat.append, NoticeMessage(unready, "error"))
        if host.tune_collector:
            freeze_settled()

    def _show_early(self, tail: StoredTail, runs: dict[str, Any]) -> None:
        """From the boot worker: the resumed conversation's end goes on screen, and the build
        waits for its frame to be painted (a moment at most), so reading the rest and the
        agent's imports don't take the CPU from the frame the person is waiting for."""
        painted = threading.Event()

        def show() -> None:
            self.host.sessions.show_early(tail, runs, on_shown=painted.set)

        try:
            self.app.call_from_thread(show)
        except Exception:  # a bug drawing it: the agent is built all the same, and draws it
            log.exception("drawing the resumed conversation early failed")
            return
        painted.wait(EARLY_FRAME_WAIT)

    def ready(
        self, agent: Agent, recorder: Recorder | None, approvals: ApprovalQueue, error: str | None
    ) -> None:
        """On the UI thread: the agent is built. It goes to the app, its events to the screen,
        and what the person should know about the start is said."""
        host = self.host
        host.agent, host.recorder, host.approvals = agent, recorder, approvals
        # After the agent, so a prompt is taken sooner (it has no events yet).
        host.view = host.main.mount_side()
        if agent.config.shells is not None:
            host.main.tool_pane.shells.follow(agent.config.shells)
        agent.listeners.append(host.on_agent_event)
        from agent_tui.ui.controllers.questions import ask_question

        agent.config.ask_user = partial(ask_question, self.app, host)  # AskUserQuestion's
        from agent_tui.agent.context import context_window

        view = host.live_view
        # asked at each answer: the model can be switched (and its table read then, not now)
        view.window = lambda: context_window(host.agent.config.model) if host.agent else 0
        view.page_from(lambda: (host.agent.messages if host.agent else [], host.sessions.runs))
        if agent.session_cost or agent.session_usage.total_tokens:  # a resumed session
            view.set_totals(agent.session_usage, agent.session_cost)
        status = host.status
        status.model = agent.provider.label
        status.thinking = agent.config.thinking_budget or 0
        activity.ready(status)
        if recorder is not None and recorder.session_id:
            status.session = recorder.session_id
        say = host.chat.append
        if error:
            say(NoticeMessage(error, "error"))
        if (debug := debug_log.current()) is not None:
            say(NoticeMessage(f"Debug log: {debug} (/doctor: what this run stands on)", "info"))
        if agent.memory_files and not agent.messages:
            names = ", ".join(m.label for m in agent.memory_files)
            say(NoticeMessage(f"Memory loaded: {names}", "info"))
        notes = agent.startup_notes()
        for warning in notes.settings():
            say(NoticeMessage(f"Settings: {warning}", "warning"))
        grants = notes.trust_question()
        if grants:
            from agent_tui.ui.screens.trust import TrustScreen

            self.app.push_screen(TrustScreen(str(host.options.cwd), grants), self._on_trust)
        host.sessions.agent_ready()  # a resumed session's history
        if not grants:  # else once the project is trusted or not: its settings decide the turn
            self._send_first()
        host.settings.start_mcp()
        from agent_tui.ui.controllers.status_command import start_status_command

        start_status_command(self.app, host)  # [ui] status_command (its interval keeps it)
        host.sessions.take_pending()  # chosen in the `--resume` picker meanwhile

    def failed(self, exc: Exception) -> None:
        self.error = f"{type(exc).__name__}: {exc}"
        self.host.chat.append(
            NoticeMessage(
                f"The agent could not start: {self.error}. Nothing can be sent in this run; "
                "ctrl+q quits.",
                "error",
            )
        )
        activity.could_not_start(self.host.status)
        self._settle()

    def _settle(self) -> None:
        """On the UI thread, once the first frame is painted and the agent built (or not):
        the speed-ups to Textual, and the collector's settings if the entry point asked for them."""
        speedups.apply_textual()
        if self.host.tune_collector:
            tune_gc()

    def retry_recording(self) -> None:
        """Before a prompt is sent: if the session database couldn't be opened at the start, try
        again (the person may have moved the file aside); the conversation so far goes into a
        new session, and the chat says so."""
        if not self.store_unavailable or self.host.agent is None:
            return
        from agent_tui.sessions.recorder import record_from_here
        from agent_tui.sessions.records import StoreUnavailable
        from agent_tui.sessions.store import SessionStore

        try:
            store = SessionStore.open_default()
        except StoreUnavailable:
            return  # said at the start already
        self.store_unavailable = False
        self.host.recorder = record_from_here(store, self.host.agent)
        self.host.chat.append(
            NoticeMessage("Recording started: this session so far is saved, and what follows.")
        )

    # --- what the agent asks of the screen ---

    async def ask_approval(self, request: ApprovalRequest) -> ApprovalAnswer:
        activity.awaiting_approval(self.host.status, request.tool)
        assert self.host.approvals is not None, "the agent asks only once it is built"
        try:
            return await self.host.approvals.ask(self.app, request)
        finally:
            activity.working(self.host.status)

    def _typed_at(self) -> float | None:
        # (found where it sits, near the top: `query` would walk every widget of the chat)
        prompt = self.app.query_one_optional(PromptInput)
        return prompt.typed_at if prompt is not None else None

    def _type_ahead(self, key: str) -> None:
        """A key typed for the prompt as an approval dialog appeared: it goes to the prompt."""
        prompt = self.app.query_one(PromptInput)
        if key == "\b":
            prompt.action_delete_left()
        else:
            prompt.insert(key)

    async def confirm_spend(self, question: CapQuestion) -> bool:
        """At the spending cap the next request waits for the person's keystroke: raise the cap
        for this session (y), or stop (n). Amounts at the status line's precision."""
        import asyncio

        from agent_tui.ui.screens.confirm import ConfirmScreen

        answered: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        activity.at_spending_cap(self.host.status)
        screen = ConfirmScreen(question.text)
        self.app.push_screen(screen, lambda yes: answered.set_result(bool(yes)))
        try:
            return await answered
        finally:
            activity.working(self.host.status)

    def _send_first(self) -> None:
        """The prompts waiting for the agent: the command line's (`agent-tui "PROMPT"`, sent
        as if typed, once), then those typed while it started."""
        host = self.host
        if host.options.initial_prompt:
            first, host.options.initial_prompt = host.options.initial_prompt, None
            host.on_prompt_input_submitted(PromptInput.Submitted(first))
        self.app.call_later(host.turns.next_queued)

    def _on_trust(self, trusted: bool | None) -> None:
        from agent_tui.permissions.engine import PermissionEngine  # loaded with the agent

        agent = self.host.agent
        assert agent is not None, "the trust question is asked once the agent is built"
        if isinstance(agent.permissions, PermissionEngine):
            agent.permissions.decide_trust(bool(trusted))
        if trusted:
            self.app.notify("This project's settings now apply.")
            if agent.mcp is not None:
                agent.mcp.start_pending()
        else:
            self.host.chat.append(
                NoticeMessage(
                    "This project's own grants are ignored; its deny and ask rules apply.", "info"
                )
            )
        self._send_first()


def _ask_yes_no(app: Any, question: str) -> bool:
    """From the boot worker: a yes/no question (`confirm.ask_from_thread`), its screen's module
    (and Textual's Input) loaded only when one is asked, not on every start (issue 34)."""
    from agent_tui.ui.screens.confirm import ask_from_thread

    return ask_from_thread(app, question)
