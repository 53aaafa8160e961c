"""The status line: tokens, the share served from the prompt cache, cost, mode, session."""

from __future__ import annotations

import pytest
from app_helpers import wait_for
from textual.app import App, ComposeResult

from agent_tui.protocol.events import Usage
from agent_tui.ui.widgets.status import YIELD_STEPS, StatusLine


class StatusApp(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")


async def test_the_share_of_input_read_from_the_cache_is_shown() -> None:
    app = StatusApp()
    async with app.run_test(size=(140, 3)) as pilot:
        status = app.query_one(StatusLine)
        status.usage = Usage(input_tokens=100, output_tokens=50, cache_read_input_tokens=900)
        await pilot.pause()
        assert "90% cached" in str(status.render())
        status.usage = Usage(input_tokens=100, output_tokens=50)
        await pilot.pause()
        assert "cached" not in str(status.render())


def test_context_windows_come_from_the_data_file() -> None:
    from agent_tui.agent.context import context_used, context_window

    assert context_window("claude-sonnet-4-5") == 200_000
    assert context_window("us.anthropic.claude-opus-4-1-v1:0") == 200_000
    assert context_window("something-new") == 200_000
    assert context_used(Usage(100, 20, 30, 50)) == 200


async def test_how_full_the_context_is_shows_after_each_response(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from app_helpers import make_app

    from agent_tui.ui.widgets.prompt import PromptInput

    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENT_TUI_OFFLINE_DELAY", "0")
    app = make_app(tmp_path)
    async with app.run_test(size=(140, 36)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.on_prompt_input_submitted(PromptInput.Submitted("hello"))
        await wait_for(pilot, lambda: not app.turns.running and app.status.context is not None, 30)
        assert "context " in str(app.status.render())


SESSION_ID = "01jq3k5m7n9pq"


def shown(status: StatusLine) -> str:
    """The status line as it is on the screen (cut to its width)."""
    return status.render_line(0).text.rstrip()


def fill(status: StatusLine, *, mode: str = "default", commands: tuple[str, ...] = ()) -> None:
    status.model = "claude-sonnet-4-5"
    status.mode = mode
    status.thinking = 8000
    status.usage = Usage(
        input_tokens=1200, output_tokens=3400, cache_read_input_tokens=12000, web_search_requests=2
    )
    status.cost = 0.1234
    status.context = 45
    status.session = SESSION_ID
    status.commands = commands


#: every part of a full line, as a whole (each is shown whole or not at all)
WHOLE_PARTS = (
    "↑13.2k ↓3.4k",
    "91% cached",
    "2 searches",
    "$0.1234",
    "context 45%",
    "thinking 8.0k",
    SESSION_ID,
)


def essentials(status: StatusLine) -> str:
    """What the line keeps at any width: the model, the mode, what the app is doing."""
    steps = dict.fromkeys(YIELD_STEPS, 99)
    forms = status.parts()
    return "".join(
        forms[name][min(steps.get(name, 0), len(forms[name]) - 1)].plain for name in forms
    )


@pytest.mark.parametrize(
    ("mode", "commands", "doing"),
    [
        ("default", (), "ready"),
        ("plan", ("sleep 30",), "running !sleep 30…"),
        ("yolo", ("sleep 30", "make test"), "running 2 commands…"),
    ],
)
async def test_a_narrow_line_drops_whole_parts_never_a_label_from_its_value(
    mode: str, commands: tuple[str, ...], doing: str
) -> None:
    """At every width the line's parts are whole or gone: no "session" without its id, no
    "tokens" without the counts, no cut id or cost; the model, mode and activity always stay
    (only a line too narrow even for those is cut at its end), and a wider line never shows
    less than a narrower one."""
    app = StatusApp()
    async with app.run_test(size=(200, 3)) as pilot:
        status = app.query_one(StatusLine)
        fill(status, mode=mode, commands=commands)
        await pilot.pause()
        assert all(part in shown(status) for part in WHOLE_PARTS), shown(status)
        least = len(essentials(status))
        before: set[str] = set()
        for width in range(least - 10, 201):
            status.styles.width = width
            await wait_for(pilot, lambda w=width: status.size.width == w)  # type: ignore[misc]
            line, whole = shown(status), str(status.render())
            if width >= least:
                assert line == whole.rstrip(), (width, line)  # nothing cut at the edge
                assert doing in line, (width, line)
            else:  # too narrow for the essentials: cut at the end, as little as that
                assert whole.startswith(line.rstrip("…")), (width, line)
            parts = {part for part in WHOLE_PARTS if part in line}
            for part in set(WHOLE_PARTS) - parts:  # a part not shown whole isn't shown at all
                assert part[: len(part) // 2 + 1] not in line, (width, part, line)
            assert not line.endswith(("session", "tokens", "context", "·")), (width, line)
            if "session" in line:
                assert f"session {SESSION_ID}" in line, (width, line)
            if "tokens" in line:
                assert "↑13.2k ↓3.4k tokens" in line, (width, line)
            assert before <= parts, (width, line)  # wider: what was shown stays shown
            before = parts


@pytest.mark.usefixtures("offline_env")
async def test_the_status_line_says_a_bang_command_runs_until_it_ends_or_is_stopped(
    tmp_path,  # type: ignore[no-untyped-def]
) -> None:
    """A `!command` runs: the status line says so (and that Esc stops it), not "ready"; it
    says "ready" again once the command is stopped, or ends by itself, and counts the
    commands while more than one runs."""
    from app_helpers import make_app

    from agent_tui.ui.widgets.prompt import PromptInput

    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        status, work = app.status, app.agent.config.cwd
        assert "ready" in shown(status)
        app.query_one(PromptInput).focus()
        app.on_prompt_input_submitted(PromptInput.Submitted("!sleep 30"))
        await wait_for(pilot, lambda: "running !sleep 30… (esc stops it)" in shown(status))
        assert "ready" not in shown(status)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.shortcuts.running)
        await wait_for(pilot, lambda: "ready" in shown(status))
        assert "running" not in shown(status)
        # two at once, each ending by itself
        for name in ("one", "two"):
            app.on_prompt_input_submitted(
                PromptInput.Submitted(f"!until [ -e {name} ]; do sleep 0.05; done")
            )
        await wait_for(pilot, lambda: "running 2 commands… (esc stops them)" in shown(status))
        (work / "one").touch()
        await wait_for(pilot, lambda: "running !until [ -e two ]" in shown(status))
        (work / "two").touch()
        await wait_for(pilot, lambda: "ready" in shown(status))
        assert "running" not in shown(status) and not app.shortcuts.running


async def test_a_bang_command_beside_a_turn_follows_its_activity() -> None:
    app = StatusApp()
    async with app.run_test(size=(120, 3)) as pilot:
        status = app.query_one(StatusLine)
        status.activity, status.commands = "streaming…", ("make test",)
        await pilot.pause()
        assert "streaming… · running !make test… (esc stops it)" in shown(status)
        status.activity = "ready"  # the turn ends, the command runs on
        await pilot.pause()
        assert "running !make test… (esc stops it)" in shown(status)
        assert "ready" not in shown(status)
        status.commands = ("a command far longer than the line should give it",)
        await pilot.pause()
        assert "running !a command far longer th… (esc stops it)" in shown(status)


@pytest.mark.usefixtures("offline_env")
async def test_at_80_columns_the_session_id_is_whole_or_not_shown(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The live app at 80×24 after a turn: the session's id whole (without the word
    "session" if it doesn't fit with it), never "session" with the id cut away."""
    from app_helpers import make_app

    from agent_tui.ui.widgets.prompt import PromptInput

    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        app.on_prompt_input_submitted(PromptInput.Submitted("hello"))
        await wait_for(pilot, lambda: not app.turns.running and app.status.session != "", 30)
        session = app.status.session
        await wait_for(pilot, lambda: session in shown(app.status))
        line = shown(app.status)
        assert len(line) <= 80 and not line.endswith("…"), line
        assert line.startswith(" offline model   ready   ↑"), line


def test_status_line_snapshot_at_80_columns(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """A full status line at 80 columns: to fit, it gives up the word "session" (the id stays),
    the cache share, the searches and the word "tokens" (the counts stay)."""

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        status = pilot.app.query_one(StatusLine)
        fill(status)
        status.model, status.thinking = "claude-haiku-4-5", 0
        await pilot.pause()

    assert snap_compare(StatusApp(), terminal_size=(80, 2), run_before=run_before)
