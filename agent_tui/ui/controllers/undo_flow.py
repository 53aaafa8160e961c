"""`/undo` and `/rewind`: take back what the agent changed on disk, with a preview first, and go
back to an earlier prompt. The plans and restores run in a thread (they read files and call git);
the person answers in `RestoreScreen` / `RewindScreen`. A collaborator of the app, through a
small host protocol (`UndoHost`), as the replay is (`replay.py`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.ui.chat.messages import NoticeMessage
from agent_tui.ui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from textual.app import App

    from agent_tui.agent.loop import Agent
    from agent_tui.checkpoints.restore import RestorePlan
    from agent_tui.protocol.events import FilesRestored
    from agent_tui.sessions.recorder import Recorder
    from agent_tui.ui.chat.messages import ChatView
    from agent_tui.ui.controllers.sessions import Sessions
    from agent_tui.ui.screens.restore import RewindChoice, RewindPoint


class UndoHost(Protocol):
    """What the undo flow needs of the app besides Textual's `App` API."""

    agent: Agent | None
    recorder: Recorder | None

    #: busy or not, the store, the browser, the conversation drawn again (`sessions.py`)
    sessions: Sessions

    @property
    def chat(self) -> ChatView: ...


class UndoFlow:
    def __init__(self, app: App[Any], host: UndoHost) -> None:
        self.app = app
        self.host = host

    def permissions(self) -> None:
        """The rules in force, by source, with how often each fired; delete one at once."""
        from agent_tui.ui.screens.permissions import PermissionsScreen

        engine = self.host.agent.permissions if self.host.agent is not None else None
        if engine is None or not hasattr(engine, "remove_rule"):
            self.app.notify("Starting up: try again in a moment.")
            return
        cwd = self.host.agent.config.cwd if self.host.agent is not None else None

        def counts() -> dict[str, int]:
            from agent_tui.sessions.faults import STORE_ERRORS

            try:
                return self.host.sessions.store().runs.rule_counts(cwd)
            except STORE_ERRORS:  # the rules are listed without how often each fired
                return {}

        def chosen(review: str | None) -> None:
            if review:
                self.host.sessions.browse(review)

        from agent_tui.ui.views.rule_preview import rule_preview

        agent, open_store = self.host.agent, self.host.sessions.store
        preview = lambda rules, behavior: rule_preview(agent, open_store, rules, behavior)  # noqa: E731

        def own_write() -> AbstractContextManager[None]:
            assert self.host.agent is not None and cwd is not None
            project = [cwd / ".agent-tui" / n for n in ("settings.toml", "settings.local.toml")]
            return self.host.agent.checkpoints.own_writes(project)

        self.app.push_screen(PermissionsScreen(engine, counts, preview, own_write), chosen)

    def undo(self) -> None:
        """Put back the files the last turn with changes changed (after a preview)."""
        if self.host.sessions.busy():
            return
        assert self.host.agent is not None
        history = self.host.agent.checkpoints.history
        if not history:
            self.host.chat.append(
                NoticeMessage("Nothing to undo: no turn of this session changed files.", "info")
            )
            return
        title = f"Undo the file changes of: {history[-1].prompt.splitlines()[0][:70]}"
        self._plan_then(None, lambda plan: self._preview(title, plan, None))

    def held_changes(self) -> None:
        """`/changes`: the sandboxed commands' change sets that never landed, one by one, file
        by file; what the person applies is a checkpoint undo can take back."""
        agent = self.host.agent
        sandbox = agent.config.sandbox if agent is not None else None
        if agent is None or sandbox is None or sandbox.mode == "off":
            text = "No change sets here: commands run without the sandbox's overlay."
            self.host.chat.append(NoticeMessage(text, "info"))
            return

        async def work() -> None:
            from functools import partial

            from agent_tui.sandbox import held
            from agent_tui.sandbox.transaction import held_sets

            found = await asyncio.to_thread(held_sets, sandbox.changes_base, sandbox.cwd)
            if not found:
                self.host.chat.append(NoticeMessage("No change set waits for you.", "info"))
                return
            for one in found:
                ask = partial(agent.approvals.review_changes, "", "Bash")
                settled = await held.review(one, ask, blobs=agent.checkpoints.blobs)
                if settled.entries:
                    label = f"the held changes of `{held.short(one.command)}`"
                    agent.checkpoints.record_applied(label, settled.entries)
                if settled.applied and settled.held:
                    text = f"Applied {len(settled.applied)} file(s); the rest stays held."
                elif settled.applied:
                    text = f"Applied {len(settled.applied)} file(s) (/undo takes them back)."
                elif settled.held:
                    text = "Nothing applied: the change set stays held (/changes again)."
                else:
                    text = "Nothing applied; the change set is dropped."
                self.host.chat.append(NoticeMessage(text, "info"))

        self.app.run_worker(work(), group="held-changes", exclusive=True, exit_on_error=False)

    def _plan_then(self, to: int | None, then: Callable[[RestorePlan], None]) -> None:
        assert self.host.agent is not None
        checkpoints = self.host.agent.checkpoints

        def work() -> None:
            plan = checkpoints.plan(to)
            if plan is not None:
                self.app.call_from_thread(then, plan)

        self.app.run_worker(work, thread=True, group="restore", exit_on_error=False)

    def _preview(self, title: str, plan: RestorePlan, after: Callable[[], Any] | None) -> None:
        from agent_tui.ui.screens.restore import RestoreScreen

        assert self.host.agent is not None
        checkpoints = self.host.agent.checkpoints

        def answered(chosen: frozenset[Path] | None) -> None:
            if chosen is None:
                if after is not None and not plan.changes:
                    after()  # nothing to restore: the conversation part still goes ahead
                return

            def work() -> None:
                done = checkpoints.restore(plan, chosen)
                self.app.call_from_thread(self._restored, done, after)

            self.app.run_worker(work, thread=True, group="restore", exit_on_error=False)

        self.app.push_screen(RestoreScreen(title, plan, self.host.agent.config.cwd), answered)

    def _restored(self, done: FilesRestored, after: Callable[[], Any] | None) -> None:
        parts = [f"Restored {len(done.restored)} file(s)."]
        if done.kept:
            parts.append(f"Left as they are: {', '.join(done.kept)}.")
        self.host.chat.append(NoticeMessage(" ".join(parts), "warning" if done.kept else "info"))
        if after is not None:
            after()

    # --- rewind ---

    def rewind_points(self) -> list[RewindPoint]:
        from agent_tui.agent.loop import RESUME_PROMPT
        from agent_tui.agent.stop_reasons import LENGTH_PROMPT
        from agent_tui.protocol.content import text_of
        from agent_tui.ui.screens.restore import RewindPoint

        assert self.host.agent is not None
        messages = self.host.agent.messages
        history = self.host.agent.checkpoints.history
        points = []
        for index in self.host.agent.conversation.prompt_starts():
            text = text_of(messages[index]["content"], "\n")
            if text in (LENGTH_PROMPT, RESUME_PROMPT):
                continue  # what the app sends to go on after a cut: no place to rewind to
            files = {f["path"] for c in history if c.message_index >= index for f in c.files}
            points.append(RewindPoint(index, text, len(files)))
        return points

    def rewind(self) -> None:
        """Go back to just before an earlier prompt: its files, its conversation, or both."""
        from agent_tui.ui.screens.restore import RewindScreen

        if self.host.sessions.busy():
            return
        points = self.rewind_points()
        if not points:
            self.host.chat.append(NoticeMessage("Nothing to rewind: no prompt yet.", "info"))
            return
        self.app.push_screen(RewindScreen(points), self._rewind_chosen)

    def _rewind_chosen(self, choice: RewindChoice | None) -> None:
        if choice is None or self.host.agent is None:
            return

        def conversation() -> None:
            self.app.run_worker(self._rewind_conversation(choice), group="restore")

        later = [
            c
            for c in self.host.agent.checkpoints.history
            if c.message_index >= choice.message_index
        ]
        if choice.scope in ("files", "both") and later:
            first_line = choice.prompt.strip().splitlines()[0][:70] if choice.prompt.strip() else ""
            then = conversation if choice.scope == "both" else None
            self._plan_then(
                later[0].checkpoint,
                lambda plan: self._preview(f"Rewind files to before: {first_line}", plan, then),
            )
            return
        if choice.scope == "files":
            self.host.chat.append(NoticeMessage("No file changes since that prompt.", "info"))
            return
        conversation()

    async def _rewind_conversation(self, choice: RewindChoice) -> None:
        """The conversation goes on from before the chosen prompt, in a new session (the old one
        keeps everything); the prompt comes back into the box to edit and send again."""
        from agent_tui.agent.conversation import Conversation

        agent = self.host.agent
        assert agent is not None
        upto = choice.message_index
        old = self.host.recorder
        if old is not None:
            from agent_tui.sessions.faults import STORE_ERRORS, describe
            from agent_tui.sessions.fork import fork_session
            from agent_tui.sessions.recorder import Recorder

            try:
                session = await asyncio.to_thread(
                    fork_session, old.store, agent, old.session_id, upto
                )
            except STORE_ERRORS as exc:  # nothing changed: the conversation stays as it was
                why = f"the session database failed: {describe(exc)}"
                self.host.chat.append(NoticeMessage(f"Not rewound: {why}.", "error"))
                return
        previous = agent.conversation
        agent.conversation = Conversation(previous.messages[:upto])
        if previous.summary is not None and 0 < previous.start < upto:
            agent.conversation.compact(previous.start, previous.summary)
        agent.checkpoints.forget_after(upto)
        if old is not None:
            old.detach()
            self.host.recorder = Recorder(old.store, agent, session, backlog=old.backlog)
        await self.host.sessions.redraw(
            history=bool(agent.messages),
            notice="Rewound. The conversation goes on from here in a new session; the old one "
            "is in the sessions list (ctrl+o).",
        )
        if not agent.messages:
            self.host.chat.append(NoticeMessage("Rewound to the start of the session.", "info"))
        prompt = self.app.query_one(PromptInput)
        prompt.text = choice.prompt
        prompt.focus()
