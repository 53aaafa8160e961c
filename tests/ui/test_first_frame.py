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
    tmp_path: Path, width: int, expected: str
) -> None:
    seen: list[set[str]] = []

    class Probe(AgentApp):
        def compose(self) -> Any:
            yield from super().compose()
            seen.append(set(self.screen.classes))

    app = Probe(Options(cwd=tmp_path), record=False)
    async with app.run_test(size=(width, 30)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        assert seen[0] & {"-narrow", "-wide"} == {expected}  # set before the first styling
        assert set(app.screen.classes) & {"-narrow", "-wide"} == {expected}
        assert app.query_one("#side").display is (expected == "-wide")
