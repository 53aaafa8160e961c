"""Slash commands in the prompt box: a `/` at the start lists the commands as you type (Tab
completes the first), Enter runs one. Built-ins map to what the palette and keys do; the
person's own commands (`slash_commands.load_user_commands`) become prompts. A `/word` that is
no command asks before it goes to the model as text."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.widgets import TextArea

from agent_tui.ui.app_parts import AppParts
from agent_tui.ui.widgets.chat import NoticeMessage
from agent_tui.ui.widgets.prompt import MAX_HINTS, PromptInput, SlashHints

# The command table loads with the first command typed, not with the first frame.
if TYPE_CHECKING:
    from agent_tui.sessions.recorder import Recorder
    from agent_tui.slash_commands import SlashCommand
    from agent_tui.ui.controllers.modes import PermissionModes
    from agent_tui.ui.controllers.turns import TurnController


class SlashActions(AppParts):
    recorder: Recorder | None
    record: bool
    turns: TurnController
    modes: PermissionModes
    _user_commands: list[SlashCommand] | None = None
    #: the command files as last read (`commands_signature`): read again when they change
    _commands_seen: tuple[Any, ...] = ()
    #: the project's files for the `@` picker (loaded once, on the first `@`)
    _project_files: list[str] | None = None

    # --- what the mixin uses of the app and its other mixins ---

    def send_prompt(self, text: str) -> None:
        """Send `text` as a prompt now, or after the running turn (as Enter does)."""
        self.turns.send(text)

    # Declared, not defined: another part of the app defines them (a declaration can't hide the
    # real method the way a placeholder earlier in the MRO could).
    action_compact: Callable[[], None]
    action_switch_model: Callable[[], None]
    use_model: Callable[[str], None]

    # --- the commands ---

    @property
    def slash_commands(self) -> list[SlashCommand]:
        if self.agent is not None:
            from agent_tui.paths import config_dir
            from agent_tui.slash_commands import commands_signature, load_user_commands

            trusted = getattr(self.agent.permissions, "project_trusted", False)
            where = (self.agent.config.cwd, config_dir())
            signature = commands_signature(*where, project_trusted=trusted)
            if self._user_commands is None or signature != self._commands_seen:
                self._user_commands = load_user_commands(*where, project_trusted=trusted)
                self._commands_seen = signature
        from agent_tui.slash_commands import BUILT_IN

        return [*BUILT_IN, *(self._user_commands or [])]

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if not isinstance(event.text_area, PromptInput):
            return
        self._update_hints(event.text_area.text)

    def _update_hints(self, text: str) -> None:
        from agent_tui.tools.mentions import fuzzy_rank, typing_mention

        mention = typing_mention(text)
        if mention is not None and self.agent is not None:
            if self._project_files is None:
                self._project_files = []
                self.run_worker(self._load_files, thread=True, group="files")
            SlashHints.of(self).show_files(fuzzy_rank(mention, self._project_files, MAX_HINTS))
            return
        typing_command = text.startswith("/") and " " not in text and "\n" not in text
        if not typing_command:
            self._hide_hints()
            return
        from agent_tui.slash_commands import matching

        SlashHints.of(self).show(matching(text, self.slash_commands))

    def _hide_hints(self) -> None:
        if (hints := SlashHints.find(self)) is not None:
            hints.show([])

    def _load_files(self) -> None:
        from agent_tui.tools.mentions import project_files

        assert self.agent is not None
        files = project_files(self.agent.config.cwd)
        self.call_from_thread(self._files_loaded, files)

    def _files_loaded(self, files: list[str]) -> None:
        self._project_files = files
        self._update_hints(self.query_one(PromptInput).text)

    def on_prompt_input_tab_pressed(self, message: PromptInput.TabPressed) -> None:
        from agent_tui.tools.mentions import typing_mention

        hints = SlashHints.find(self)
        prompt = self.query_one(PromptInput)
        if hints is None:
            return
        if hints.files:
            mention = typing_mention(prompt.text) or ""
            prompt.text = prompt.text[: len(prompt.text) - len(mention)] + hints.files[0] + " "
        elif hints.shown:
            prompt.text = f"/{hints.shown[0].name} "
        else:
            return
        prompt.move_cursor(prompt.document.end)
        hints.show([])

    def handle_slash(self, text: str) -> bool:
        """Run `text` if it is a slash command; False if it is an ordinary prompt."""
        from agent_tui.slash_commands import expand, parse

        parsed = parse(text)
        if parsed is None:
            return False
        if self.agent is None:  # commands need the agent: give the text back to try again
            self.notify("Starting up: run the command again in a moment.")
            self.query_one(PromptInput).text = text
            return True
        name, args = parsed
        self._hide_hints()
        command = next((c for c in self.slash_commands if c.name == name), None)
        if command is None:
            from agent_tui.ui.screens.confirm import ConfirmScreen

            def send(yes: bool | None) -> None:
                if yes:
                    self.send_prompt(text)

            question = f"/{name} is not a command (/help lists them). Send it to the model?"
            self.push_screen(ConfirmScreen(question), send)
            return True
        if command.body is not None:
            self.send_prompt(expand(command.body, args))
        else:
            getattr(self, f"_slash_{name}")(args)
        return True

    def _say(self, text: str) -> None:
        self.chat.append(NoticeMessage(text, "info"))

    def _slash_help(self, args: str) -> None:
        lines = [f"/{c.name} {c.args}".rstrip() + f" — {c.help}" for c in self.slash_commands]
        self._say("Commands:\n" + "\n".join(lines) + "\nF1 shows the keys.")

    def _slash_new(self, args: str) -> None:
        self.run_worker(self.new_session(), group="turn", exclusive=False)

    _slash_clear = _slash_new

    def _slash_model(self, args: str) -> None:
        if not args:
            self.action_switch_model()
        elif self.agent is not None:
            self.use_model(args)

    def _slash_copy(self, args: str) -> None:
        from agent_tui.slash_commands import copy_target

        text, what = copy_target(self.agent.messages if self.agent else [], args)
        if not text:
            self.notify(what, severity="warning")
            return
        self.copy_to_clipboard(text)  # OSC 52: works over ssh and in tmux
        self.notify(f"Copied {what} ({len(text):,} characters).")

    def _slash_compact(self, args: str) -> None:
        if not args:
            self.action_compact()
        elif self.agent is not None and not self.turns.running:
            from functools import partial

            self.turns.run(partial(self.agent.compact, args))

    def _slash_cost(self, args: str) -> None:
        view = self.live_view
        usage = view.usage
        if usage is None:
            self._say("Nothing spent yet in this session.")
            return
        sent = (
            usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
        )
        cached = (
            f", {100 * usage.cache_read_input_tokens / sent:.0f}% read from cache" if sent else ""
        )
        self._say(
            f"This session: ${view.cost:.4f} — {sent:,} input tokens{cached}, "
            f"{usage.output_tokens:,} output tokens, {usage.web_search_requests} web searches."
        )

    def _slash_context(self, args: str) -> None:
        if self.agent is None:
            return
        compactor = self.agent.compactor
        used, window = compactor.used, compactor.window
        how = "by the API" if compactor.server else "by a summary request"
        share = f"{100 * used / window:.0f}%" if used else "not measured yet"
        at = f"{100 * self.agent.config.compact_at:.0f}%"
        when = (
            "Automatic compaction is off"
            if self.agent.config.compaction == "off"
            else f"At {at} it is compacted {how}"
        )
        self._say(
            f"Context: {used:,} of {window:,} tokens ({share}). {when}; /compact does it now."
        )

    def _slash_memory(self, args: str) -> None:
        files = self.agent.memory_files if self.agent is not None else ()
        if not files:
            self._say(
                "No memory files were loaded. The model reads AGENTS.md or CLAUDE.md from the "
                "repository root down to this folder, and AGENTS.md in your config dir; /init "
                "writes one for this project."
            )
            return
        names = "\n".join(m.label for m in files)
        self._say(f"Memory the model was given at the start of this session:\n{names}")

    def _slash_mode(self, args: str) -> None:
        from agent_tui.permissions.types import MODES

        if not args:
            self.modes.pick()
            return
        mode = next((m for m in MODES if m == args), None)
        if mode is None:
            self._say(f"Modes: {', '.join(MODES)}.")
        else:
            self.modes.choose(mode)  # yolo after a yes

    def _slash_thinking(self, args: str) -> None:
        self.action_toggle_thinking()  # type: ignore[attr-defined]

    def _slash_sandbox(self, args: str) -> None:
        self.action_sandbox()

    def action_sandbox(self) -> None:
        """`/sandbox` (and the palette): the sandbox as it stands, or why there is none."""
        sandbox = self.agent.config.sandbox if self.agent is not None else None
        if sandbox is None:
            self._say("The session is still starting; ask again in a moment.")
            return
        self._say("Sandbox\n" + sandbox.describe())

    def _slash_mcp(self, args: str) -> None:
        self.action_mcp_status()  # type: ignore[attr-defined]

    def _slash_resume(self, args: str) -> None:
        self.action_sessions()  # type: ignore[attr-defined]

    def _slash_export(self, args: str) -> None:
        from pathlib import Path

        from agent_tui.sessions.export import export_dir, export_file_name

        recorder = self.recorder
        session = recorder.session_id if recorder is not None else None
        if session is None and not (self.agent is not None and self.agent.messages):
            self._say("Nothing to export yet: this session has no messages.")
            return
        name = export_file_name(session or time.strftime("unrecorded-%Y%m%d-%H%M%S"))
        path = Path(args).expanduser() if args else export_dir() / name
        self.run_worker(lambda: self._export_to(session, path), thread=True)

    def _export_to(self, session: str | None, path: Any) -> None:
        """The stored transcript; while the session database fails (or never opened), the
        conversation in memory, so it can be kept anyway."""
        from agent_tui.sessions.export import memory_markdown, write_markdown
        from agent_tui.sessions.faults import STORE_ERRORS, describe

        recorder, agent = self.recorder, self.agent
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
            self.call_from_thread(
                self.notify, f"Export failed: {exc}", severity="error", markup=False
            )
            return
        self.call_from_thread(self._say, f"Transcript written to {path}")

    def _slash_init(self, args: str) -> None:
        from agent_tui.slash_commands import INIT_PROMPT

        self.send_prompt(INIT_PROMPT + (f"\n\nAlso: {args}" if args else ""))

    # --- sessions and models ---

    async def new_session(self) -> None:
        """Leave this session (it stays in the store) and start an empty one."""
        if self._busy():  # type: ignore[attr-defined]
            return
        from agent_tui.agent.conversation import Conversation
        from agent_tui.protocol.events import Usage

        agent = self.agent
        assert agent is not None
        old = self.recorder
        agent.conversation = Conversation()
        agent.set_session_spend(Usage(), 0.0)  # a new session: nothing spent, under its cap
        agent.compactor.used = 0
        agent.checkpoints.history, agent.checkpoints.next_id = [], 0
        if old is not None:
            from agent_tui.sessions.recorder import Recorder

            old.detach()
            self.recorder = Recorder(old.store, agent, backlog=old.backlog)
        self.live_view.set_totals(None, 0.0)
        await self.redraw_conversation(history=False)  # type: ignore[attr-defined]
        self.main.tool_pane.show_plan([])
        self.status.context = None
        self._say("New session. The previous one is in the sessions list (ctrl+o).")
