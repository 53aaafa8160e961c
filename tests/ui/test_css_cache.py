"""The parsed-stylesheet cache (`ui/startup/css_cache.py`): a start after the first parses no CSS it
kept,
draws the same screen, and ignores a cache that doesn't fit."""

from __future__ import annotations

import asyncio
import pickle
from pathlib import Path

import pytest
import textual.css.stylesheet
from textual.app import App
from textual.css.stylesheet import Stylesheet, StylesheetParseError

from agent_tui.ui.startup import css_cache

STYLES = Path(css_cache.__file__).parent.parent / "styles"
SHEETS = ("app.tcss", "tool_pane.tcss", "approval.tcss")


@pytest.fixture(autouse=True)
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path))
    return tmp_path


def read_sheets(stylesheet: Stylesheet) -> list[str]:
    for name in SHEETS:
        stylesheet.read(STYLES / name)
    stylesheet.parse()
    return [rule.css for rule in stylesheet.rules]


def keep(stylesheet: Stylesheet, loaded: frozenset = frozenset()) -> None:
    data = css_cache.snapshot(stylesheet, loaded)
    assert data is not None
    css_cache.save(data)


def test_the_next_start_takes_the_rules_without_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    first = App().stylesheet
    parsed = read_sheets(first)
    keep(first)

    second = App().stylesheet
    loaded = css_cache.load(second)
    assert len(loaded) == len(SHEETS)

    def no_parsing(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed a stylesheet the cache holds")

    monkeypatch.setattr(textual.css.stylesheet, "parse", no_parsing)
    assert read_sheets(second) == parsed
    # Nothing new was parsed: there is nothing to write again.
    assert css_cache.snapshot(second, loaded) is None


def test_a_new_stylesheet_is_parsed_and_kept_with_the_rest() -> None:
    first = App().stylesheet
    first.read(STYLES / "app.tcss")
    first.parse()
    keep(first)

    second = App().stylesheet
    loaded = css_cache.load(second)
    read_sheets(second)  # two of them are new
    keep(second, loaded)
    assert len(css_cache.load(App().stylesheet)) == len(SHEETS)


def test_other_theme_variables_are_parsed_afresh() -> None:
    first = App().stylesheet
    read_sheets(first)
    keep(first)
    other = Stylesheet(variables={**App().get_css_variables(), "primary": "#ff0000"})
    assert css_cache.load(other) == frozenset()


def test_another_textual_release_is_parsed_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    first = App().stylesheet
    read_sheets(first)
    keep(first)
    monkeypatch.setattr(css_cache, "_textual_fingerprint", lambda: (("textual", 0, 0),))
    assert css_cache.load(App().stylesheet) == frozenset()


@pytest.mark.parametrize("content", [b"", b"not a pickle", pickle.dumps({"format": 99})])
def test_an_unreadable_cache_is_ignored_and_rewritten(home: Path, content: bytes) -> None:
    (home / "cache").mkdir()
    (home / "cache" / css_cache.FILE_NAME).write_bytes(content)
    stylesheet = App().stylesheet
    assert css_cache.load(stylesheet) == frozenset()
    read_sheets(stylesheet)
    keep(stylesheet)
    assert len(css_cache.load(App().stylesheet)) == len(SHEETS)


def test_css_with_errors_is_not_kept() -> None:
    stylesheet = App().stylesheet
    stylesheet.add_source("Static { color: not-a-colour; }", read_from=("bad.tcss", ""))
    with pytest.raises(StylesheetParseError):
        stylesheet.parse()
    assert css_cache.snapshot(stylesheet, frozenset()) is None


def test_it_stands_down_if_textual_keeps_no_memo_where_expected() -> None:
    stylesheet = App().stylesheet
    read_sheets(stylesheet)
    keep(stylesheet)
    changed = App().stylesheet
    del changed._parse_cache
    assert css_cache.load(changed) == frozenset()
    assert css_cache.snapshot(changed, frozenset()) is None


def test_an_unwritable_cache_directory_costs_only_the_next_parse(home: Path) -> None:
    (home / "cache").write_text("a file where the directory would be")
    stylesheet = App().stylesheet
    read_sheets(stylesheet)
    keep(stylesheet)  # no error
    assert css_cache.load(App().stylesheet) == frozenset()


async def test_a_start_with_kept_rules_draws_the_same_screen(home: Path) -> None:
    from agent_tui.runtime import Options
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.widgets.prompt import PromptInput

    loaded: list[frozenset] = []
    screens: list[str] = []

    class Probe(AgentApp):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            self.settled = asyncio.Event()
            save = self.boot.save_parsed_css

            def saved() -> None:  # the boot thread, once the app is ready
                save()
                self.call_from_thread(self.settled.set)

            self.boot.save_parsed_css = saved  # type: ignore[method-assign]

        def main_mounted(self) -> None:
            # A steady cursor: a blinking one is drawn or not by when the screenshot falls.
            self.query_one(PromptInput).cursor_blink = False
            super().main_mounted()

    (home / "project").mkdir()
    for _ in range(2):
        app = Probe(Options(cwd=home / "project", offline=True), record=False)
        async with app.run_test(size=(110, 30)) as pilot:
            # Bounded: if the cache were never saved, `settled` would never be set.
            await asyncio.wait_for(app.settled.wait(), timeout=60)
            await pilot.pause()  # the side pane, mounted when the agent was ready, is drawn
            loaded.append(app.boot.css_loaded)
            screens.append(app.export_screenshot())
    assert loaded[0] == frozenset()  # the first start parsed everything and kept it
    assert len(loaded[1]) >= len(SHEETS)  # the second took it: ours and Textual's widgets'
    assert "No&#160;approvals&#160;yet." in screens[0]  # the side pane is on them (SVG text)
    assert screens[1] == screens[0]


async def test_a_start_cut_short_at_its_first_frame_still_keeps_the_rules(home: Path) -> None:
    """A person who quits at once, or a start killed before the agent is built, leaves the
    parsed stylesheets all the same: they are kept before the first frame is painted."""
    from agent_tui.runtime import Options
    from agent_tui.ui.app import AgentApp

    loaded: list[frozenset] = []

    class CutShort(AgentApp):
        def main_mounted(self) -> None:  # leave at the first frame
            loaded.append(self.boot.css_loaded)
            self.call_after_refresh(self.exit)
            # the agent is never built, so its later save never runs
            self.boot.start = lambda: None  # type: ignore[method-assign]
            super().main_mounted()

    (home / "project").mkdir()
    for _ in range(2):
        app = CutShort(Options(cwd=home / "project", offline=True), record=False)
        await asyncio.wait_for(app.run_async(headless=True, size=(110, 30)), timeout=60)
    assert loaded[0] == frozenset()
    assert len(loaded[1]) >= len(SHEETS)


def test_rules_that_do_not_pickle_cost_only_the_next_parse(home: Path) -> None:
    """Kept before the first frame, so a Textual whose parsed rules don't pickle must not stop
    the app starting: nothing is written, and the next start parses as usual."""
    stylesheet = App().stylesheet
    read_sheets(stylesheet)
    data = css_cache.snapshot(stylesheet, frozenset())
    assert data is not None
    data["rules"]["unpicklable"] = lambda: None
    css_cache.save(data)  # no error
    assert not (home / "cache").exists()  # not even a half-written file
