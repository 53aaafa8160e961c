"""The first frame is styled once: the screen has its width class before its widgets are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from app_helpers import wait_for

from agent_tui.runtime import Options
from agent_tui.ui.app import AgentApp


@pytest.mark.parametrize(("width", "expected"), [(80, "-narrow"), (130, "-wide")])
async def test_the_screen_has_its_width_class_when_its_widgets_are_composed(
    tmp_path: Path, width: int, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.ui.screens.main import MainScreen

    seen: list[set[str]] = []
    compose = MainScreen.compose

    def probed(self: MainScreen) -> Any:
        yield from compose(self)
        seen.append(set(self.classes))

    monkeypatch.setattr(MainScreen, "compose", probed)
    app = AgentApp(Options(cwd=tmp_path), record=False)
    async with app.run_test(size=(width, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        assert seen[0] & {"-narrow", "-wide"} == {expected}  # set before the first styling
        assert set(app.screen.classes) & {"-narrow", "-wide"} == {expected}
        assert app.query_one("#side").display is (expected == "-wide")


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
