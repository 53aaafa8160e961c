"""The first frame is styled once: the side pane has its width class before it is styled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from app_helpers import wait_for

from agent_tui.runtime import Options
from agent_tui.ui.app import AgentApp


@pytest.mark.parametrize(("width", "narrow"), [(80, True), (130, False)])
async def test_the_side_pane_has_its_width_class_when_it_is_composed(
    tmp_path: Path, width: int, narrow: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.ui.screens.main import MainScreen

    seen: list[bool] = []
    compose = MainScreen.compose

    def probed(self: MainScreen) -> Any:
        for widget in compose(self):
            if widget.id == "side":
                seen.append(widget.has_class("-narrow"))
            yield widget

    monkeypatch.setattr(MainScreen, "compose", probed)
    app = AgentApp(Options(cwd=tmp_path), record=False)
    async with app.run_test(size=(width, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        assert seen == [narrow]  # set before the first styling
        assert app.query_one("#side").display is not narrow


async def test_a_resize_across_the_width_restyles_the_side_pane_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual's breakpoints put the width class on the screen, and styled every widget again
    on each resize across it; only the side pane needs it (itself: not its widgets). A resize
    while a dialog covers the main screen is caught up with when the screen is back."""
    from textual.css.stylesheet import Stylesheet

    restyled: list[Any] = []
    update_nodes = Stylesheet.update_nodes

    def spied(self: Stylesheet, nodes: Any, **kwargs: Any) -> None:
        nodes = list(nodes)
        restyled.extend(nodes)
        update_nodes(self, nodes, **kwargs)

    monkeypatch.setattr(Stylesheet, "update_nodes", spied)
    app = AgentApp(Options(cwd=tmp_path), record=False)
    async with app.run_test(size=(130, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        side = app.query_one("#side")
        main = app.screen
        restyled.clear()
        await pilot.resize_terminal(90, 30)
        await wait_for(pilot, lambda: not side.display)
        assert restyled == [side]  # not the screen, nor the pane's own widgets
        assert side.children and all(child.styles.display == "block" for child in side.children)
        await pilot.resize_terminal(120, 30)
        await wait_for(pilot, lambda: side.display)
        await pilot.press("f1")  # the help screen covers the main one
        await wait_for(pilot, lambda: app.screen is not main)
        await pilot.resize_terminal(85, 30)
        await pilot.pause()
        app.pop_screen()
        await wait_for(pilot, lambda: app.screen is main and not side.display)


async def test_focus_goes_to_the_prompt_directly_not_through_the_chat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.screen import Screen

    given: list[str | None] = []
    set_focus = Screen.set_focus

    def logged(self: Screen, widget: Any, *args: Any, **kwargs: Any) -> None:
        given.append(getattr(widget, "id", None))
        set_focus(self, widget, *args, **kwargs)

    monkeypatch.setattr(Screen, "set_focus", logged)
    focused: list[Any] = []

    class Probe(AgentApp):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            ready = self.boot.ready

            def probed(*args: Any) -> None:
                ready(*args)
                focused.append(self.focused)
                self.exit()

            self.boot.ready = probed  # type: ignore[method-assign]

    # As the app really starts (`run_test` orders its first focus differently).
    await Probe(Options(cwd=tmp_path), record=False).run_async(headless=True)
    assert focused[0] is not None and focused[0].id == "prompt"
    assert "chat" not in given  # each focus change styles the widget (and its children) again


async def test_a_headless_start_lays_the_screen_out_at_one_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual's headless driver says 80×24 and its console 80×25: without one size given, the
    first frame was laid out at 24, 25 and 24 rows."""
    import shutil

    from textual.screen import Screen

    sizes: list[tuple[int, int]] = []
    on_resize = Screen._on_resize

    async def logged(self: Screen, event: Any) -> None:
        sizes.append(tuple(event.size))
        await on_resize(self, event)

    monkeypatch.setattr(Screen, "_on_resize", logged)

    class Probe(AgentApp):
        def main_mounted(self) -> None:
            self.call_after_refresh(self.exit)
            super().main_mounted()

    await Probe(Options(cwd=tmp_path), record=False).run_async(headless=True)
    assert sizes and set(sizes) == {tuple(shutil.get_terminal_size())}


@pytest.mark.parametrize("first", ["queued", "hints"])
async def test_the_bars_above_the_prompt_come_when_needed_and_stack_in_order(
    tmp_path: Path, first: str
) -> None:
    from agent_tui.ui.widgets.prompt import PromptBar, QueuedPrompts, SlashHints

    app = AgentApp(Options(cwd=tmp_path), record=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        assert not app.query(PromptBar)  # not on the first frame
        order = (QueuedPrompts, SlashHints) if first == "queued" else (SlashHints, QueuedPrompts)
        for kind in order:
            bar = kind.of(app)
            assert kind.of(app) is bar  # mounted once
        await pilot.pause()
        ids = [w.id for w in app.screen.children if w.id in ("queued", "slash-hints", "prompt")]
        assert ids == ["queued", "slash-hints", "prompt"]


def test_no_rule_styles_the_side_pane_s_widgets_by_its_width_class() -> None:
    """`MainScreen._fit_width` styles the pane alone again when its `-narrow` class changes:
    that is exact only while no rule selects by that class anything but the pane itself."""
    import re

    from agent_tui.ui.app import STYLES

    found = []
    for sheet in STYLES.glob("*.tcss"):
        css = re.sub(r"/\*.*?\*/", "", sheet.read_text(), flags=re.S)
        for selectors in re.findall(r"([^{}]+)\{", css):
            found += [s.split() for s in selectors.split(",") if "-narrow" in s]
    assert found and all(selector[-1] == "#side.-narrow" for selector in found), found
