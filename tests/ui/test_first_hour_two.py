"""The first hour, round two (issue 31): each test failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import make_app, wait_for

from agent_tui.ui.chat.messages import AssistantMessage, UserMessage
from agent_tui.ui.screens.confirm import AskTextScreen, ChoiceScreen
from agent_tui.ui.widgets.prompt import PromptInput

pytestmark = pytest.mark.usefixtures("offline_env")


async def test_tab_without_a_completion_keeps_what_is_typed(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.press("h", "i", "tab", "space", "t", "h", "e", "r", "e")
        assert app.focused is prompt
        assert prompt.text == "hi there"
        # an empty prompt still lets Tab move on (the panes are reachable by keyboard)
        prompt.clear()
        await pilot.press("tab")
        assert app.focused is not prompt


async def test_a_prompt_given_on_the_command_line_is_sent_once_ready(tmp_path: Path) -> None:
    app = make_app(tmp_path, initial_prompt="hello")
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.query(AssistantMessage), timeout=30)
        await wait_for(pilot, lambda: not app.turns.running, timeout=30)
        assert [str(m.render()) for m in app.query(UserMessage)] == ["hello"]
        assert [m["role"] for m in app.agent.messages] == ["user", "assistant"]
        assert app.options.initial_prompt is None  # sent once, not again after a model switch


async def test_compact_on_an_empty_session_says_it_is_empty(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.slash.handle("/compact")
        await pilot.pause()
        said = [str(n.message) for n in app._notifications]
        assert "Nothing to compact: the conversation is empty." in said
        assert not isinstance(app.screen, AskTextScreen)
        notices: list[str] = []
        app.agent.listeners.append(lambda e: notices.append(getattr(e, "text", "")))
        await app.agent.compact("")  # the core says the same (not "one turn long")
        assert any("the conversation is empty" in n for n in notices), notices


async def test_bare_mode_shows_the_current_mode_in_a_picker(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.slash.handle("/mode")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        assert "now: default" in app.screen.question
        await pilot.press("escape")  # nothing changes
        await wait_for(pilot, lambda: not isinstance(app.screen, ChoiceScreen))
        assert app.agent.approvals.mode == "default"
        app.slash.handle("/mode")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.agent.approvals.mode == "accept-edits")
        assert app.status.mode == "accept-edits"
        app.slash.handle("/mode")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("3")
        await wait_for(pilot, lambda: app.agent.approvals.mode == "plan")


async def test_a_command_file_added_while_the_app_runs_is_found(tmp_path: Path) -> None:
    from app_helpers import type_prompt

    from agent_tui.paths import config_dir

    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        assert "greet" not in [c.name for c in app.slash.commands]  # read once, before the file
        commands = config_dir() / "commands"
        commands.mkdir(parents=True, exist_ok=True)
        (commands / "greet.md").write_text("hello $ARGUMENTS\n")
        await type_prompt(pilot, "/greet world")
        await wait_for(pilot, lambda: bool(app.agent.messages), timeout=30)
        assert app.agent.messages[0]["content"][0]["text"] == "hello world"
        # edited while running: the new text is used
        (commands / "greet.md").write_text("goodbye $ARGUMENTS, and more\n")
        greet = next(c for c in app.slash.commands if c.name == "greet")
        assert greet.body is not None and greet.body.startswith("goodbye $ARGUMENTS, and more")


async def test_ctrl_c_copies_a_selection_and_stops_a_turn_without_one(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        prompt = app.query_one(PromptInput)
        prompt.text = "some words to keep"
        prompt.select_all()
        await pilot.press("ctrl+c")
        assert app.clipboard == "some words to keep"
        assert prompt.text == "some words to keep"  # copied, not cut
        prompt.clear()
        app.turns.send("hello")
        await wait_for(pilot, lambda: app.turns.running)
        await pilot.press("ctrl+c")  # nothing selected: the turn stops
        await wait_for(pilot, lambda: not app.turns.running, timeout=30)


async def test_slash_copy_copies_the_last_answer_and_a_code_block(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.turns.send("hi")
        await wait_for(pilot, lambda: app.agent.messages and not app.turns.running, timeout=30)
        app.slash.handle("/copy")
        assert "Hello from the offline model" in app.clipboard
        app.slash.handle("/copy 1")
        assert "```" not in app.clipboard and app.clipboard.strip()
        assert app.clipboard in app.agent.messages[-1]["content"][0]["text"]


async def test_bang_runs_a_command_as_the_person_and_the_model_sees_its_output(
    tmp_path: Path,
) -> None:
    from agent_tui.ui.controllers.shortcuts import CommandOutput

    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        asked: list[object] = []
        app.agent.approvals.ask = lambda *a: asked.append(a)  # never reached
        app.on_prompt_input_submitted(PromptInput.Submitted("!ls; echo oops >&2; exit 3"))
        await wait_for(pilot, lambda: app.query(CommandOutput), timeout=30)
        [output] = app.query(CommandOutput)
        await wait_for(pilot, lambda: output.done, timeout=30)
        assert "README.md" in output.text and "oops" in output.text
        assert "[exit code 3]" in output.text
        assert any(str(m.render()) == "! ls; echo oops >&2; exit 3" for m in app.query(UserMessage))
        assert app.agent.messages == [] and not asked  # nothing sent, nothing asked
        app.on_prompt_input_submitted(PromptInput.Submitted("hello"))
        await wait_for(pilot, lambda: app.agent.messages and not app.turns.running, timeout=30)
        texts = [b["text"] for b in app.agent.messages[0]["content"]]
        assert texts[0] == "hello"  # the prompt first: it is the session's title
        assert texts[1].startswith("<bash-input>ls; echo oops >&2; exit 3</bash-input>")
        assert "<bash-stdout>README.md\n</bash-stdout>" in texts[1]


async def test_hash_appends_a_note_to_the_chosen_memory_file(tmp_path: Path) -> None:
    from agent_tui.paths import config_dir

    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        project = app.agent.config.cwd
        (project / "CLAUDE.md").write_text("# Notes")  # an existing file, no final newline
        app.on_prompt_input_submitted(PromptInput.Submitted("# use uv, not pip"))
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("1")
        await wait_for(pilot, lambda: not isinstance(app.screen, ChoiceScreen))
        assert (project / "CLAUDE.md").read_text() == "# Notes\n- use uv, not pip\n"
        app.on_prompt_input_submitted(PromptInput.Submitted("#tabs are 4 spaces"))
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("2")
        await wait_for(pilot, lambda: not isinstance(app.screen, ChoiceScreen))
        assert (config_dir() / "AGENTS.md").read_text() == "- tabs are 4 spaces\n"
        assert app.agent.messages == []  # not sent as a prompt
        assert app.agent.conversation.notes[-1] == (
            "<user-memory-input>tabs are 4 spaces</user-memory-input>"
        )


async def test_a_long_paste_is_folded_in_the_prompt_and_sent_whole(tmp_path: Path) -> None:
    from textual import events

    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.press(*"look:", "space")
        pasted = "".join(f"line {i}\n" for i in range(240))
        app.post_message(events.Paste(pasted))  # as the terminal driver sends it
        await wait_for(pilot, lambda: "[pasted" in prompt.text)
        assert prompt.text == "look: [pasted 240 lines]"
        app.post_message(events.Paste("short one"))  # a short paste goes in as it is
        await wait_for(pilot, lambda: prompt.text.endswith("short one"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.agent.messages, timeout=30)
        sent = app.agent.messages[0]["content"][0]["text"]
        assert sent == "look: " + pasted + "short one"
        assert prompt.pastes == {} and prompt.text == ""


async def test_escape_twice_opens_rewind(tmp_path: Path) -> None:
    from agent_tui.ui.screens.restore import RewindScreen

    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await pilot.press("escape", "escape")  # nothing said yet: nothing to rewind, no dialog
        assert not isinstance(app.screen, RewindScreen)
        app.on_prompt_input_submitted(PromptInput.Submitted("hello"))
        await wait_for(pilot, lambda: app.agent.messages and not app.turns.running, timeout=30)
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen))


async def test_an_escape_before_a_prompt_and_one_after_it_are_not_escape_escape(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.ui.controllers import stop_keys
    from agent_tui.ui.screens.restore import RewindScreen

    # a window wide enough for any turn: only the prompt in between may tell the two apart
    monkeypatch.setattr(stop_keys, "DOUBLE_ESCAPE_S", 600.0)
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await pilot.press("escape")
        app.on_prompt_input_submitted(PromptInput.Submitted("hello"))
        await wait_for(pilot, lambda: app.agent.messages and not app.turns.running, timeout=30)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RewindScreen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen))


async def test_the_status_line_says_tools_run_not_streaming(tmp_path: Path) -> None:
    from agent_tui.protocol.events import MessageFinished, MessageStarted
    from agent_tui.protocol.usage import Usage

    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None and app.view is not None)
        app.view.handle(MessageStarted("msg_1", "m"))
        assert app.status.activity == "streaming…"
        app.view.handle(MessageFinished("tool_use", Usage(), []))
        assert app.status.activity == "running tools…"


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_toasts_leave_the_status_line_and_prompt_visible(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    from textual.widgets._toast import Toast

    from agent_tui.ui.widgets.status import StatusLine

    app = make_app(tmp_path)
    async with app.run_test(size=size, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.notify("A message long enough to need the toast's whole width, and then some more.")
        await wait_for(pilot, lambda: app.screen.query(Toast))
        await pilot.pause()
        toast = app.screen.query_one(Toast)
        status = app.query_one(StatusLine)
        prompt = app.query_one(PromptInput)
        assert toast.region.bottom <= prompt.region.y < status.region.y


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_toasts_stay_above_a_prompt_of_several_lines(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """The prompt box grows with what is typed (up to 8 lines): the toasts move up with it, and
    back down when it shrinks, never over the text being typed or the status line."""
    from textual.widgets._toast import Toast

    from agent_tui.ui.widgets.status import StatusLine

    app = make_app(tmp_path)
    async with app.run_test(size=size, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        prompt = app.query_one(PromptInput)
        status = app.query_one(StatusLine)
        prompt.load_text("\n".join(f"line {n} of a longer prompt" for n in range(6)))
        await wait_for(pilot, lambda: prompt.region.height == 8)
        app.notify("A message long enough to need the toast's whole width, and then some more.")
        await wait_for(pilot, lambda: app.screen.query(Toast))
        toast = app.screen.query_one(Toast)
        await wait_for(pilot, lambda: toast.region.bottom <= prompt.region.y)
        assert not toast.region.overlaps(status.region)
        prompt.load_text("short again")
        await wait_for(pilot, lambda: prompt.region.height == 3)
        # back down to just above the box (not left high up over the chat)
        await wait_for(pilot, lambda: toast.region.bottom == prompt.region.y)
        assert not toast.region.overlaps(status.region)


def live_in_group(pgid: int) -> list[int]:
    """The processes of a group that still run (a zombie waiting to be reaped has ended)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(stat.parent.name))
    return alive


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
async def test_escape_stops_a_bang_command_and_keeps_its_output(tmp_path: Path, key: str) -> None:
    """Esc (or ctrl+c with nothing selected) stops a `!command` as it stops a turn: its whole
    process group goes, its block says "stopped" under the output so far, and the model gets
    what it printed, said to be stopped."""
    from agent_tui.ui.controllers.shortcuts import CommandOutput

    app = make_app(tmp_path)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        prompt = app.query_one(PromptInput)
        prompt.focus()
        app.on_prompt_input_submitted(
            PromptInput.Submitted("!echo started; sleep 30 & sleep 30; echo never")
        )
        await wait_for(pilot, lambda: bool(app.shortcuts.running))
        [running] = app.shortcuts.running
        pgid = running.proc.pid
        await wait_for(pilot, lambda: b"started" in running.out.head)
        assert len(live_in_group(pgid)) >= 2  # bash and its sleeps
        [block] = app.query(CommandOutput)
        # while it runs: what it printed so far, and that Esc stops it
        await wait_for(pilot, lambda: block.text == "started\nrunning… (esc stops it)")
        await pilot.press(key)
        await wait_for(pilot, lambda: block.done)
        assert block.text == "started\n[stopped]"
        assert not app.shortcuts.running
        assert live_in_group(pgid) == []  # the background sleep too: the whole group
        assert prompt.has_focus and not app.turns.running
        app.on_prompt_input_submitted(PromptInput.Submitted("hello"))
        await wait_for(pilot, lambda: bool(app.agent.messages), timeout=30)
        note = app.agent.messages[0]["content"][1]["text"]
        assert "<bash-stdout>started\n[stopped]</bash-stdout>" in note
        assert "stopped it before it finished" in note


def test_a_bang_commands_output_is_kept_bounded() -> None:
    """A command that prints without end can't fill the memory: its start and end are kept."""
    from agent_tui.ui.controllers.shortcuts import Captured

    captured = Captured(limit=10)
    for n in range(100):
        captured.add(f"{n % 10}".encode())
    assert (bytes(captured.head), bytes(captured.tail), captured.cut) == (b"01234", b"56789", 90)
    assert captured.text == "01234\n[… 90 bytes cut …]\n56789"
    small = Captured(limit=10)
    small.add(b"abc")
    small.add(b"defg")
    assert small.text == "abcdefg" and small.cut == 0


async def test_quitting_while_a_bang_command_runs_reports_no_error(tmp_path: Path) -> None:
    """Quitting with a `!command` still running ends it, and nothing is left to print a
    traceback ("exception was never retrieved") on the terminal after the app has gone."""
    import asyncio
    import gc

    reported: list[dict[str, object]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    try:
        app = make_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.agent is not None)
            app.on_prompt_input_submitted(PromptInput.Submitted("!sleep 30"))
            await wait_for(pilot, lambda: bool(app.shortcuts.running))
            [running] = app.shortcuts.running
            await pilot.press("ctrl+q")
        await asyncio.sleep(0)
        gc.collect()
        assert running.proc.returncode is not None  # it was ended, not left behind
        assert reported == []
    finally:
        loop.set_exception_handler(None)
