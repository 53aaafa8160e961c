"""The rubber-stamp guard: approvals given too fast pause the next dialog's keys (with a visible
countdown) and mark what differs from the last approved call. Keystrokes are scripted against an
injected clock, so "fast" is decided by the test, not by the machine's load."""

from __future__ import annotations

import asyncio

from app_helpers import wait_for
from textual.content import Content
from textual.widgets import Static

from agent_tui.permissions.types import ApprovalAnswer, ApprovalRequest, Decision
from agent_tui.ui.controllers.approval_queue import ApprovalQueue
from agent_tui.ui.controllers.stamp_guard import GuardSettings, StampGuard, differences
from agent_tui.ui.screens.approval import ApprovalScreen

from .test_approval import SIZE, FakeClock, QueueApp, bash_request, rendered


def destructive_request(command: str = "rm -rf build") -> ApprovalRequest:
    return ApprovalRequest(
        "t-rm",
        "Bash",
        {"command": command},
        command,
        Decision("ask", reason="no rule allows `rm`", risk="deletes files", kinds=("destructive",)),
        "/home/ada/project",
    )


async def answer(pilot, app, clock: FakeClock, key: str, after_s: float) -> None:  # type: ignore[no-untyped-def]
    await asyncio.sleep(0)
    await pilot.pause()
    assert isinstance(app.screen, ApprovalScreen)
    clock.now += after_s
    await pilot.press(key)
    await pilot.pause()
    await pilot.pause()


async def test_fast_approvals_in_a_row_pause_the_next_dialog() -> None:
    clock = FakeClock()
    app = QueueApp()
    guard = StampGuard(GuardSettings(fast_s=1.0, streak=3, pause_s=1.5))
    queue = ApprovalQueue(guard_s=0, clock=clock, stamp=guard)
    async with app.run_test(size=SIZE) as pilot:
        commands = ["git add a.py", "git add b.py", "git add c.py", "git push --force origin main"]
        tasks = [
            asyncio.create_task(queue.ask(app, bash_request(c, tool_use_id=f"t{i}")))
            for i, c in enumerate(commands)
        ]
        for _ in range(3):  # three approvals, each 0.2 s after its dialog appeared
            await answer(pilot, app, clock, "y", 0.2)
        answers = await asyncio.gather(*tasks[:3])
        assert [a.took_s for a in answers] == [0.2, 0.2, 0.2] and guard.fast_streak == 3

        screen = app.screen
        assert isinstance(screen, ApprovalScreen) and screen.pause is not None
        assert screen.has_class("-paused") and not screen.armed
        pause = rendered(screen.query_one("#pause")).strip()
        assert pause.startswith("keys active in 1.5 s — you approved 3 calls in a row, each in")
        differs = screen.query_one("#differs", Static)
        assert rendered(differs).strip() == (
            "differs from the last call you approved: git push --force origin main"
        )
        assert isinstance(differs.content, Content)
        marked = [
            differs.content.plain[s.start : s.end]
            for s in differs.content.spans
            if "reverse" in str(s.style)
        ]
        assert marked == ["push --force origin main"]

        await pilot.press("y")  # the rubber stamp: does nothing while paused
        await pilot.press("y")
        await pilot.pause()
        assert not tasks[3].done() and screen.paused
        clock.now += 0.9
        pause_line = screen.query_one("#pause")
        await wait_for(
            pilot, lambda: rendered(pause_line).strip().startswith("keys active in 0.6 s")
        )
        clock.now += 0.7  # the pause is over: keys answer again
        await wait_for(pilot, lambda: rendered(pause_line).strip().startswith("keys active —"))
        assert not screen.paused and screen.armed
        await pilot.press("n")
        denied = await tasks[3]
        assert denied == ApprovalAnswer("deny") and denied.took_s == 1.6
    assert guard.fast_streak == 0


async def test_one_fast_destructive_approval_is_enough_and_slow_ones_never_pause() -> None:
    clock = FakeClock()
    app = QueueApp()
    guard = StampGuard(GuardSettings(fast_s=1.0, streak=3, pause_s=1.0))
    queue = ApprovalQueue(guard_s=0, clock=clock, stamp=guard)
    async with app.run_test(size=SIZE) as pilot:
        requests = [bash_request("ls a", tool_use_id="s1"), bash_request("ls b", tool_use_id="s2")]
        requests += [destructive_request(), bash_request("ls c", tool_use_id="s3")]
        tasks = [asyncio.create_task(queue.ask(app, r)) for r in requests]
        for _ in range(2):  # slow approvals: read, not stamped
            await answer(pilot, app, clock, "y", 3.0)
            assert isinstance(app.screen, ApprovalScreen) and app.screen.pause is None
        await answer(pilot, app, clock, "y", 0.3)  # rm -rf, approved in 0.3 s
        screen = app.screen
        assert isinstance(screen, ApprovalScreen) and screen.request is requests[3]
        assert screen.pause is not None and screen.paused
        assert (
            "a destructive call in under a second" in rendered(screen.query_one("#pause")).strip()
        )
        clock.now += 1.1
        await wait_for(pilot, lambda: not screen.paused and screen.armed)
        await pilot.press("y")
        await asyncio.gather(*tasks)


async def test_turned_off_in_settings() -> None:
    settings = GuardSettings.from_settings({"approval_pause": False})
    guard = StampGuard(settings)
    for _ in range(5):
        guard.after(bash_request(), ApprovalAnswer("once", took_s=0.1))
    assert guard.before(bash_request()) is None


def test_settings_are_read_with_defaults_for_bad_values() -> None:
    s = GuardSettings.from_settings(
        {"approval_fast_s": 0.5, "approval_streak": 2, "approval_pause_s": "x", "approval_pause": 1}
    )
    assert s == GuardSettings(enabled=True, fast_s=0.5, streak=2, pause_s=1.5)
    assert GuardSettings.from_settings(None) == GuardSettings()


def test_a_deny_or_a_slow_answer_ends_the_streak() -> None:
    guard = StampGuard(GuardSettings(streak=2))
    guard.after(bash_request(), ApprovalAnswer("once", took_s=0.1))
    guard.after(bash_request(), ApprovalAnswer("deny", took_s=0.1))
    guard.after(bash_request(), ApprovalAnswer("once", took_s=0.1))
    assert guard.before(bash_request()) is None
    guard.after(bash_request(), ApprovalAnswer("always", took_s=0.1))
    assert guard.before(bash_request()) is not None
    guard.after(bash_request(), ApprovalAnswer("once", took_s=None))  # not measured: not fast
    assert guard.before(bash_request()) is None


def test_differences() -> None:
    assert differences("rm -rf build", "rm -rf build/ ~") == (
        ("rm -rf ", False),
        ("build/ ~", True),
    )
    assert differences("a b", "a b") == (("a b", False),)


def test_read_from_the_users_settings_file(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from agent_tui.paths import config_dir
    from agent_tui.ui.controllers.stamp_guard import load_settings

    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path))
    assert load_settings() == GuardSettings()
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "settings.toml").write_text(
        "[ui]\napproval_pause = false\napproval_streak = 5\n"
    )
    assert load_settings() == GuardSettings(enabled=False, streak=5)
