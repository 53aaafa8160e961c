"""WebSearch against replayed sub-streams: the exact sub-request, live progress, pause_turn
continuation, the tool_result text, usage, and failures that must become results."""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import re
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from sse_server import sse_fixture

from agent_tui.protocol.assembler import StreamAssembler
from agent_tui.protocol.events import SearchQueryUpdate, SearchResultsReceived, Usage
from agent_tui.protocol.sse import iter_sse
from agent_tui.providers.anthropic import AnthropicProvider
from agent_tui.providers.base import MessageRequest, ProviderError, web_search_available
from agent_tui.providers.offline import OfflineProvider
from agent_tui.tools.base import ToolContext, ToolInputError, ToolOutput
from agent_tui.tools.builtin.web_search import (
    MAX_CONTINUATIONS,
    REMINDER,
    WebSearchTool,
)

CALL_ID = "toolu_01ClientWebSearchCall"


class ReplayProvider:
    """Answers request n with the n-th script: an .sse fixture name, an event list, or a
    callable that raises."""

    name = "anthropic"
    label = "replay"

    def __init__(self, *scripts: str | list[dict[str, Any]] | Callable[[], None]) -> None:
        self.scripts = list(scripts)
        self.requests: list[MessageRequest] = []

    def supports_web_search(self, model: str) -> bool:
        return True

    async def stream(self, request: MessageRequest) -> AsyncIterator[dict[str, Any]]:
        self.requests.append(copy.deepcopy(request))  # as sent, whatever the tool does later
        script = self.scripts[min(len(self.requests), len(self.scripts)) - 1]
        if callable(script):
            script()
            return
        events = list(iter_sse(sse_fixture(script))) if isinstance(script, str) else script
        for event in events:
            await asyncio.sleep(0)
            yield event


class Recorder:
    def __init__(self) -> None:
        self.events: list[Any] = []
        self.statuses: list[str] = []

    def queries(self, index: int) -> list[str]:
        return [
            e.query
            for e in self.events
            if isinstance(e, SearchQueryUpdate) and e.search_index == index
        ]

    @property
    def results(self) -> list[SearchResultsReceived]:
        return [e for e in self.events if isinstance(e, SearchResultsReceived)]


def fake_clock(*values: float) -> Callable[[], float]:
    """Returns the values in turn, then keeps returning the last one."""
    remaining = list(values)

    def clock() -> float:
        return remaining.pop(0) if len(remaining) > 1 else remaining[0]

    return clock


def make_ctx(provider: Any, recorder: Recorder, clock: Callable[[], float] | None = None) -> Any:
    return ToolContext(
        cwd=Path("."),
        data_dir=Path("."),
        provider=provider,
        model="claude-sonnet-4-5",
        tool_use_id=CALL_ID,
        emit=recorder.events.append,
        progress=lambda status="", output="": recorder.statuses.append(status),
        clock=clock,
    )


async def run_search(
    provider: Any, raw: dict[str, Any] | None = None, clock: Callable[[], float] | None = None
) -> tuple[ToolOutput, Recorder]:
    tool = WebSearchTool()
    recorder = Recorder()
    params = tool.validate(raw or {"query": "Python 3.13 release date"})
    output = await tool.run(params, make_ctx(provider, recorder, clock))
    return output, recorder


def assert_growing_prefixes(updates: list[str], final: str) -> None:
    assert updates, "no query updates"
    assert updates[-1] == final
    for shorter, longer in itertools.pairwise(updates):
        assert longer.startswith(shorter) and len(longer) > len(shorter)


def final_usage(name: str) -> Usage:
    assembler = StreamAssembler()
    for event in iter_sse(sse_fixture(name)):
        assembler.feed(event)
    return assembler.usage


def links_of(text: str) -> list[dict[str, str]]:
    match = re.search(r"^Links: (\[.*\])$", text, re.M)
    assert match, text
    return json.loads(match.group(1))


# --- the sub-request ----------------------------------------------------------------------------


async def test_sub_request_is_exactly_the_forced_server_search() -> None:
    provider = ReplayProvider("web_search.sse")
    await run_search(provider)
    [request] = provider.requests
    assert request.purpose == "web_search"
    assert request.model == "claude-sonnet-4-5"
    assert request.tools == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 8}]
    assert request.tool_choice == {"type": "tool", "name": "web_search"}
    assert request.messages == [
        {"role": "user", "content": "Perform a web search for the query: Python 3.13 release date"}
    ]
    assert isinstance(request.system, str) and request.system
    body = request.body()
    # the sub-request's fixed part (its one tool) is marked for prompt caching, nothing else
    assert body["tools"] == [{**request.tools[0], "cache_control": {"type": "ephemeral"}}]
    assert body["tool_choice"] == request.tool_choice


@pytest.mark.parametrize("key", ["allowed_domains", "blocked_domains"])
async def test_domain_lists_go_into_the_server_tool(key: str) -> None:
    provider = ReplayProvider("web_search.sse")
    await run_search(provider, {"query": "python release", key: ["python.org"]})
    assert provider.requests[0].tools == [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 8, key: ["python.org"]}
    ]


def test_both_domain_lists_is_an_input_error() -> None:
    tool = WebSearchTool()
    with pytest.raises(ToolInputError, match="not both"):
        tool.validate({"query": "x y", "allowed_domains": ["a.com"], "blocked_domains": ["b.com"]})


@pytest.mark.parametrize("raw", [{"query": "x"}, {"query": ""}, {}])
def test_short_or_missing_query_is_an_input_error(raw: dict[str, Any]) -> None:
    with pytest.raises(ToolInputError, match="query"):
        WebSearchTool().validate(raw)


def test_tool_definition() -> None:
    tool = WebSearchTool()
    schema = tool.schema()
    assert schema["name"] == "WebSearch" and tool.read_only
    assert schema["input_schema"]["required"] == ["query"]
    assert {"query", "allowed_domains", "blocked_domains"} <= set(
        schema["input_schema"]["properties"]
    )
    assert tool.subject(tool.validate({"query": "rust 1.83"})) == "rust 1.83"


# --- progress -----------------------------------------------------------------------------------


async def test_one_search_progress_and_result() -> None:
    output, recorder = await run_search(ReplayProvider("web_search.sse"))
    assert all(e.tool_use_id == CALL_ID for e in recorder.events)
    assert_growing_prefixes(recorder.queries(0), "Python 3.13 release date")
    [result] = recorder.results
    assert (result.search_index, result.count, result.error_code) == (0, 3, None)
    assert result.query == "Python 3.13 release date"
    assert "searching: Python 3.13 release date" in recorder.statuses
    assert not output.is_error
    assert output.meta["searches"] == 1 and output.meta["model"] == "claude-sonnet-4-5"
    assert output.meta["results"][0]["count"] == 3
    assert output.usage == final_usage("web_search.sse")
    assert output.usage.web_search_requests == 1


async def test_two_searches_are_numbered_and_summarized_with_the_clock() -> None:
    output, recorder = await run_search(
        ReplayProvider("web_search_two_queries.sse"), clock=fake_clock(100.0, 103.1)
    )
    final = [r.query for r in recorder.results]
    assert len(final) == 2 and final[0] != final[1]
    for index, query in enumerate(final):
        assert_growing_prefixes(recorder.queries(index), query)
    assert [(r.search_index, r.count) for r in recorder.results] == [(0, 3), (1, 3)]
    assert output.summary == "Did 2 searches in 3.1s"
    assert output.meta["searches"] == 2
    assert [r["query"] for r in output.meta["results"]] == final
    # Links: every result of both searches, each URL once, in order (the cited answer repeats
    # some of them).
    assert [link["url"] for link in links_of(output.content)] == [
        "https://www.python.org/downloads/release/python-3130/",
        "https://docs.python.org/3/whatsnew/3.13.html",
        "https://peps.python.org/pep-0719/",
        "https://blog.rust-lang.org/2024/11/28/Rust-1.83.0.html",
        "https://doc.rust-lang.org/stable/releases.html",
        "https://releases.rs/",
    ]


async def test_error_result_is_visible_and_not_fatal() -> None:
    output, recorder = await run_search(ReplayProvider("web_search_error.sse"))
    assert [(r.count, r.error_code) for r in recorder.results] == [
        (3, None),
        (0, "max_uses_exceeded"),
    ]
    assert [r.search_index for r in recorder.results] == [0, 1]
    assert_growing_prefixes(recorder.queries(1), recorder.results[1].query)
    assert not output.is_error
    assert "max_uses_exceeded" in output.content
    assert output.meta["searches"] == 1  # the refused search did not run (nor is it billed)
    assert output.summary.startswith("Did 1 search in ")
    assert output.meta["results"][1]["error_code"] == "max_uses_exceeded"


# --- pause_turn ---------------------------------------------------------------------------------


async def test_pause_turn_is_continued_with_the_content_verbatim() -> None:
    provider = ReplayProvider("pause_turn.sse", "pause_turn_continuation.sse")
    output, recorder = await run_search(provider, clock=fake_clock(5.0, 8.1))
    first, second = provider.requests
    paused = StreamAssembler()
    for event in iter_sse(sse_fixture("pause_turn.sse")):
        paused.feed(event)
    assert second.messages == [first.messages[0], {"role": "assistant", "content": paused.content}]
    result_block = next(
        b for b in second.messages[1]["content"] if b["type"] == "web_search_tool_result"
    )
    assert all(r["encrypted_content"] for r in result_block["content"])
    assert (second.tools, second.tool_choice, second.system) == (
        first.tools,
        first.tool_choice,
        first.system,
    )
    # The second search's query streamed in the paused response; its results came in the
    # continuation and are still reported under the right query and number.
    assert [(r.search_index, r.query, r.count) for r in recorder.results] == [
        (0, "CPython 3.13 release notes", 3),
        (1, "CPython 3.14 release schedule", 3),
    ]
    assert_growing_prefixes(recorder.queries(1), "CPython 3.14 release schedule")
    assert output.summary == "Did 2 searches in 3.1s"
    assert output.usage == final_usage("pause_turn.sse") + final_usage(
        "pause_turn_continuation.sse"
    )
    assert "Python 3.14.0 is scheduled for October 2025 ([PEP 745" in output.content


async def test_pause_turn_continuations_are_bounded() -> None:
    provider = ReplayProvider("pause_turn.sse")  # pauses forever
    output, _ = await run_search(provider)
    assert len(provider.requests) == MAX_CONTINUATIONS + 1
    assert not output.is_error
    assert "still paused" in output.content
    # Each continuation carries everything so far in one assistant message.
    assert [m["role"] for m in provider.requests[-1].messages] == ["user", "assistant"]


# --- the tool_result text -----------------------------------------------------------------------


async def test_result_text_has_header_cited_text_links_and_reminder() -> None:
    output, _ = await run_search(ReplayProvider("web_search.sse"))
    text = output.content
    assert text.startswith('Web search results for query: "Python 3.13 release date"\n\n')
    assert text.endswith(REMINDER)
    assert "markdown links" in REMINDER
    # Cited sources stay with the sentence they support.
    assert (
        "Python 3.13.0 was released on October 7, 2024 ([Python Release Python 3.13.0 | "
        "Python.org](https://www.python.org/downloads/release/python-3130/))"
    ) in text
    assert "an experimental free-threaded build ([What's New In Python 3.13" in text
    assert links_of(text) == [
        {
            "title": "Python Release Python 3.13.0 | Python.org",
            "url": "https://www.python.org/downloads/release/python-3130/",
        },
        {
            "title": "What's New In Python 3.13 — Python 3.13 documentation",
            "url": "https://docs.python.org/3/whatsnew/3.13.html",
        },
        {
            "title": "PEP 719 – Python 3.13 Release Schedule | peps.python.org",
            "url": "https://peps.python.org/pep-0719/",
        },
    ]


# --- failures -----------------------------------------------------------------------------------


def _raise_overloaded() -> None:
    raise ProviderError("The API is overloaded right now.", retryable=True, kind="overloaded")


def _cut(name: str, keep: int) -> list[dict[str, Any]]:
    return list(iter_sse(sse_fixture(name)))[:keep]


@pytest.mark.parametrize(
    ("script", "message"),
    [
        (_raise_overloaded, "overloaded"),
        (_cut("web_search.sse", 20), "ended before the response was complete"),
        ("overloaded_midstream.sse", "overloaded_error"),
    ],
    ids=["provider-error", "cut-stream", "error-event"],
)
async def test_failures_become_error_results(script: Any, message: str) -> None:
    output, _ = await run_search(ReplayProvider(script))
    assert output.is_error
    assert message in output.content
    assert output.content.startswith("Web search failed")


async def test_a_cut_stream_keeps_the_usage_and_links_so_far() -> None:
    events = _cut("web_search.sse", 20)  # up to the first search's results
    output, recorder = await run_search(ReplayProvider(events))
    assert output.is_error and recorder.results[0].count == 3
    assert "python-3130" in output.content
    assert output.usage.input_tokens == 2679  # from message_start


async def test_a_stalled_sub_stream_becomes_an_error_result() -> None:
    class Stalling(ReplayProvider):
        async def stream(self, request: MessageRequest) -> AsyncIterator[dict[str, Any]]:
            yield next(iter_sse(sse_fixture("web_search.sse")))
            await asyncio.Event().wait()

    tool = WebSearchTool(stall_timeout=0.01)
    output = await tool.run(
        tool.validate({"query": "slow search"}), make_ctx(Stalling(), Recorder())
    )
    assert output.is_error and "stalled" in output.content


async def test_cancel_propagates() -> None:
    started = asyncio.Event()

    class Hanging(ReplayProvider):
        async def stream(self, request: MessageRequest) -> AsyncIterator[dict[str, Any]]:
            started.set()
            await asyncio.Event().wait()
            yield {}

    tool = WebSearchTool()
    task = asyncio.create_task(
        tool.run(tool.validate({"query": "never"}), make_ctx(Hanging(), Recorder()))
    )
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_no_provider_is_an_error_result() -> None:
    output, _ = await run_search(None)
    assert output.is_error


# --- providers ----------------------------------------------------------------------------------


async def test_offline_model_searches_and_returns_links() -> None:
    output, recorder = await run_search(
        OfflineProvider(delay_scale=0), {"query": "textual markdown streaming"}
    )
    assert not output.is_error
    assert output.meta["searches"] == 2 and output.summary.startswith("Did 2 searches in ")
    # as many links as the two searches found (the offline index returns only matching pages)
    assert len(links_of(output.content)) == sum(r.count for r in recorder.results) > 3
    assert [r.search_index for r in recorder.results] == [0, 1]
    for result in recorder.results:
        assert_growing_prefixes(recorder.queries(result.search_index), result.query)
    assert recorder.results[0].query == "textual markdown streaming"


def _anthropic_on(monkeypatch: pytest.MonkeyPatch, env: Iterable[str]) -> AnthropicProvider:
    for name in (
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
        "ANTHROPIC_FOUNDRY_RESOURCE",
        "AGENT_TUI_USE_BEDROCK",
        "AGENT_TUI_USE_VERTEX",
        "AGENT_TUI_USE_FOUNDRY",
    ):
        monkeypatch.delenv(name, raising=False)
    for name in env:
        monkeypatch.setenv(name, "1")
    return AnthropicProvider()


@pytest.mark.parametrize(
    ("env", "model", "available"),
    [
        ((), "claude-sonnet-4-5", True),
        (("AGENT_TUI_USE_FOUNDRY",), "claude-sonnet-4-5", True),
        (("CLAUDE_CODE_USE_VERTEX",), "claude-sonnet-4-5@20250929", True),
        (("CLAUDE_CODE_USE_VERTEX",), "claude-3-5-haiku@20241022", False),
        (("CLAUDE_CODE_USE_BEDROCK",), "claude-sonnet-4-5", False),
    ],
)
def test_availability_by_platform(
    monkeypatch: pytest.MonkeyPatch, env: tuple[str, ...], model: str, available: bool
) -> None:
    assert web_search_available(_anthropic_on(monkeypatch, env), model) is available


def test_availability_offline_and_without_provider() -> None:
    assert web_search_available(OfflineProvider(delay_scale=0), "offline")
    assert not web_search_available(None, "claude-sonnet-4-5")
