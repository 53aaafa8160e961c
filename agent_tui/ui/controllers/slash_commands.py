"""Slash commands in the prompt box: a `/` at the start lists the commands as you type (Tab
completes the first), Enter runs one. Built-ins map to what the palette and keys do, on the
collaborator that owns it; the person's own commands (`slash_commands.load_user_commands`)
become prompts. A `/word` that is no command asks before it goes to the model as text. An `@`
lists the project's files the same way. A collaborator of the app, through a small host protocol
(`SlashHost`); each command is a method by name (`_slash_<name>`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.ui.chat.messages import NoticeMessage
from agent_tui.ui.widgets.prompt import MAX_HINTS, PromptInput, SlashHints

# The command table loads with the first command typed, not with the first frame.
if TYPE_CHECKING:
    from textual.app import App

    from agent_tui.agent.context_parts import ContextParts
    from agent_tui.agent.loop import Agent
    from agent_tui.slash_commands import SlashCommand
    from agent_tui.ui.chat.messages import ChatView
    from agent_tui.ui.controllers.modes import PermissionModes
    from agent_tui.ui.controllers.session_settings import SessionSettings
    from agent_tui.ui.controllers.sessions import Sessions
    from agent_tui.ui.controllers.turns import TurnController
    from agent_tui.ui.controllers.undo_flow import UndoFlow
    from agent_tui.ui.views.event_view import EventView


class SlashHost(Protocol):
    """What the slash commands need of the app besides Textual's `App` API: the collaborators
    the built-in commands hand over to."""

    agent: Agent | None
    turns: TurnController
    modes: PermissionModes
    sessions: Sessions
    settings: SessionSettings
    undo: UndoFlow

    @property
    def chat(self) -> ChatView: ...

    @property
    def live_view(self) -> EventView: ...


class SlashCommands:
    def __init__(self, app: App[Any], host: SlashHost) -> None:
        self.app = app
        self.host = host
        self._user_commands: list[SlashCommand] | None = None
        #: the command files as last read (`commands_signature`): read again when they change
        self._commands_seen: tuple[Any, ...] = ()
        #: the project's files for the `@` picker (loaded once, on the first `@`)
        self._project_files: list[str] | None = None

    @property
    def commands(self) -> list[SlashCommand]:
        """The built-ins, then the person's and the (trusted) project's own commands."""
        agent = self.host.agent
        if agent is not None:
            from agent_tui.paths import config_dir
            from agent_tui.slash_commands import commands_signature, load_user_commands

            trusted = agent.permissions.project_trusted
            where = (agent.config.cwd, config_dir())
            plugins = agent.config.plugins
            signature = commands_signature(*where, project_trusted=trusted, plugins=plugins)
            if self._user_commands is None or signature != self._commands_seen:
                self._user_commands = load_user_commands(
                    *where, project_trusted=trusted, plugins=plugins
                )
                self._commands_seen = signature
        from agent_tui.slash_commands import BUILT_IN

        return [*BUILT_IN, *(self._user_commands or [])]

    # --- hints and completion, as the person types ---

    def update_hints(self, text: str) -> None:
        from agent_tui.tools.mentions import fuzzy_rank, typing_mention

        mention = typing_mention(text)
        if mention is not None and self.host.agent is not None:
            if self._project_files is None:
                self._project_files = []
                self.app.run_worker(self._load_files, thread=True, group="files")
            files = fuzzy_rank(mention, self._project_files, MAX_HINTS)
            SlashHints.of(self.app).show_files(files)
            return
        typing_command = text.startswith("/") and " " not in text and "\n" not in text
        if not typing_command:
            self.hide_hints()
            return
        from agent_tui.slash_commands import matching

        SlashHints.of(self.app).show(matching(text, self.commands))

    def hide_hints(self) -> None:
        if (hints := SlashHints.find(self.app)) is not None:
            hints.show([])

    def _load_files(self) -> None:
        from agent_tui.tools.mentions import project_files

        assert self.host.agent is not None
        files = project_files(self.host.agent.config.cwd)
        self.app.call_from_thread(self._files_loaded, files)

    def _files_loaded(self, files: list[str]) -> None:
        self._project_files = files
        self.update_hints(self.app.query_one(PromptInput).text)

    def complete(self) -> None:
        """Tab: the first command (or file) hinted replaces what is half typed."""
        from agent_tui.tools.mentions import typing_mention

        hints = SlashHints.find(self.app)
        if hints is None:
            return
        prompt = self.app.query_one(PromptInput)
        if hints.files:
            mention = typing_mention(prompt.text) or ""
            prompt.text = prompt.text[: len(prompt.text) - len(mention)] + hints.files[0] + " "
        elif hints.shown:
            prompt.text = f"/{hints.shown[0].name} "
        else:
            return
        prompt.move_cursor(prompt.document.end)
        hints.show([])

    # --- running one ---

    def handle(self, text: str) -> bool:
        """Run `text` if it is a slash command; False if it is an ordinary prompt."""
        from agent_tui.slash_commands import expand, parse

        parsed = parse(text)
        if parsed is None:
            return False
        if self.host.agent is None:  # commands need the agent: give the text back to try again
            self.app.notify("Starting up: run the command again in a moment.")
            self.app.query_one(PromptInput).text = text
            return True
        name, args = parsed
        self.hide_hints()
        command = next((c for c in self.commands if c.name == name), None)
        if command is None:
            from agent_tui.ui.screens.confirm import ConfirmScreen

            def send(yes: bool | None) -> None:
                if yes:
                    self.host.turns.send(text)

            question = f"/{name} is not a command (/help lists them). Send it to the model?"
            self.app.push_screen(ConfirmScreen(question), send)
            return True
        if command.body is not None:
            self.host.turns.send(expand(command.body, args))
        else:
            getattr(self, f"_slash_{name}")(args)
        return True

    def _say(self, text: str) -> None:
        self.host.chat.append(NoticeMessage(text, "info"))

    # --- the built-ins ---

    def _slash_doctor(self, args: str) -> None:
        from agent_tui.ui.views.doctor import doctor_text

        self._say(doctor_text())

    def _slash_help(self, args: str) -> None:
        lines = [f"/{c.name} {c.args}".rstrip() + f" — {c.help}" for c in self.commands]
        self._say("Commands:\n" + "\n".join(lines) + "\nF1 shows the keys.")

    def _slash_new(self, args: str) -> None:
        self.app.run_worker(self.host.sessions.new(), group="turn", exclusive=False)

    _slash_clear = _slash_new

    def _slash_model(self, args: str) -> None:
        if not args:
            self.host.settings.switch_model()
        elif self.host.agent is not None:
            self.host.settings.use_model(args)

    def _slash_copy(self, args: str) -> None:
        from agent_tui.slash_commands import copy_target

        agent = self.host.agent
        text, what = copy_target(agent.messages if agent else [], args)
        if not text:
            self.app.notify(what, severity="warning")
            return
        self.app.copy_to_clipboard(text)  # OSC 52: works over ssh and in tmux
        self.app.notify(f"Copied {what} ({len(text):,} characters).")

    def _slash_bashes(self, args: str) -> None:
        self.app.call_later(self.app.run_action, "focus_shells")  # the main screen's list

    def _slash_compact(self, args: str) -> None:
        self.host.settings.compact(args)

    def _slash_cost(self, args: str) -> None:
        view = self.host.live_view
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
        from agent_tui.agent.context_parts import context_parts

        agent = self.host.agent
        if agent is None:
            return
        compactor = agent.compactor
        how = "by the API" if compactor.server else "by a summary request"
        at = f"{100 * agent.config.compact_at:.0f}%"
        when = (
            "Automatic compaction is off"
            if agent.config.compaction == "off"
            else f"At {at} it is compacted {how}"
        )
        self._say(f"{context_text(context_parts(agent))}\n{when}; /compact does it now.")

    def _slash_memory(self, args: str) -> None:
        files = self.host.agent.memory_files if self.host.agent is not None else ()
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
            self.host.modes.pick()
            return
        mode = next((m for m in MODES if m == args), None)
        if mode is None:
            self._say(f"Modes: {', '.join(MODES)}.")
        else:
            self.host.modes.choose(mode)  # yolo after a yes

    def _slash_thinking(self, args: str) -> None:
        self.host.settings.toggle_thinking()

    def _slash_permissions(self, args: str) -> None:
        self.host.undo.permissions()

    def _slash_mcp(self, args: str) -> None:
        self.host.settings.mcp_status()

    def _slash_sandbox(self, args: str) -> None:
        self.host.settings.sandbox()

    def _slash_undo(self, args: str) -> None:
        self.host.undo.undo()

    def _slash_changes(self, args: str) -> None:
        self.host.undo.held_changes()

    def _slash_rewind(self, args: str) -> None:
        self.host.undo.rewind()

    def _slash_resume(self, args: str) -> None:
        self.host.sessions.browse()

    def _slash_export(self, args: str) -> None:
        self.host.sessions.export(args)

    def _slash_init(self, args: str) -> None:
        from agent_tui.slash_commands import INIT_PROMPT

        self.host.turns.send(INIT_PROMPT + (f"\n\nAlso: {args}" if args else ""))


def _k(tokens: int) -> str:
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)


def context_text(context: ContextParts) -> str:
    """`/context`'s lines: the model and how full, then each part with its share."""
    window = context.window or 1
    estimated = "" if context.measured else " (estimated)"
    lines = [
        f"Context: {context.model} · {_k(context.used)}/{_k(context.window)} tokens "
        f"({100 * context.used / window:.0f}%){estimated}"
    ]
    for name, tokens in context.parts:
        lines.append(f"  {name}: {_k(tokens)} tokens ({100 * tokens / window:.1f}%)")
    return "\n".join(lines)
