"""Pilot tests of the session browser, and of resuming sessions in the running app (offline)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from app_helpers import wait_for
from textual.command import CommandList
from textual.widgets import Input

import agent_tui.sessions.catalog as catalog_mod
from agent_tui.protocol.events import Usage
from agent_tui.runtime import Options
from agent_tui.sessions.store import SessionStore
from agent_tui.ui.app import AgentApp
from agent_tui.ui.chat.messages import NoticeMessage, UserMessage
from agent_tui.ui.screens.sessions import PAGE, ConfirmScreen, SessionBrowser
from agent_tui.ui.widgets.history import EarlierMessages
from agent_tui.ui.widgets.prompt import PromptInput

BASE = 1_750_000_000.0  # 2025-06-15 15:06:40 UTC
SIZE = (110, 30)


@pytest.fixture(autouse=True)
def offline_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENT_TUI_OFFLINE_DELAY", "0")
    monkeypatch.setenv("TZ", "UTC")  # the browser shows local times
    time.tzset()
    # Fixed ids: the time part as usual, the random tail pinned.
    real = catalog_mod.new_session_id
    monkeypatch.setattr(catalog_mod, "new_session_id", lambda at=None: real(at)[:9] + "0000")
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    with SessionStore(tmp_path / "home" / "data" / "sessions.db") as s:
        yield s


def open_store() -> SessionStore:
    return SessionStore.open_default()


def seed(count: int = 3) -> list[str]:
    """Sessions with fixed times, oldest first; returns their ids."""
    specs = [
        ("Fix the flaky [bold]test[/bold] in CI", "/home/ada/projects/api", "pytest -x tests"),
        ("search the web for textual", "/home/ada/projects/tui", "ls -la"),
        ("hello", "/srv/app", "du -sh ."),
    ][:count]
    ids = []
    with SessionStore.open_default() as s:
        for i, (prompt, cwd, command) in enumerate(specs):
            at = BASE + i * 3600
            sid = s.sessions.create(cwd, "claude-sonnet-4-5", created_at=at)
            tool_id = f"toolu_{i}"
            s.messages.extend(
                sid,
                [
                    {"role": "user", "content": prompt},
                    {
                        "role": "assistant",
                        "content": [
                            {"type": "text", "text": "Let me look."},
                            {
                                "type": "tool_use",
                                "id": tool_id,
                                "name": "Bash",
                                "input": {"command": command},
                            },
                        ],
                    },
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": tool_id,
                                "content": "README.md\nsrc",
                            }
                        ],
                    },
                    {"role": "assistant", "content": [{"type": "text", "text": f"Done {i}."}]},
                ],
                at=at + 60,
            )
            s.turns.record(sid, Usage(1200, 300), 0.0123 * (i + 1), finished_at=at + 61)
            ids.append(sid)
    return ids


def make_app(tmp_path: Path, **kwargs: Any) -> AgentApp:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return AgentApp(Options(cwd=work, **kwargs), record=True)


async def open_browser(pilot: Any, app: AgentApp) -> SessionBrowser:
    await wait_for(pilot, lambda: app.agent is not None)
    await pilot.press("ctrl+o")
    await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser) and app.screen.loaded)
    assert isinstance(app.screen, SessionBrowser)
    return app.screen


def titles(browser: SessionBrowser) -> list[str]:
    return [row.info.title for row in browser.rows]


def preview_text(browser: SessionBrowser) -> str:
    return str(browser.query_one("#session-preview").render())


async def test_lists_sessions_newest_first_with_details(tmp_path: Path) -> None:
    ids = seed()
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, app)
        assert titles(browser) == [
            "hello",
            "search the web for textual",
            "Fix the flaky [bold]test[/bold] in CI",
        ]
        await wait_for(pilot, lambda: "Done 2." in preview_text(browser))
        text = preview_text(browser)
        assert ids[2] in text and "/srv/app" in text and "4 messages" in text
        assert "$0.0369" in text
        # Markup in a title is shown literally.
        await pilot.press("down", "down")
        await wait_for(pilot, lambda: "Done 0." in preview_text(browser))
        assert "[bold]test[/bold]" in preview_text(browser)


async def test_empty_state(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, app)
        empty = browser.query_one("#session-empty")
        assert empty.display and "No sessions yet" in str(empty.render())
        assert not browser.query_one("#session-list").display


async def test_typing_filters_with_full_text_search(tmp_path: Path) -> None:
    seed()
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, app)
        await pilot.press("slash")
        for ch in "pytest":
            await pilot.press(ch)
        # "pytest" only occurs in a command, not a title: found by the search, not a filter.
        await wait_for(pilot, lambda: titles(browser) == ["Fix the flaky [bold]test[/bold] in CI"])
        assert browser.query_one("#session-search").has_focus  # letters went to the box
        for _ in "pytest":
            await pilot.press("backspace")
        for ch in "nothing-like-it":
            await pilot.press(ch)
        await wait_for(
            pilot, lambda: browser.rows == [] and browser.query_text == "nothing-like-it"
        )
        assert "No sessions match" in str(browser.query_one("#session-empty").render())


async def test_enter_resumes_and_the_next_prompt_records_into_it(tmp_path: Path) -> None:
    ids = seed()
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)
        await pilot.press("down")  # "search the web for textual"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.recorder.session_id == ids[1] and app.agent.messages)
        assert not isinstance(app.screen, SessionBrowser)
        with SessionStore.open_default() as s:
            assert app.agent.messages == s.messages.load(ids[1])
        await wait_for(pilot, lambda: app.query(NoticeMessage).filter(".info"))
        assert [str(w.render()) for w in app.query(UserMessage)] == ["search the web for textual"]
        assert app.status.session == ids[1]
        for ch in "hello":
            await pilot.press(ch)
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.agent.messages) >= 6 and not app.agent.running)
        app.recorder.store.flush()
        with SessionStore.open_default() as s:
            assert s.messages.load(ids[1]) == app.agent.messages
            assert s.sessions.count() == 3  # no new session was started


async def test_resuming_moves_recording_out_of_the_session_in_progress(tmp_path: Path) -> None:
    ids = seed(1)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        for ch in "hello":
            await pilot.press(ch)
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.agent.messages) >= 2 and not app.agent.running)
        first = app.recorder.session_id
        assert first is not None and first != ids[0]
        browser = await open_browser(pilot, app)
        assert browser.current_session == first
        await pilot.press("down")  # the seeded one: the new session is the newest
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.recorder.session_id == ids[0])
        for ch in "hello":
            await pilot.press(ch)
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.agent.messages) >= 6 and not app.agent.running)
        app.recorder.store.flush()
        with SessionStore.open_default() as s:
            assert len(s.messages.load(first)) == 2  # the old session got nothing more
            assert s.messages.load(ids[0]) == app.agent.messages
        # The session in progress cannot be deleted from the browser.
        browser = await open_browser(pilot, app)
        await pilot.press("d")
        await wait_for(
            pilot, lambda: any("can't be deleted" in n.message for n in app._notifications)
        )
        assert app.screen is browser and len(browser.rows) == 2


async def test_long_list_loads_the_next_page_at_the_end(tmp_path: Path) -> None:
    with SessionStore.open_default() as s, s.batch():
        for i in range(PAGE + 20):
            s.sessions.create("/srv/app", "m", title=f"session {i}", created_at=BASE + i)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, app)
        assert len(browser.rows) == PAGE and titles(browser)[0] == f"session {PAGE + 19}"
        await pilot.press("end")
        await wait_for(pilot, lambda: len(browser.rows) == PAGE + 20)
        assert titles(browser)[-1] == "session 0"


async def test_d_then_y_deletes_and_n_keeps(tmp_path: Path) -> None:
    ids = seed()
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, app)
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is browser)
        assert len(browser.rows) == 3
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: len(browser.rows) == 2)
        assert titles(browser) == [
            "search the web for textual",
            "Fix the flaky [bold]test[/bold] in CI",
        ]
        with SessionStore.open_default() as s:
            assert s.sessions.get(ids[2]) is None and s.sessions.count() == 2


async def test_e_asks_where_and_exports_into_the_data_dir_by_default(tmp_path: Path) -> None:
    ids = seed()
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)
        await pilot.press("e")
        await pilot.pause()
        asked = app.screen.query_one("#path", Input)
        path = tmp_path / "home" / "exports" / f"agent-tui-{ids[2]}.md"
        assert asked.value == str(path)  # not the project: a transcript isn't repository content
        await pilot.press("enter")
        await wait_for(pilot, path.exists)
        await wait_for(pilot, lambda: any(str(path) in n.message for n in app._notifications))
        text = path.read_text()
        assert "hello" in text and "du -sh ." in text


async def test_escape_closes(tmp_path: Path) -> None:
    seed(1)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, SessionBrowser))
        assert app.recorder.session_id is None  # nothing resumed


async def test_command_palette_entry_opens_the_browser(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        assert "Sessions: browse" in [c.title for c in app.get_system_commands(app.screen)]
        await wait_for(pilot, lambda: app.agent is not None)
        await pilot.press("ctrl+p")
        for ch in "Sessions: browse":
            await pilot.press("space" if ch == " " else ch)
        # the palette searches its providers in the background
        await wait_for(pilot, lambda: app.screen.query_one(CommandList).option_count > 0)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser))


async def test_resume_without_id_opens_the_picker(tmp_path: Path) -> None:
    ids = seed()
    app = make_app(tmp_path, resume="")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser) and app.screen.loaded)
        await pilot.press("enter")  # may come before the agent is built: it waits for it
        await wait_for(pilot, lambda: app.recorder is not None and app.recorder.session_id)
        assert app.recorder.session_id == ids[2]
        await wait_for(pilot, lambda: len(app.agent.messages) == 4)


async def test_unknown_resume_id_says_so_and_records_a_new_session(tmp_path: Path) -> None:
    seed(1)
    app = make_app(tmp_path, resume="zzzzzz")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        errors = [str(w.render()) for w in app.query(NoticeMessage).filter(".error")]
        assert any("Could not resume" in e and "zzzzzz" in e for e in errors)
        assert app.recorder is not None and not app.agent.messages


async def test_big_session_opens_at_the_tail_and_loads_more_on_scroll(tmp_path: Path) -> None:
    with SessionStore.open_default() as s:
        sid = s.sessions.create("/srv/big", "claude-sonnet-4-5", created_at=BASE)
        messages = [
            {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"}
            for i in range(5000)
        ]
        s.messages.extend(sid, messages, at=BASE)
    app = make_app(tmp_path, resume=sid)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.agent is not None and app.query(EarlierMessages))
        assert len(app.agent.messages) == 5000
        earlier = app.query_one(EarlierMessages)
        await pilot.pause()
        # The tail that fills the view (estimated from the text), never more than a page of 40.
        hidden = earlier.pager.hidden
        shown = [str(w.render()) for w in app.query(UserMessage)]
        assert 4960 <= hidden < 5000 - 4 and shown[-1] == "message 4998"
        assert f"{hidden:,} earlier" in str(earlier.render())
        app.chat.scroll_home(animate=False)
        await wait_for(pilot, lambda: earlier.pager.hidden == hidden - 40)
        await wait_for(pilot, lambda: len(app.query(UserMessage)) == (5000 - hidden + 40) // 2)
        shown = [str(w.render()) for w in app.query(UserMessage)]
        first = hidden - 40
        assert shown[0] == f"message {first + first % 2}" and shown[-1] == "message 4998"
        # The view stays where the person was: the newly loaded page is above it.
        await wait_for(pilot, lambda: not earlier._loading)
        assert app.chat.scroll_y > 0


async def test_resume_refused_while_a_turn_runs(tmp_path: Path) -> None:
    ids = seed(1)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.agent.running = True  # as during a turn
        app.sessions.resume(ids[0])
        await wait_for(
            pilot, lambda: any("A turn is running" in n.message for n in app._notifications)
        )
        assert app.recorder.session_id is None and not app.agent.messages
        app.agent.running = False


def test_browser_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    seed()
    app = make_app(tmp_path)

    async def run_before(pilot: Any) -> None:
        browser = await open_browser(pilot, app)
        await wait_for(pilot, lambda: "Done 2." in preview_text(browser))
        app.query_one(PromptInput).cursor_blink = False
        await pilot.pause()  # the steady cursor drawn

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_down_from_the_search_box_goes_into_the_list(tmp_path: Path) -> None:
    seed()
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, app)
        await pilot.press("slash")
        await pilot.pause()
        assert isinstance(browser.focused, Input)
        await pilot.press("down")
        await pilot.pause()
        assert browser.focused is browser.option_list


async def test_enter_on_the_current_session_says_so_and_stays(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.on_prompt_input_submitted(PromptInput.Submitted("hello"))
        await wait_for(pilot, lambda: not app.turns.running and app.recorder.session_id)
        browser = await open_browser(pilot, app)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.screen is browser
        assert any("the session you are in" in n.message for n in app._notifications)


def notified(app: Any, text: str) -> bool:
    return any(text in n.message for n in app._notifications)


async def test_at_80x24_the_header_and_keys_fit_and_the_preview_keeps_its_lines(
    tmp_path: Path,
) -> None:
    """The header said every key and was cut, the keys line was cut at `f Fil`, and the preview
    joined an answer's markdown into one line (issue 50)."""
    from agent_tui.ui.widgets.key_footer import KeyFooter

    with SessionStore.open_default() as s:
        sid = s.sessions.create("/srv/app", "claude-sonnet-4-5", created_at=BASE)
        answer = "# Heading\n\nA paragraph.\n\n- one\n- two"
        s.messages.extend(
            sid,
            [{"role": "user", "content": "hi"}, {"role": "assistant", "content": answer}],
            at=BASE + 60,
        )
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        browser = await open_browser(pilot, app)
        await wait_for(
            pilot, lambda: "- two" in str(browser.query_one("#session-preview").render())
        )
        header = str(browser.query_one("#sessions-header").render())
        assert len(header) <= 78 and header.startswith("Sessions · 1")
        preview = str(browser.query_one("#session-preview").render())
        assert "  # Heading\n" in preview and "\n  - one\n  - two\n" in preview
        footer = browser.query_one(KeyFooter)
        spans = footer.spans()
        docked = next(s for s in spans if s.docked)
        own = {"Close", "Search", "Replay", "Export", "Changes", "Delete", "Filter"}
        mine = [s for s in spans if s.key.description in own]
        assert len(mine) == len(own) and all(s.end <= docked.start for s in mine)
