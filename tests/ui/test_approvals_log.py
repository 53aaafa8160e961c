"""Pilot and snapshot tests of the approvals pane."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widget import Widget

from agent_tui.protocol.events import ApprovalDecided, TextDelta
from agent_tui.ui.widgets import approvals_log
from agent_tui.ui.widgets.approvals_log import ApprovalsLog

STYLES = Path(approvals_log.__file__).parent.parent / "styles" / "approvals_log.tcss"


class LogApp(App[None]):
    CSS_PATH = STYLES

    def __init__(self, log: ApprovalsLog | None = None) -> None:
        super().__init__()
        self.log_widget = log or ApprovalsLog()

    def compose(self) -> ComposeResult:
        yield self.log_widget


def decided(
    subject: str = "git status",
    *,
    decision: str = "allow",
    by: str = "rule",
    rule: str | None = "Bash(git status)",
    saved_rules: list[str] | None = None,
    message: str = "",
    tool: str = "Bash",
    n: int = 1,
) -> ApprovalDecided:
    return ApprovalDecided(
        tool_use_id=f"toolu_{n}",
        tool=tool,
        subject=subject,
        decision=decision,
        by=by,
        rule=rule,
        saved_rules=saved_rules or [],
        message=message,
    )


def rendered(widget: Widget) -> str:
    lines = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return "\n".join(strip.text.rstrip() for strip in lines)


def entry_texts(log: ApprovalsLog) -> list[str]:
    return [rendered(row) for row in log.query(".entry")]


async def test_empty_pane_says_so() -> None:
    app = LogApp()
    async with app.run_test():
        assert app.log_widget.query_one("#empty").display
        assert app.log_widget.entries == ()


async def test_lists_decisions_newest_last() -> None:
    app = LogApp()
    async with app.run_test(size=(100, 20)) as pilot:
        log = app.log_widget
        log.add(decided())
        log.add(
            decided(
                "git log -5",
                by="user",
                rule=None,
                saved_rules=["Bash(git log:*)"],
                n=2,
            )
        )
        log.add(
            decided("rm -rf build", decision="deny", by="user", rule=None, message="keep it", n=3)
        )
        await pilot.pause()
        assert not log.query_one("#empty").display
        texts = entry_texts(log)
        assert len(texts) == 3
        assert "allowed" in texts[0] and "Bash" in texts[0] and "git status" in texts[0]
        assert "by rule Bash(git status)" in texts[0]
        assert "by you" in texts[1] and "saved Bash(git log:*)" in texts[1]
        assert "denied" in texts[2] and "rm -rf build" in texts[2] and "told keep it" in texts[2]
        assert [row.has_class("-deny") for row in log.query(".entry")] == [False, False, True]
        assert [e.tool_use_id for e in log.entries] == ["toolu_1", "toolu_2", "toolu_3"]


async def test_subject_is_literal_one_line_and_truncated() -> None:
    app = LogApp()
    async with app.run_test(size=(200, 10)) as pilot:
        log = app.log_widget
        log.add(decided("echo [bold]hi[/bold] [red]x"))
        log.add(decided("echo a\u202eb\x1b[31m\ncat " + "x" * 300, n=2))
        await pilot.pause()
        first, second = entry_texts(log)
        assert "echo [bold]hi[/bold] [red]x" in first
        line = second.splitlines()[0]
        assert "\u202e" not in line and "\x1b" not in line
        assert "<U+202E>" in line and "\\x1b[31m" in line
        assert " ⏎ cat xxx" in line
        assert "…" in line
        assert "x" * (approvals_log.SUBJECT_CHARS + 1) not in line


async def test_length_is_bounded() -> None:
    app = LogApp(ApprovalsLog(max_entries=5))
    async with app.run_test() as pilot:
        log = app.log_widget
        for n in range(12):
            log.add(decided(f"echo {n}", n=n))
        await pilot.pause()
        assert [e.subject for e in log.entries] == [f"echo {n}" for n in range(7, 12)]
        texts = entry_texts(log)
        assert len(texts) == 5
        assert "echo 7" in texts[0] and "echo 11" in texts[-1]


async def test_handle_ignores_other_events_and_clear_empties() -> None:
    app = LogApp()
    async with app.run_test() as pilot:
        log = app.log_widget
        log.handle(TextDelta(index=0, text="hello"))
        log.handle(decided())
        await pilot.pause()
        assert len(log.entries) == 1
        log.clear()
        await pilot.pause()
        assert log.entries == () and not log.query(".entry")
        assert log.query_one("#empty").display


async def test_entries_added_before_mount_are_shown() -> None:
    log = ApprovalsLog()
    log.add(decided("echo early"))
    app = LogApp(log)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "echo early" in entry_texts(log)[0]
        log.add(decided("echo later", n=2))
        await pilot.pause()
        assert len(entry_texts(log)) == 2


def test_snapshot_log(snap_compare: Any) -> None:
    log = ApprovalsLog()
    log.add(decided())
    log.add(decided("git log --oneline", by="user", rule=None, saved_rules=["Bash(git log:*)"]))
    log.add(decided("rm -rf /", decision="deny", by="rule", rule="Bash(rm:*)"))
    log.add(decided("curl [x] https://e.com", decision="deny", by="user", rule=None, message="no"))
    log.add(decided("example.com", tool="WebFetch", by="mode", rule=None))
    assert snap_compare(LogApp(log), terminal_size=(80, 12))


async def test_follows_the_newest_entry() -> None:
    app = LogApp()
    async with app.run_test(size=(80, 6)) as pilot:
        log = app.log_widget
        for n in range(20):
            log.add(decided(f"echo {n}", n=n))
        await pilot.pause()
        await pilot.pause()
        assert log.max_scroll_y > 0
        assert log.scroll_y == log.max_scroll_y
        log.scroll_home(animate=False)
        await pilot.pause()
        log.add(decided("echo new", n=99))
        await pilot.pause()
        await pilot.pause()
        assert log.scroll_y == 0  # reading older entries: not yanked to the bottom
