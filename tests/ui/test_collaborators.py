"""The app's collaborators work through their host protocols alone: each is driven here by a
fake host and a fake app (Textual's calls recorded, workers run at once), with no screen."""

from __future__ import annotations

import inspect
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from textual.app import App

from agent_tui.runtime import Options
from agent_tui.sessions.store import SessionStore
from agent_tui.ui.app import AgentApp
from agent_tui.ui.controllers.sessions import Sessions
from agent_tui.ui.controllers.slash_commands import SlashCommands
from agent_tui.ui.views.session_rows import BrowserChoice


class FakeApp:
    """Textual's `App` API as the collaborators use it: calls recorded, workers run at once."""

    def __init__(self) -> None:
        self.notes: list[tuple[str, str]] = []
        self.screens: list[tuple[Any, Any]] = []
        self.later: list[Any] = []
        self.copied: list[str] = []
        self.is_running = True
        self.screen = None

    def notify(self, message: str, *, severity: str = "information", **_: Any) -> None:
        self.notes.append((message, severity))

    def push_screen(self, screen: Any, callback: Any = None) -> None:
        self.screens.append((screen, callback))

    def run_worker(self, work: Any, **_: Any) -> None:
        if inspect.iscoroutine(work):
            self.later.append(work)
        else:
            work()

    def call_from_thread(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    def call_later(self, fn: Any, *args: Any) -> None:
        self.later.append(fn)

    def copy_to_clipboard(self, text: str) -> None:
        self.copied.append(text)

    def query_one_optional(self, _selector: Any) -> None:
        return None  # no prompt bars on a screen that doesn't exist


class FakeChat:
    def __init__(self) -> None:
        self.said: list[str] = []

    def append(self, message: Any) -> Any:
        self.said.append(str(message.text))
        return message


class FakeView:
    def __init__(self) -> None:
        self.totals: list[Any] = []

    def set_totals(self, usage: Any, cost: float) -> None:
        self.totals.append((usage, cost))


class FakeAgent:
    def __init__(self, cwd: Path, messages: list[dict[str, Any]] | None = None) -> None:
        self.running = False
        self.conversation = SimpleNamespace(messages=list(messages or []))
        self.config = SimpleNamespace(cwd=cwd, model="offline", sandbox=None, plugins=None)
        self.spend: list[Any] = []

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.conversation.messages

    def set_session_spend(self, usage: Any, cost: float) -> None:
        self.spend.append((usage, cost))


class FakeSessionsHost:
    """`SessionsHost`: the app's state the sessions controller reads and sets."""

    def __init__(self, cwd: Path) -> None:
        self.agent: FakeAgent | None = None
        self.recorder = None
        self.options = Options(cwd=cwd, offline=True)
        self.record = False
        self.chat = FakeChat()
        self.status = SimpleNamespace(activity="", session="", context=None)
        self.live_view = FakeView()


def stored_session(cwd: Path) -> tuple[str, list[dict[str, Any]]]:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "what is in this folder?"},
        {"role": "assistant", "content": [{"type": "text", "text": "Two files."}]},
    ]
    with SessionStore.open_default() as store:
        session_id = store.sessions.create(cwd, "offline", title="the folder")
        store.messages.extend(session_id, messages)
    return session_id, messages


def test_agent_app_is_wiring_over_textual_app_alone() -> None:
    """No mixins: what the app does lives with its collaborators (`controllers/`, the boot)."""
    assert AgentApp.__bases__ == (App,)
    assert AgentApp.__mro__[1] is App


def test_a_choice_made_while_starting_resumes_the_session_once_the_agent_is_built(
    tmp_path: Path,
) -> None:
    session_id, messages = stored_session(tmp_path)
    app, host = FakeApp(), FakeSessionsHost(tmp_path)
    sessions = Sessions(app, host)  # type: ignore[arg-type]
    sessions.chosen(BrowserChoice("resume", session_id))
    assert sessions.pending == BrowserChoice("resume", session_id)
    assert app.notes == [("Starting up: opening the session in a moment.", "information")]

    host.agent = FakeAgent(tmp_path)
    sessions.take_pending()
    assert sessions.pending is None
    assert host.agent.messages == messages  # unrecorded: the conversation is loaded as it was
    assert len(host.agent.spend) == 1 and host.live_view.totals == host.agent.spend
    assert host.status.activity == "ready"
    assert [getattr(f, "__name__", "") for f in app.later] == ["_show_resumed"]  # then drawn


def test_resuming_an_unknown_session_or_during_a_turn_says_why_and_loads_nothing(
    tmp_path: Path,
) -> None:
    app, host = FakeApp(), FakeSessionsHost(tmp_path)
    sessions = Sessions(app, host)  # type: ignore[arg-type]
    host.agent = FakeAgent(tmp_path, [{"role": "user", "content": "mine"}])
    sessions.resume("nosuchsession")
    assert app.notes[-1] == ("No session nosuchsession.", "error")
    assert host.status.activity == "ready"

    session_id, _ = stored_session(tmp_path)
    host.agent.running = True
    sessions.resume(session_id)
    assert app.notes[-1] == ("A turn is running: stop it first (Esc).", "warning")
    assert host.agent.messages == [{"role": "user", "content": "mine"}]


def test_export_without_a_store_writes_the_conversation_in_memory(tmp_path: Path) -> None:
    app, host = FakeApp(), FakeSessionsHost(tmp_path)
    sessions = Sessions(app, host)  # type: ignore[arg-type]
    sessions.export(str(tmp_path / "out.md"))
    assert host.chat.said == ["Nothing to export yet: this session has no messages."]

    host.agent = FakeAgent(tmp_path, [{"role": "user", "content": "keep this"}])
    sessions.export(str(tmp_path / "out.md"))
    text = (tmp_path / "out.md").read_text(encoding="utf-8")
    assert "Unrecorded session" in text and "keep this" in text
    assert host.chat.said[-1] == f"Transcript written to {tmp_path / 'out.md'}"


class Calls:
    """Records every method called on it, with its arguments."""

    def __init__(self, **attrs: Any) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.__dict__.update(attrs)

    def __getattr__(self, name: str) -> Any:
        return lambda *args: self.calls.append((name, *args))


class FakeSlashHost:
    """`SlashHost`: the collaborators the built-in commands hand over to, recording."""

    def __init__(self, cwd: Path) -> None:
        self.agent: Any = None
        self.turns = Calls(running=False)
        self.modes, self.sessions, self.settings, self.undo = Calls(), Calls(), Calls(), Calls()
        self.chat = FakeChat()
        self.live_view = SimpleNamespace(usage=None, cost=0.0)
        self.cwd = cwd

    def build_agent(self) -> None:
        self.agent = FakeAgent(self.cwd)
        self.agent.permissions = SimpleNamespace(project_trusted=False)


def slash_commands(tmp_path: Path) -> tuple[FakeApp, FakeSlashHost, SlashCommands]:
    app, host = FakeApp(), FakeSlashHost(tmp_path)
    host.build_agent()
    return app, host, SlashCommands(app, host)  # type: ignore[arg-type]


def test_built_in_commands_go_to_the_collaborator_that_owns_them(tmp_path: Path) -> None:
    _app, host, slash = slash_commands(tmp_path)
    assert not slash.handle("tell me about /tmp")  # an ordinary prompt
    for text in ("/undo", "/rewind", "/permissions", "/mode plan", "/mode", "/model sonnet"):
        assert slash.handle(text)
    assert host.undo.calls == [("undo",), ("rewind",), ("permissions",)]
    assert host.modes.calls == [("choose", "plan"), ("pick",)]
    assert host.settings.calls == [("use_model", "sonnet")]
    assert slash.handle("/compact keep the API notes") and slash.handle("/export out.md")
    assert host.settings.calls[-1] == ("compact", "keep the API notes")
    assert host.sessions.calls == [("export", "out.md")]
    slash.handle("/mode loud")
    assert host.chat.said == ["Modes: default, accept-edits, plan, yolo."]
    assert host.turns.calls == []  # none of them was a prompt


def test_cost_and_help_are_said_in_the_chat(tmp_path: Path) -> None:
    from agent_tui.protocol.events import Usage

    _app, host, slash = slash_commands(tmp_path)
    slash.handle("/cost")
    assert host.chat.said[-1] == "Nothing spent yet in this session."
    usage = Usage(input_tokens=100, output_tokens=40, cache_read_input_tokens=300)
    host.live_view = SimpleNamespace(usage=usage, cost=0.0123)
    slash.handle("/cost")
    assert host.chat.said[-1] == (
        "This session: $0.0123 — 400 input tokens, 75% read from cache, 40 output tokens, "
        "0 web searches."
    )
    slash.handle("/help")
    assert host.chat.said[-1].startswith("Commands:\n/help — ")
    assert "/model [name] — " in host.chat.said[-1]


def test_a_persons_command_becomes_a_prompt_and_an_unknown_one_asks_first(
    tmp_path: Path,
) -> None:
    from agent_tui.paths import config_dir
    from agent_tui.ui.screens.confirm import ConfirmScreen

    app, host, slash = slash_commands(tmp_path)
    (config_dir() / "commands").mkdir(parents=True)
    (config_dir() / "commands" / "greet.md").write_text("Say hello to $ARGUMENTS.\n")
    assert slash.handle("/greet the team")
    assert host.turns.calls == [("send", "Say hello to the team.")]

    assert slash.handle("/frobnicate now")
    ((screen, answered),) = app.screens
    assert isinstance(screen, ConfirmScreen)
    answered(True)
    assert host.turns.calls[-1] == ("send", "/frobnicate now")


def test_a_command_before_the_agent_is_built_is_given_back(tmp_path: Path) -> None:
    app, host = FakeApp(), FakeSlashHost(tmp_path)
    prompt = SimpleNamespace(text="")
    app.query_one = lambda _cls: prompt  # type: ignore[attr-defined]
    slash = SlashCommands(app, host)  # type: ignore[arg-type]
    assert slash.handle("/undo")
    assert app.notes == [("Starting up: run the command again in a moment.", "information")]
    assert prompt.text == "/undo" and host.undo.calls == []


def test_escape_twice_opens_rewind_unless_a_prompt_came_between(tmp_path: Path) -> None:
    from agent_tui.ui.controllers.stop_keys import StopKeys

    app = FakeApp()
    prompt = SimpleNamespace(text="", focus=lambda: None)
    app.query_one = lambda _cls: prompt  # type: ignore[attr-defined]
    app.screen = SimpleNamespace(focused=prompt)  # type: ignore[assignment]
    host = SimpleNamespace(
        agent=FakeAgent(tmp_path, [{"role": "user", "content": "hi"}]),
        turns=SimpleNamespace(cancel=lambda: False),  # nothing running
        shortcuts=SimpleNamespace(stop=lambda: False),  # no `!command` running
        sessions=SimpleNamespace(replay=None),
        undo=Calls(),
    )
    keys = StopKeys(app, host)  # type: ignore[arg-type]
    keys.escape()
    keys.start_over()  # a prompt sent in between
    keys.escape()
    assert host.undo.calls == []
    keys.escape()
    assert host.undo.calls == [("rewind",)]
    prompt.text = "half typed"
    keys.escape()
    keys.escape()
    assert host.undo.calls == [("rewind",)]  # something typed: Esc Esc is not /rewind


class FakeBootHost:
    """`BootHost`, as far as the agent's questions to the screen use it."""

    def __init__(self) -> None:
        self.status = SimpleNamespace(activity="ready")
        self.approvals: Any = None


async def test_the_agents_questions_say_what_they_wait_for_and_give_the_answer_back() -> None:
    import asyncio

    from textual.css.stylesheet import Stylesheet

    from agent_tui.agent.budget import CapQuestion
    from agent_tui.ui.screens.confirm import ConfirmScreen
    from agent_tui.ui.startup.boot import FAILED, STARTING, BootFlow

    app, host = FakeApp(), FakeBootHost()
    app.stylesheet = Stylesheet()  # type: ignore[attr-defined]
    boot = BootFlow(app, host)  # type: ignore[arg-type]
    assert boot.waiting_note == STARTING
    boot.error = "RuntimeError: no tools today"
    assert boot.waiting_note == FAILED

    seen: list[str] = []

    class Approvals:
        async def ask(self, on: Any, request: Any) -> str:
            seen.append(host.status.activity)
            return "allow"

    host.approvals = Approvals()
    request = SimpleNamespace(tool="Bash")
    assert await boot.ask_approval(request) == "allow"  # type: ignore[arg-type]
    assert seen == ["waiting for your approval: Bash"]
    assert host.status.activity == "working…"

    asked = asyncio.ensure_future(boot.confirm_spend(CapQuestion(1.0, 1.0, 0.1, 2.0)))
    await asyncio.sleep(0)
    assert host.status.activity == "at the spending cap: waiting for you"
    ((screen, answered),) = app.screens
    assert isinstance(screen, ConfirmScreen)
    answered(True)
    assert await asked is True
    assert host.status.activity == "working…"
