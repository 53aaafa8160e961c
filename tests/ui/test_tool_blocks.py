"""Pilot and snapshot tests of the chat's collapsible tool blocks."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static

import agent_tui
from agent_tui.protocol.events import (
    Event,
    SearchQueryUpdate,
    SearchResultsReceived,
    ToolCallReady,
    ToolFinished,
    ToolProgress,
    TurnFinished,
    Usage,
)
from agent_tui.ui.views.tool_activity import RESULT_HEAD_LINES, RESULT_TAIL_LINES, SEARCH_ERROR_TEXT
from agent_tui.ui.widgets.tool_blocks import SearchBlock, ToolBlock, tool_block_for

SIZE = (100, 30)
BLOCKS_TCSS = Path(agent_tui.__file__).parent / "ui" / "styles" / "tool_blocks.tcss"

RESULTS_1 = [
    {
        "title": "Textual [b]Content[/b] guide",
        "url": "https://textual.textualize.io/guide/content/",
    },
    {"title": "Rich markup", "url": "https://rich.readthedocs.io/en/latest/markup.html"},
    {"title": "", "url": "javascript:alert(1)"},
]
RESULTS_2 = [
    {"title": "Textual widgets", "url": "https://textual.textualize.io/widgets/"},
    {"title": "Static", "url": "https://textual.textualize.io/widgets/static/"},
    {"title": "Collapsible", "url": "https://textual.textualize.io/widgets/collapsible/"},
]


def search_events(tool_id: str = "toolu_s") -> list[Event]:
    return [
        ToolCallReady(1, tool_id, "WebSearch", {"query": "textual content markup"}),
        SearchQueryUpdate(tool_id, "textual content"),
        SearchQueryUpdate(tool_id, "textual content [markup]"),
        SearchResultsReceived(tool_id, "textual content [markup]", 3, RESULTS_1),
        SearchQueryUpdate(tool_id, "textual widgets"),
        SearchResultsReceived(tool_id, "textual widgets", 3, RESULTS_2),
        ToolFinished(tool_id, "WebSearch", False, "Did 2 searches in 3.1s", 3.1, "…"),
    ]


def bash_events(tool_id: str = "toolu_b", n_lines: int = 3) -> list[Event]:
    output = "".join(f"line {i}\n" for i in range(n_lines))
    return [
        ToolCallReady(2, tool_id, "Bash", {"command": "git status --short [x]"}),
        ToolProgress(tool_id, "Bash", output=output),
        ToolFinished(tool_id, "Bash", False, f"exit 0 · {n_lines} lines · 0.2s", 0.2, output),
    ]


class BlocksApp(App[None]):
    CSS_PATH = [BLOCKS_TCSS]

    def __init__(self, *blocks: ToolBlock) -> None:
        super().__init__()
        self.blocks = blocks

    def compose(self) -> ComposeResult:
        yield from self.blocks


def feed(block: ToolBlock, events: list[Event]) -> None:
    for event in events:
        block.handle(event)


def body_of(block: ToolBlock) -> Static:
    return block.query_one(".tool-block-body", Static)


def header_of(block: ToolBlock) -> Static:
    return block.query_one(".tool-block-header", Static)


async def test_search_block_collapsed_shows_only_summary_and_count() -> None:
    block = SearchBlock("toolu_s", "WebSearch")
    app = BlocksApp(block)
    async with app.run_test(size=SIZE) as pilot:
        feed(block, search_events())
        await pilot.pause()
        assert block.header_text == "▶ Did 2 searches in 3.1s · 6 results"
        assert str(header_of(block).render().plain) == block.header_text
        assert not body_of(block).display or body_of(block).styles.display == "none"
        assert body_of(block).region.height == 0
        assert block.region.height == 1


async def test_search_block_expands_to_queries_titles_and_links() -> None:
    block = SearchBlock("toolu_s", "WebSearch")
    app = BlocksApp(block)
    async with app.run_test(size=SIZE) as pilot:
        feed(block, search_events())
        block.focus()
        await pilot.press("enter")
        assert block.expanded
        assert block.header_text.startswith("▼ Did 2 searches in 3.1s")
        body = body_of(block)
        expected = [
            "search: textual content [markup]  3 results",
            "  • Textual [b]Content[/b] guide",
            "    https://textual.textualize.io/guide/content/",
            "  • Rich markup",
            "    https://rich.readthedocs.io/en/latest/markup.html",
            "  • javascript:alert(1)",
            "    javascript:alert(1)",
            "search: textual widgets  3 results",
            "  • Textual widgets",
            "    https://textual.textualize.io/widgets/",
            "  • Static",
            "    https://textual.textualize.io/widgets/static/",
            "  • Collapsible",
            "    https://textual.textualize.io/widgets/collapsible/",
        ]
        await pilot.pause()
        assert body.render().plain.split("\n") == expected
        assert body.region.height == len(expected)
        # Web URLs become terminal hyperlinks; anything else stays plain text.
        links = {
            span.style.link
            for span in block.body_content().spans
            if not isinstance(span.style, str) and span.style.link
        }
        assert links == {r["url"] for r in RESULTS_1[:2] + RESULTS_2}

        await pilot.press("space")
        assert not block.expanded
        await pilot.pause()
        assert body.region.height == 0


async def test_clicking_the_header_toggles() -> None:
    block = tool_block_for("toolu_s", "WebSearch")
    app = BlocksApp(block)
    async with app.run_test(size=SIZE) as pilot:
        feed(block, search_events())
        await pilot.click(header_of(block))
        assert block.expanded
        await pilot.click(header_of(block))
        assert not block.expanded


async def test_search_block_live_header_then_error_codes() -> None:
    block = SearchBlock("toolu_s", "WebSearch")
    app = BlocksApp(block)
    async with app.run_test(size=SIZE) as pilot:
        block.handle(ToolCallReady(1, "toolu_s", "WebSearch", {"query": "q"}))
        block.handle(SearchQueryUpdate("toolu_s", "python [asyncio]"))
        await pilot.pause()
        assert block.header_text == "▶ ● searching: python [asyncio]"
        block.handle(
            SearchResultsReceived("toolu_s", "python [asyncio]", 0, error_code="query_too_long")
        )
        block.handle(SearchQueryUpdate("toolu_s", "asyncio"))
        block.handle(SearchResultsReceived("toolu_s", "asyncio", 0, error_code="max_uses_exceeded"))
        block.handle(ToolFinished("toolu_s", "WebSearch", False, "", 1.25))
        await pilot.pause()
        # counted as the tool counts them: an error result is not a search (nor billed as one)
        assert block.header_text == "▶ Did 0 searches in 1.2s · 0 results"
        assert block.body_text.split("\n") == [
            f"search: python [asyncio]  {SEARCH_ERROR_TEXT['query_too_long']}",
            f"search: asyncio  {SEARCH_ERROR_TEXT['max_uses_exceeded']}",
        ]
        warning_spans = [s for s in block.body_content().spans if s.style == ".tool--warning"]
        assert len(warning_spans) == 2


async def test_search_block_failed_tool() -> None:
    block = SearchBlock("toolu_s", "WebSearch")
    app = BlocksApp(block)
    async with app.run_test(size=SIZE) as pilot:
        block.handle(ToolCallReady(1, "toolu_s", "WebSearch", {"query": "q"}))
        block.handle(ToolFinished("toolu_s", "WebSearch", True, "search unavailable: 529", 0.3))
        await pilot.pause()
        assert block.header_text == "▶ search unavailable: 529"
        assert block.has_class("-error")


async def test_tool_call_block_header_and_capped_output() -> None:
    n = 1_000
    block = ToolBlock("toolu_b", "Bash")
    app = BlocksApp(block)
    async with app.run_test(size=SIZE) as pilot:
        feed(block, bash_events(n_lines=n))
        await pilot.pause()
        assert block.header_text == "▶ ✓ Bash  git status --short [x]  exit 0 · 1000 lines · 0.2s"
        block.expanded = True
        await pilot.pause()
        lines = block.body_text.split("\n")
        omitted = n - RESULT_HEAD_LINES - RESULT_TAIL_LINES
        assert lines[:2] == ["line 0", "line 1"]
        assert lines[RESULT_HEAD_LINES] == f"… {omitted:,} lines not shown …"
        assert lines[-1] == f"line {n - 1}"
        assert len(lines) == RESULT_HEAD_LINES + 1 + RESULT_TAIL_LINES
        assert body_of(block).region.height == len(lines)


async def test_tool_call_block_while_running_shows_the_live_tail() -> None:
    block = ToolBlock("toolu_b", "Bash", expanded=True)
    app = BlocksApp(block)
    async with app.run_test(size=SIZE) as pilot:
        block.handle(ToolCallReady(2, "toolu_b", "Bash", {"command": "make"}))
        block.handle(ToolProgress("toolu_b", "Bash", output="".join(f"{i}\n" for i in range(50))))
        await pilot.pause()
        assert block.header_text == "▼ ● Bash  make"
        assert block.body_text.split("\n")[0] == "… 42 lines not shown …"
        block.handle(TurnFinished("end_turn", Usage(), 0.0, 1, cancelled=True))
        await pilot.pause()
        assert block.header_text == "▼ ■ Bash  make  cancelled"


async def test_webfetch_and_file_blocks() -> None:
    fetch = tool_block_for("toolu_f", "WebFetch")
    read = tool_block_for("toolu_r", "Read")
    app = BlocksApp(fetch, read)
    async with app.run_test(size=SIZE) as pilot:
        fetch.handle(ToolCallReady(1, "toolu_f", "WebFetch", {"url": "https://example.com/[x]"}))
        fetch.handle(ToolProgress("toolu_f", "WebFetch", status="fetching: https://example.com/"))
        read.handle(ToolCallReady(2, "toolu_r", "Read", {"path": "README.md"}))
        read.handle(ToolFinished("toolu_r", "Read", True, "no such file: README.md", 0.0))
        await pilot.pause()
        assert fetch.header_text == (
            "▶ ● WebFetch  https://example.com/[x]  fetching: https://example.com/"
        )
        assert read.header_text == "▶ ✗ Read  README.md  no such file: README.md"
        assert read.has_class("-error")


async def test_events_before_mount_and_of_other_calls() -> None:
    block = tool_block_for("toolu_s", "WebSearch")
    assert isinstance(block, SearchBlock)
    feed(block, search_events())  # the chat may build a block from stored events
    block.handle(SearchQueryUpdate("toolu_other", "not mine"))
    app = BlocksApp(block)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert str(header_of(block).render().plain) == "▶ Did 2 searches in 3.1s · 6 results"
        assert "not mine" not in block.body_text


@pytest.mark.parametrize(("name", "cls"), [("WebSearch", SearchBlock), ("Bash", ToolBlock)])
def test_tool_block_for_picks_the_block(name: str, cls: type[ToolBlock]) -> None:
    assert type(tool_block_for("toolu_1", name)) is cls


def test_snapshot_expanded_search_block(snap_compare) -> None:  # type: ignore[no-untyped-def]
    search = SearchBlock("toolu_s", "WebSearch", expanded=True)
    collapsed = SearchBlock("toolu_s2", "WebSearch")
    bash = ToolBlock("toolu_b", "Bash")
    feed(search, search_events("toolu_s"))
    feed(collapsed, search_events("toolu_s2"))
    feed(bash, bash_events())

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        pilot.app.set_focus(None)

    assert snap_compare(
        BlocksApp(search, collapsed, bash), terminal_size=SIZE, run_before=run_before
    )
