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
        # more keys than fit with their padding: drawn without it (issue 50)
        assert " ⏎ Resume " in line and " r Replay " in line and line.startswith("esc Close ")
        assert "Stop" not in line  # escape closes the browser here; the chat's key is shadowed


async def test_keys_are_placed_by_terminal_cells_so_wide_labels_click_true() -> None:
    from textual.app import App, ComposeResult
    from textual.binding import Binding

    pressed: list[str] = []

    class Keys(App[None]):
        ENABLE_COMMAND_PALETTE = False
        BINDINGS = [Binding("a", "press('wide')", "日本語"), Binding("b", "press('next')", "Next")]

        def compose(self) -> ComposeResult:
            yield KeyFooter()

        def action_press(self, what: str) -> None:
            pressed.append(what)

    app = Keys(css_path=None)
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        wide, after = app.query_one(KeyFooter).spans()
        assert (wide.start, wide.end) == (0, len(" a  ") + 6)  # 日本語 takes six cells
        assert after.start == wide.end
        await pilot.click(KeyFooter, offset=(after.start + 1, 0))
        await pilot.click(KeyFooter, offset=(wide.end - 2, 0))
        assert pressed == ["next", "wide"]


async def test_it_redraws_when_the_keys_shown_change_and_only_then(tmp_path: Path) -> None:
    from textual.app import App, ComposeResult
    from textual.binding import Binding
    from textual.widgets import Button

    class Saver(Button):
        BINDINGS = [Binding("ctrl+s", "press", "Save", show=True)]

    class Keys(App[None]):
        def compose(self) -> ComposeResult:
            yield Button("plain", id="plain")
            yield Button("other", id="other")
            yield Saver("save", id="saver")
            yield KeyFooter()

    app = Keys()
    async with app.run_test(size=(80, 10)) as pilot:
        footer = app.query_one(KeyFooter)
        app.query_one("#plain").focus()
        await pilot.pause()
        drawn = footer._line
        assert drawn is not None and "Save" not in line_of(footer)
        app.query_one("#other").focus()  # the bindings changed, the keys shown did not
        await pilot.pause()
        assert footer._line is drawn
        app.query_one("#saver").focus()
        await pilot.pause()
        assert " ^s Save " in line_of(footer)
        app.query_one("#plain").focus()
        await pilot.pause()
        assert "Save" not in line_of(footer)
