"""The keys line at the bottom (`KeyFooter`): what it lists, and that a click presses the key."""

from __future__ import annotations

from pathlib import Path

from app_helpers import make_app, wait_for

from agent_tui.ui.screens.help import HelpScreen
from agent_tui.ui.widgets.key_footer import KeyFooter


def line_of(footer: KeyFooter) -> str:
    return footer.render().plain


async def test_it_lists_the_screens_keys_and_docks_the_palette_right(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        footer = app.query_one(KeyFooter)
        line = line_of(footer)
        for key, label in (("f1", "Help"), ("esc", "Stop"), ("^t", "Tools"), ("^q", "Quit")):
            assert f" {key} {label} " in line
        assert "Retry" not in line  # show=False bindings stay out, as in Textual's Footer
        # Priority bindings come first, so F1 is still on the line at 80 columns.
        assert line.index("f1 Help") < line.index("esc Stop")
        palette = footer.spans()[-1]
        assert palette.docked and palette.key.description == "palette"
        assert palette.end == footer.size.width
        assert line.rstrip().endswith("▏^p palette")


async def test_clicking_a_key_presses_it(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        footer = app.query_one(KeyFooter)
        spans = {s.key.key: s for s in footer.spans()}
        side = app.query_one("#side")
        shown = side.display
        await pilot.click(KeyFooter, offset=(spans["ctrl+t"].start + 1, 0))
        await pilot.pause()
        assert side.display is not shown
        await pilot.click(KeyFooter, offset=(spans["f1"].start + 1, 0))
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))


async def test_the_sessions_browser_shows_its_own_keys(tmp_path: Path) -> None:
    app = make_app(tmp_path, record=True)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: app.screen.query(KeyFooter))
        await pilot.pause()
        line = line_of(app.screen.query_one(KeyFooter))
        assert " ⏎ Resume " in line and " r Replay " in line and " esc Close " in line
        assert "Stop" not in line  # escape closes the browser here; the chat's key is shadowed
