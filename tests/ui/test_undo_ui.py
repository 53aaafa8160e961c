"""Undo, rewind, the Permissions view and the Changes view, driven as a person would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from app_helpers import fixed_length_dir, make_app, type_prompt, wait_for
from textual.widgets import OptionList

from agent_tui.ui.chat.messages import NoticeMessage
from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.screens.changes import ChangesScreen
from agent_tui.ui.screens.confirm import ConfirmScreen
from agent_tui.ui.screens.permissions import PermissionsScreen
from agent_tui.ui.screens.restore import RestoreScreen, RewindScreen
from agent_tui.ui.screens.sessions import SessionBrowser
from agent_tui.ui.widgets.prompt import PromptInput

pytestmark = pytest.mark.usefixtures("offline_env")


def notices(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [n.text for n in app.query(NoticeMessage)]


async def approve_write(app, pilot, prompt: str) -> None:  # type: ignore[no-untyped-def]
    app.approvals.guard_s = 0.0
    await type_prompt(pilot, prompt)
    await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), timeout=30)
    await pilot.pause()
    await pilot.press("y")
    await wait_for(pilot, lambda: not app.turns.running, timeout=30)


async def test_undo_shows_the_diff_then_puts_the_file_back(tmp_path: Path) -> None:
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        notes = app.agent.config.cwd / "NOTES.md"
        await approve_write(app, pilot, "write a note")
        assert notes.read_text().startswith("# Notes")
        assert len(app.agent.checkpoints.history) == 1
        assert any(t.startswith("Changed 1 file: NOTES.md — /undo") for t in notices(app))
        await type_prompt(pilot, "/undo")
        await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen))
        screen = app.screen
        title = str(screen.query_one(".restore-title").render())
        assert "[x] delete" in title and "NOTES.md" in title
        await pilot.press("y")
        await wait_for(pilot, lambda: not notes.exists())
        await wait_for(pilot, lambda: any(t.startswith("Restored 1 file") for t in notices(app)))
        assert app.agent.checkpoints.history == []
        await type_prompt(pilot, "/undo")
        await pilot.pause()
        assert any(t.startswith("Nothing to undo") for t in notices(app))


async def test_undo_keeps_a_file_the_person_changed_unless_told(tmp_path: Path) -> None:
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        notes = app.agent.config.cwd / "NOTES.md"
        await approve_write(app, pilot, "write a note")
        notes.write_text("my own words\n")
        await type_prompt(pilot, "/undo")
        await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen))
        assert "conflict" in str(app.screen.query_one("#restore-summary").render())
        assert "[ ] keep" in str(app.screen.query_one(".restore-title").render())
        await pilot.press("y")
        await wait_for(pilot, lambda: any("Left as they are" in t for t in notices(app)))
        assert notes.read_text() == "my own words\n"


async def test_rewind_both_restores_files_and_forks_the_conversation(tmp_path: Path) -> None:
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        notes = app.agent.config.cwd / "NOTES.md"
        await type_prompt(pilot, "hello")
        await wait_for(pilot, lambda: not app.turns.running, timeout=30)
        old_session = app.recorder.session_id
        await approve_write(app, pilot, "write a note")
        await type_prompt(pilot, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen))
        options = app.screen.query_one(OptionList)
        assert options.option_count == 2  # newest first: "write a note", then "hello"
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: app.recorder.session_id != old_session, timeout=15)
        assert not notes.exists()
        assert [m["role"] for m in app.agent.messages] == ["user", "assistant"]
        assert app.query_one(PromptInput).text == "write a note"
        store = app.recorder.store
        assert len(store.messages.load(old_session)) == 6  # the old session keeps everything
        assert store.sessions.get(app.recorder.session_id).title.endswith("(rewound)")


async def test_permissions_view_lists_deletes_and_links_to_sessions(tmp_path: Path) -> None:
    app = make_app(tmp_path, record=True, allow=["Bash(git status:*)"], deny=["Bash(rm:*)"])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await type_prompt(pilot, "/permissions")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionsScreen))
        screen = app.screen
        rules = [r.rule.text for r in screen.shown if r is not None]
        assert rules == ["Bash(git status:*)", "Bash(rm:*)"]
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: len([r for r in screen.shown if r is not None]) == 1)
        assert [r.rule.text for r in app.agent.permissions.rules] == ["Bash(rm:*)"]
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser))
        assert app.screen.review == "rule:Bash(rm:*)"


async def changes_of_a_written_note(app: Any, pilot: Any) -> ChangesScreen:
    """Write a note (approved), then open the session's Changes view and wait for its diff."""
    await wait_for(pilot, lambda: app.agent is not None)
    await approve_write(app, pilot, "write a note")
    await pilot.press("ctrl+o")
    await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser) and app.screen.loaded)
    await pilot.press("c")
    await wait_for(pilot, lambda: isinstance(app.screen, ChangesScreen) and app.screen.loaded)
    screen = app.screen
    await wait_for(pilot, lambda: "NOTES.md" in str(screen.query_one("#changes-detail").render()))
    return screen


async def test_the_changes_view_shows_each_turns_diff(tmp_path: Path) -> None:
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await changes_of_a_written_note(app, pilot)
        detail = str(screen.query_one("#changes-detail").render())
        assert "+# Notes" in detail and "(Write)" in detail


def test_changes_view_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    app = make_app(tmp_path, record=True)

    async def run_before(pilot: Any) -> None:
        await changes_of_a_written_note(app, pilot)
        app.query_one(PromptInput).cursor_blink = False
        await pilot.pause()  # the steady cursor drawn

    assert snap_compare(app, terminal_size=(110, 30), run_before=run_before)


def test_permissions_view_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    app = make_app(
        tmp_path,
        allow=["Bash(git status:*)", "WebFetch(domain:docs.python.org)"],
        deny=["Bash(rm:*)"],
    )

    async def run_before(pilot: Any) -> None:
        await wait_for(pilot, lambda: app.agent is not None)
        app.query_one(PromptInput).cursor_blink = False
        await type_prompt(pilot, "/permissions")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionsScreen))
        # the fire counts arrive from a thread: its worker is done once they are in
        screen = app.screen
        await wait_for(pilot, lambda: not [w for w in app.workers if w.node is screen])
        await pilot.pause()

    assert snap_compare(app, terminal_size=(110, 30), run_before=run_before)


async def test_undo_restores_a_conflict_only_when_the_person_ticks_it(tmp_path: Path) -> None:
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        notes = app.agent.config.cwd / "NOTES.md"
        await approve_write(app, pilot, "write a note")
        notes.write_text("my own words\n")
        await type_prompt(pilot, "/undo")
        await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen))
        title = app.screen.query_one(".restore-title")
        assert "[ ] keep" in str(title.render())  # the safe default: the person's words stay
        await pilot.press("space")
        await wait_for(pilot, lambda: "[x] delete" in str(title.render()))
        await pilot.press("y")
        await wait_for(pilot, lambda: not notes.exists())
        await wait_for(pilot, lambda: any(t.startswith("Restored 1 file") for t in notices(app)))


async def test_undo_keeps_a_file_the_person_unticks(tmp_path: Path) -> None:
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        notes = app.agent.config.cwd / "NOTES.md"
        await approve_write(app, pilot, "write a note")
        written = notes.read_text()
        await type_prompt(pilot, "/undo")
        await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen))
        title = app.screen.query_one(".restore-title")
        assert "[x] delete" in str(title.render())
        await pilot.press("space")
        await wait_for(pilot, lambda: "[ ] keep" in str(title.render()))
        await pilot.press("y")
        await wait_for(pilot, lambda: any(t.startswith("Restored 0 file") for t in notices(app)))
        assert notes.read_text() == written


def test_restore_preview_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    """The undo preview: a file to restore (ticked) and a conflict (kept, unticked), each with
    its diff, the cursor on the first. Not recorded: the status line would show a new session id
    every run. The project lives at a path of fixed length: the tool result names it, and the
    status line's ↑ token count (the offline model counts what it is sent) would follow it."""
    app = make_app(fixed_length_dir(tmp_path))

    async def run_before(pilot: Any) -> None:
        await wait_for(pilot, lambda: app.agent is not None)
        notes = app.agent.config.cwd / "NOTES.md"
        await approve_write(app, pilot, "write a note")
        notes.write_text("# Notes\n\nmy own words\n")
        app.query_one(PromptInput).cursor_blink = False
        await type_prompt(pilot, "/undo")
        await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen))
        await pilot.pause()  # its first frame drawn

    assert snap_compare(app, terminal_size=(110, 30), run_before=run_before)
