"""Code blocks don't wait for their lexer in a frame (`code_lexers`): inside `deferring` a block
whose lexer isn't loaded is painted plain (the same lines), its lexer loads in a thread, and the
widget that painted it paints it again, coloured. Outside, it loads in place, as before. Each
test has a loader of its own: what Pygments compiled stays for the process, what a loader knows
is its own."""

from __future__ import annotations

import asyncio
import io
import threading
import time
from collections.abc import Iterator
from typing import Any

import pygments.lexers
import pytest
from rich.console import Console
from rich.segment import Segment

from agent_tui.ui.chat import code_lexers
from agent_tui.ui.chat.code_lexers import LexerLoader, deferring
from agent_tui.ui.chat.markdown_pieces import PieceCache, render_markdown
from agent_tui.ui.chat.messages import AssistantMessage, ChatView, MarkdownSegment
from tests.ui.test_chat_perf import ChatApp

CSS = "Some style:\n\n```css\nbody { color: red; margin: 0 auto; }\na:hover { color: #abc; }\n```\n"
KOTLIN = "```kotlin\nfun main() {\n    val x = listOf(1, 2, 3)\n    println(x)\n}\n```\n"


class GatedLoader(LexerLoader):
    """Loads only once `gate` is set: what is shown meanwhile can be looked at."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def load(self, name: str) -> None:
        if threading.current_thread().name == "lexers":
            self.gate.wait(10)
        super().load(name)


@pytest.fixture
def loader(monkeypatch: pytest.MonkeyPatch) -> Iterator[GatedLoader]:
    loader = GatedLoader()
    monkeypatch.setattr(code_lexers, "LEXERS", loader)
    yield loader
    loader.gate.set()


def rendered(renderable: Any, width: int = 60) -> list[list[Segment]]:
    console = Console(file=io.StringIO(), width=width, color_system="truecolor")
    return console.render_lines(renderable, pad=False)


def text(lines: list[list[Segment]]) -> list[str]:
    return ["".join(s.text for s in line) for line in lines]


def code_colours(lines: list[list[Segment]]) -> set[str]:
    """The colours of the code's text (segments on the code theme's background)."""
    segments = [s for line in lines for s in line if s.style and s.style.bgcolor]
    return {str(s.style.color) for s in segments if s.style and s.text.strip()}


def test_waiting_for_its_lexer_a_block_is_painted_plain_in_the_same_lines(
    loader: GatedLoader,
) -> None:
    with deferring() as waiting:
        plain = rendered(render_markdown(CSS))
    assert waiting == {"css"}
    assert not loader.ready("css")
    loader.load("css")  # in place (the test's thread), as a block outside `deferring` does
    coloured = rendered(render_markdown(CSS))
    assert text(plain) == text(coloured)
    assert len(code_colours(plain)) == 1  # the theme's text colour, on its background
    assert len(code_colours(coloured)) > 2


def test_outside_deferring_a_block_loads_its_lexer_in_place(loader: GatedLoader) -> None:
    lines = rendered(render_markdown(KOTLIN))
    assert loader.ready("kotlin")
    assert len(code_colours(lines)) > 2


def test_nested_deferring_tells_every_level() -> None:
    loader = LexerLoader()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(code_lexers, "LEXERS", loader)
        with deferring() as outer:
            with deferring() as inner:
                rendered(render_markdown(KOTLIN))
            rendered(render_markdown(CSS))
    assert inner == {"kotlin"}
    assert outer == {"kotlin", "css"}


def test_the_loader_calls_back_once_every_name_is_loaded_from_its_thread() -> None:
    loader = LexerLoader()
    called: list[str] = []
    done = threading.Event()

    def callback() -> None:
        called.append(threading.current_thread().name)
        done.set()

    loader.when_ready(["css", "kotlin", "no-such-language", "css"], callback)
    assert done.wait(10)
    assert called == ["lexers"]
    assert all(loader.ready(n) for n in ("css", "kotlin", "no-such-language"))
    now: list[bool] = []
    loader.when_ready(["css"], lambda: now.append(True))  # all loaded: called at once
    assert now == [True]


def test_one_lexer_is_compiled_by_one_thread_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pygments compiles a class on its first instance; two threads at once could mix up its
    states. Every load goes through one lock, and a name loaded is not loaded again."""
    loader = LexerLoader()
    real = pygments.lexers.get_lexer_by_name
    inside, most, calls = [0], [0], []

    def slow(name: str, **options: Any) -> Any:
        inside[0] += 1
        most[0] = max(most[0], inside[0])
        calls.append(name)
        time.sleep(0.02)
        inside[0] -= 1
        return real(name, **options)

    monkeypatch.setattr(pygments.lexers, "get_lexer_by_name", slow)
    done = threading.Event()
    loader.when_ready(["yaml", "toml"], done.set)
    threads = [threading.Thread(target=loader.load, args=(n,)) for n in ("yaml", "toml", "yaml")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert done.wait(10)
    assert most[0] == 1
    assert sorted(calls) == ["toml", "yaml"]


def test_a_lexer_that_fails_to_load_leaves_its_block_plain_and_the_rest_go_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loader = LexerLoader()

    def broken(name: str, **options: Any) -> Any:
        raise RuntimeError("broken lexer")

    monkeypatch.setattr(pygments.lexers, "get_lexer_by_name", broken)
    done = threading.Event()
    loader.when_ready(["css"], done.set)
    assert done.wait(10)
    assert loader.ready("css")


async def test_a_piece_painted_plain_is_not_kept(loader: GatedLoader) -> None:
    cache = PieceCache()
    app = ChatApp()
    async with app.run_test(size=(80, 24)):
        segment = MarkdownSegment("x")
        await app.query_one(ChatView).mount(segment)
        with deferring():
            first = cache.lines(segment, CSS, 60)
        assert len(cache._lines) == 0  # plain: painted again once the lexer is in
        loader.gate.set()
        await asyncio.to_thread(loader.load, "css")
        again = cache.lines(segment, CSS, 60)
        assert len(cache._lines) == 1
        assert [s.text for s in first] == [s.text for s in again]
        assert first != again  # the colours came


async def wait_for(condition: Any, pilot: Any, timeout: float = 10) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        await pilot.pause(0.01)


def strips_text(segment: MarkdownSegment) -> list[str]:
    return [strip.text for strip in segment._render_at(segment.size.width)]


async def test_a_segment_paints_its_code_plain_then_coloured_in_the_same_lines(
    loader: GatedLoader,
) -> None:
    app = ChatApp()
    async with app.run_test(size=(80, 24)) as pilot:
        segment = MarkdownSegment(CSS + "\n" + KOTLIN)
        await app.query_one(ChatView).mount(segment)
        await wait_for(lambda: segment.size.height > 0 and segment._renders, pilot)
        plain = list(next(iter(segment._renders.values())))
        height = segment.size.height
        assert segment._awaiting_lexers
        loader.gate.set()
        await wait_for(lambda: not segment._awaiting_lexers and segment._renders, pilot)
        await pilot.pause()
        coloured = segment._render_at(segment.size.width)
        assert [s.text for s in plain] == [s.text for s in coloured]
        assert plain != coloured
        assert segment.size.height == height  # nothing moved
        assert loader.ready("css") and loader.ready("kotlin")


async def test_a_streaming_answer_gets_its_colours_when_the_lexer_is_in(
    loader: GatedLoader,
) -> None:
    app = ChatApp()
    async with app.run_test(size=(80, 24)) as pilot:
        message = AssistantMessage()
        await app.query_one(ChatView).add(message)
        for n in range(0, len(CSS), 7):
            message.write(CSS[n : n + 7])
            await pilot.pause()
        message.write("\nMore prose after the code.\n")
        await message.finish()  # its segments, frozen from the pieces painted while it streamed
        await pilot.pause()

        def painted() -> list[Any]:  # the answer's lines, segment after segment
            segments = message.query(MarkdownSegment)
            return [line for s in segments if s.size.width for line in s._render_at(s.size.width)]

        before = painted()
        assert any(s._awaiting_lexers for s in message.query(MarkdownSegment))
        assert not loader.ready("css")
        loader.gate.set()
        await wait_for(lambda: loader.ready("css"), pilot)
        await wait_for(
            lambda: not any(s._awaiting_lexers for s in message.query(MarkdownSegment)), pilot
        )
        await pilot.pause()
        after = painted()
        assert [line.text for line in before] == [line.text for line in after]
        assert before != after
