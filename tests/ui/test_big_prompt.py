"""A big prompt without spaces (minified JS, JSON, base64) goes through every pass in linear
time (issue 50): before, finding image paths in it with `shlex.split` took 14 s for 1 MB and
grew with the square of its size. The bound below is generous for a loaded 2-core machine
(4 MB takes ~2 s there; the quadratic pass alone took minutes); BENCHMARKS-style figures for
1, 2 and 4 MB are in the commit that made it linear."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from app_helpers import make_app, wait_for
from textual import events

from agent_tui.tools.media import image_words
from agent_tui.ui.chat.messages import UserMessage
from agent_tui.ui.widgets.prompt import PromptInput

pytestmark = pytest.mark.usefixtures("offline_env")

#: seconds a 4 MB prompt may take from its paste to its turn's end (see above)
BOUND_S = 60.0


async def test_a_four_megabyte_prompt_without_spaces_is_sent_and_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TUI_OFFLINE_DELAY", "0")
    text = ("abcdefghij0123456789+/" * 190_000)[:4_000_000]
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.agent is not None)
        prompt = app.query_one(PromptInput)
        prompt.focus()
        start = time.monotonic()
        prompt.post_message(events.Paste(text))
        await wait_for(pilot, lambda: bool(prompt.pastes), timeout=BOUND_S)
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.agent.messages) >= 2, timeout=BOUND_S)
        await wait_for(pilot, lambda: not app.turns.running, timeout=BOUND_S)
        await asyncio.sleep(0)
        assert time.monotonic() - start < BOUND_S
        assert app.agent.messages[0]["content"][0]["text"] == text  # sent whole
        assert app.query(UserMessage)


def test_image_paths_are_found_as_a_shell_would_read_them() -> None:
    prompt = "see \"my pic.PNG\" and a\\ b.jpg 'c d.gif' @e.webp file:///t/f.png x.png.txt"
    assert image_words(prompt) == ["my pic.PNG", "a b.jpg", "c d.gif", "@e.webp", "file:///t/f.png"]
    assert image_words('an unclosed "quote.png') == ["quote.png"]  # shlex refused the prompt
    assert image_words("x" * 1_000_000 + ".png") == ["x" * 1_000_000 + ".png"]
