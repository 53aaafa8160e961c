"""Building the agent after the first frame, off the UI thread, and what the person is told when
part of it can't be had: a session database that won't open (the session runs, unrecorded), an
unknown `--resume` id (a new session), or a build that fails outright (said in the chat, rather
than "starting…" for ever). The build itself is a function (`booting.boot_agent`) this runs in
the boot worker; what it does with the result on screen is still a mixin of `AgentApp`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING

from agent_tui.ui import patches
from agent_tui.ui.app_parts import AppParts
from agent_tui.ui.startup import css_cache
from agent_tui.ui.startup.gc_tuning import freeze_settled, tune_gc
from agent_tui.ui.widgets.chat import NoticeMessage
from agent_tui.ui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from agent_tui.agent.budget import CapQuestion
    from agent_tui.agent.loop import Agent
    from agent_tui.permissions.types import ApprovalAnswer, ApprovalRequest
    from agent_tui.runtime import Options
    from agent_tui.sessions.recorder import Recorder
    from agent_tui.ui.controllers.approval_queue import ApprovalQueue
    from agent_tui.ui.controllers.notifier import Notifier
    from agent_tui.ui.controllers.sessions import Sessions

STARTING = "Starting up: your prompt will be sent in a moment."
FAILED = "The agent could not start (see the chat): prompts can't be sent in this run."


class Boot(AppParts):
    # Provided by AgentApp.
    options: Options
    record: bool
    sessions: Sessions
    #: the garbage collector's settings are the app's to make (`gc_tuning`): the entry point's
    tune_collector: bool = False
    #: why the agent could not be built, if it could not (`_boot_failed`)
    boot_error: str | None = None
    recorder: Recorder | None
    notifier: Notifier
    #: the session database couldn't be opened at the start (`retry_recording` tries again)
    store_unavailable: bool = False
    #: the sources whose parsed rules came from the last run (`css_cache.load`)
    _css_loaded: frozenset[tuple[object, ...]] = frozenset()
    #: the sources this run has kept for the next one (`keep_first_screen_css`)
    _css_kept: frozenset[tuple[object, ...]] = frozenset()

    # Declared, not defined: `AgentApp` defines them.
    _agent_ready: Callable[[Agent, Recorder | None, ApprovalQueue, str | None], None]
    _ask: Callable[[ApprovalRequest], Awaitable[ApprovalAnswer]]

    # --- what the agent asks of the screen ---

    def _type_ahead(self, key: str) -> None:
        """A key typed for the prompt as an approval dialog appeared: it goes to the prompt."""
        prompt = self.query_one(PromptInput)
        if key == "\b":
            prompt.action_delete_left()
        else:
            prompt.insert(key)

    async def _confirm_spend(self, question: CapQuestion) -> bool:
        """At the spending cap the next request waits for the person's keystroke: raise the cap
        for this session (y), or stop (n). Amounts at the status line's precision."""
        import asyncio

        from agent_tui.ui.screens.confirm import ConfirmScreen

        answered: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.status.activity = "at the spending cap: waiting for you"
        screen = ConfirmScreen(question.text)
        self.push_screen(screen, lambda yes: answered.set_result(bool(yes)))
        try:
            return await answered
        finally:
            self.status.activity = "working…"

    # --- the boot ---

    @property
    def waiting_note(self) -> str:
        """What a prompt sent before the agent is ready is told."""
        return FAILED if self.boot_error else STARTING

    def _start_boot(self) -> None:
        self.run_worker(self._boot, thread=True, group="boot", exit_on_error=False)

    def _boot(self) -> None:
        """In the boot worker: build the agent (`booting.boot_agent`) and hand it to the UI
        thread; then what the first turn would otherwise wait for."""
        from agent_tui.runtime import warm_up
        from agent_tui.ui.controllers.approval_queue import ApprovalQueue
        from agent_tui.ui.controllers.stamp_guard import StampGuard, load_settings
        from agent_tui.ui.screens.confirm import ask_from_thread
        from agent_tui.ui.startup.booting import boot_agent
        from agent_tui.ui.views.rule_preview import rule_preview

        try:
            booted = boot_agent(
                self.options,
                record=self.record,
                ask_yes_no=partial(ask_from_thread, self),
                ask=self._ask,
                confirm_spend=self._confirm_spend,
            )
        except Exception as exc:  # a broken install or a bug: said, not a silent "starting…"
            self.call_from_thread(self._boot_failed, exc)
            return
        agent = booted.agent
        self.store_unavailable, self.sessions.runs = booted.store_unavailable, booted.runs
        approvals = ApprovalQueue(
            type_ahead=partial(self.call_later, self._type_ahead),
            stamp=StampGuard(load_settings()),
            simulate=lambda rules: rule_preview(agent, self.sessions.store, rules),
            on_show=lambda request: self.notifier.approval(request.tool, request.subject),
        )
        self.call_from_thread(self._agent_ready, agent, booted.recorder, approvals, booted.note)
        self.call_from_thread(self._settle)  # on the UI thread: it patches how Textual paints
        # the sandbox's probe (a bwrap run or two): here, off the way to a ready prompt
        for note in getattr(agent.config.sandbox, "start_notices", ()):
            self.call_from_thread(self.chat.append, NoticeMessage(note, "warning"))
        from agent_tui.ui.screens.approval import warm_up_dialog

        warm_up_dialog()  # the first approval's dialog and highlighter, loaded ahead of it
        warm_up(agent)  # tools, shell analysis, the SDK: loaded now, not on the first turn
        unready = getattr(agent.provider, "setup_error", None)
        if unready:  # Bedrock/Vertex without region or credentials: said now, not at a prompt
            self.call_from_thread(self.chat.append, NoticeMessage(unready, "error"))
        self.save_parsed_css()
        if self.tune_collector:
            freeze_settled()

    def retry_recording(self) -> None:
        """Before a prompt is sent: if the session database couldn't be opened at the start, try
        again (the person may have moved the file aside); the conversation so far goes into a
        new session, and the chat says so."""
        if not self.store_unavailable or self.agent is None:
            return
        from agent_tui.sessions.recorder import record_from_here
        from agent_tui.sessions.records import StoreUnavailable
        from agent_tui.sessions.store import SessionStore

        try:
            store = SessionStore.open_default()
        except StoreUnavailable:
            return  # said at the start already
        self.store_unavailable = False
        self.recorder = record_from_here(store, self.agent)
        self.chat.append(
            NoticeMessage("Recording started: this session so far is saved, and what follows.")
        )

    def keep_first_screen_css(self) -> None:
        """On the UI thread, once the first screen is styled and before it is painted: keep what
        a first start had to parse (~3 ms, first starts only), so that the next start takes it
        even if this one is cut short before the agent is ready (a quick quit, a kill, a probe
        that leaves at its first frame)."""
        data = css_cache.snapshot(self.stylesheet, self._css_loaded)
        if data is not None:
            css_cache.save(data)
            self._css_kept = frozenset(data["rules"])

    def save_parsed_css(self) -> None:
        """From the boot thread once the app is ready: keep the stylesheets parsed so far, for
        the next start (`css_cache`), unless they all came from the last one or were kept."""
        kept = self._css_loaded | self._css_kept
        data = self.call_from_thread(css_cache.snapshot, self.stylesheet, kept)
        if data is not None:
            css_cache.save(data)

    def _boot_failed(self, exc: Exception) -> None:
        self.boot_error = f"{type(exc).__name__}: {exc}"
        self.chat.append(
            NoticeMessage(
                f"The agent could not start: {self.boot_error}. Nothing can be sent in this run; "
                "ctrl+q quits.",
                "error",
            )
        )
        self.status.activity = "could not start"
        self._settle()

    def _settle(self) -> None:
        """On the UI thread, once the first frame is painted and the agent built (or not):
        Textual's patches, and the collector's settings if the entry point asked for them."""
        patches.apply_all()
        if self.tune_collector:
            tune_gc()
