"""`render_markdown` renders as Rich's own `Markdown` does, with one parser for the process: no
parser built per text, and no cyclic garbage left for the collector (each parser Rich builds is
41 objects in cycles; a resize re-rendering 200 pieces left 8,000 of them to a young collection)."""

from __future__ import annotations

import gc
import io
from collections.abc import Iterator

import pytest
from markdown_it import MarkdownIt
from rich.console import Console
from rich.markdown import Markdown

from agent_tui.ui.chat.markdown_pieces import WARM_UP_SAMPLE, render_markdown

SAMPLES = [
    WARM_UP_SAMPLE,
    "Plain prose, ~~struck~~ and **bold** with _emphasis_ and a https://example.com/bare link.",
    "1. one\n   - nested *item*\n   - another\n2. two\n\n> quoted `code`\n> across lines",
    "| left | right | centre |\n|:--|--:|:-:|\n| a | 1 | x |\n| **b** | 22 | `y` |",
    "```\nno language\n```\n\n```bash\necho $HOME | tr a-z A-Z\n```\n\n    indented code",
    "# H1\n## H2\n### H3\nSetext\n---\n\n***\n\n[ref]: https://example.com\n\nsee [it][ref]",
    "<div>html</div> and &amp; entities, a hard  \nbreak, and [markup] [bold]not markup[/bold]",
    "",
]


def rendered(renderable: object, width: int) -> list[str]:
    console = Console(file=io.StringIO(), width=width, color_system="truecolor")
    with console.capture() as capture:
        console.print(renderable)
    return capture.get().splitlines()


@pytest.mark.parametrize("width", [30, 80, 131])
@pytest.mark.parametrize("text", SAMPLES)
def test_renders_as_rich_markdown_does(text: str, width: int) -> None:
    stock = Markdown(text, code_theme="monokai", hyperlinks=False)
    assert rendered(render_markdown(text), width) == rendered(stock, width)


def test_each_text_is_its_own() -> None:
    first, second = render_markdown("# one"), render_markdown("- two")
    assert rendered(first, 40) == rendered(Markdown("# one", hyperlinks=False), 40)
    assert rendered(second, 40) == rendered(Markdown("- two", hyperlinks=False), 40)


@pytest.fixture
def parsers_built(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[MarkdownIt]]:
    built: list[MarkdownIt] = []
    original = MarkdownIt.__init__

    def counting(self: MarkdownIt, *args: object, **kwargs: object) -> None:
        built.append(self)
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(MarkdownIt, "__init__", counting)
    yield built


def test_no_parser_is_built_per_text(parsers_built: list[MarkdownIt]) -> None:
    render_markdown("warm")  # the process's parser, if no test made it yet
    parsers_built.clear()
    for text in SAMPLES * 5:
        rendered(render_markdown(text), 60)
    assert parsers_built == []


def test_rendering_leaves_no_cyclic_garbage() -> None:
    rendered(render_markdown(WARM_UP_SAMPLE), 60)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for i, text in enumerate(SAMPLES * 3):
            rendered(render_markdown(f"{text}\n\n{i}"), 60)
        gc.collect()
        garbage = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert garbage == []
