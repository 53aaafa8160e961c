"""Search progress from the StreamAssembler on the wire fixtures: live query updates, result counts,
the error form, and pause_turn content kept verbatim."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sse_server import sse_fixture

from agent_tui.protocol.assembler import StreamAssembler
from agent_tui.protocol.events import (
    Event,
    SearchQueryUpdate,
    SearchResultsReceived,
    ToolCallReady,
)
from agent_tui.protocol.sse import iter_sse

SEARCH_FIXTURES = [
    "web_search.sse",
    "web_search_two_queries.sse",
    "web_search_error.sse",
    "pause_turn.sse",
]
ERROR_CODES = [
    "max_uses_exceeded",
    "too_many_requests",
    "invalid_tool_input",
    "query_too_long",
    "unavailable",
    "request_too_large",
]


def assemble(events: list[dict[str, Any]]) -> tuple[StreamAssembler, list[Event]]:
    assembler = StreamAssembler()
    out: list[Event] = []
    for event in events:
        out += assembler.feed(event)
    return assembler, out


def fixture_events(name: str) -> list[dict[str, Any]]:
    return list(iter_sse(sse_fixture(name)))


def updates_by_search(events: list[Event]) -> dict[str, list[str]]:
    by_id: dict[str, list[str]] = {}
    for event in events:
        if isinstance(event, SearchQueryUpdate):
            by_id.setdefault(event.tool_use_id, []).append(event.query)
    return by_id


def final_queries(events: list[Event]) -> dict[str, str]:
    return {
        e.tool_use_id: e.input["query"] for e in events if isinstance(e, ToolCallReady) and e.server
    }


def assert_growing_prefixes(updates: list[str], final: str) -> None:
    assert updates and updates[-1] == final
    for shorter, longer in itertools.pairwise(updates):
        assert longer.startswith(shorter) and len(longer) > len(shorter)


@pytest.mark.parametrize("name", SEARCH_FIXTURES)
def test_query_updates_are_growing_prefixes_of_the_final_query(name: str) -> None:
    _, events = assemble(fixture_events(name))
    finals = final_queries(events)
    updates = updates_by_search(events)
    assert finals and set(updates) == set(finals)
    for tool_use_id, final in finals.items():
        assert_growing_prefixes(updates[tool_use_id], final)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("web_search.sse", [("Python 3.13 release date", 3, None)]),
        ("web_search_two_queries.sse", None),  # two searches of 3, checked below
        (
            "web_search_error.sse",
            [
                ("Python 3.13 release date", 3, None),
                ("Python 3.13 end of life date", 0, "max_uses_exceeded"),
            ],
        ),
        ("pause_turn.sse", [("CPython 3.13 release notes", 3, None)]),
    ],
)
def test_result_counts_and_error_codes(
    name: str, expected: list[tuple[str, int, str | None]] | None
) -> None:
    _, events = assemble(fixture_events(name))
    results = [e for e in events if isinstance(e, SearchResultsReceived)]
    got = [(r.query, r.count, r.error_code) for r in results]
    if expected is None:
        assert [(count, code) for _, count, code in got] == [(3, None), (3, None)]
        assert len({query for query, _, _ in got}) == 2
    else:
        assert got == expected
    for result in results:
        assert len(result.results) == result.count
        assert all(r["url"].startswith("https://") and r["title"] for r in result.results)


def test_usage_counts_the_searches() -> None:
    for name, searches in [
        ("web_search.sse", 1),
        ("web_search_two_queries.sse", 2),
        ("web_search_error.sse", 1),
        ("pause_turn.sse", 1),
    ]:
        assembler, _ = assemble(fixture_events(name))
        assert assembler.usage.web_search_requests == searches, name


def _search_stream(content: Any) -> list[dict[str, Any]]:
    """A minimal stream: one server search for "abc", then a result block with `content`."""
    sid = "srvtoolu_test"
    return [
        {"type": "message_start", "message": {"id": "m", "model": "x", "usage": {}}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "server_tool_use", "id": sid, "name": "web_search"},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"query": "abc"}'},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {
                "type": "web_search_tool_result",
                "tool_use_id": sid,
                "content": content,
            },
        },
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    ]


@pytest.mark.parametrize("code", ERROR_CODES)
def test_every_error_code_is_reported(code: str) -> None:
    error = {"type": "web_search_tool_result_error", "error_code": code}
    assembler, events = assemble(_search_stream(error))
    [result] = [e for e in events if isinstance(e, SearchResultsReceived)]
    assert (result.query, result.count, result.error_code, result.results) == ("abc", 0, code, [])
    assert assembler.stop_reason == "end_turn"
    assert assembler.content[1]["content"] == error  # kept for sending back


def test_pause_turn_keeps_the_content_verbatim() -> None:
    raw = fixture_events("pause_turn.sse")
    assembler, events = assemble(raw)
    assert assembler.stop_reason == "pause_turn" and assembler.stopped
    types = [b["type"] for b in assembler.content]
    assert types == ["text", "server_tool_use", "web_search_tool_result", "server_tool_use"]
    started = next(
        e["content_block"]
        for e in raw
        if e["type"] == "content_block_start"
        and e["content_block"]["type"] == "web_search_tool_result"
    )
    assert assembler.content[2] == started  # encrypted_content and page_age untouched
    assert all(r["encrypted_content"] for r in assembler.content[2]["content"])
    # The second search has its query but no results yet: the continuation brings them.
    pending = assembler.content[3]
    assert pending["input"] == {"query": "CPython 3.14 release schedule"}
    assert len([e for e in events if isinstance(e, SearchResultsReceived)]) == 1


def test_citations_are_kept_on_text_blocks() -> None:
    assembler, _ = assemble(fixture_events("web_search.sse"))
    cited = [b for b in assembler.content if b["type"] == "text" and b.get("citations")]
    assert [b["text"] for b in cited] == [
        "Python 3.13.0 was released on October 7, 2024",
        ". Its headline features are a new interactive interpreter and an experimental "
        "free-threaded build",
    ]
    assert all(c["type"] == "web_search_result_location" for b in cited for c in b["citations"])


def _rechunk(events: list[dict[str, Any]], cuts: list[int]) -> list[dict[str, Any]]:
    """The same stream with each server search's input JSON split at other places."""
    out: list[dict[str, Any]] = []
    pending: dict[int, list[str]] = {}
    server_blocks: set[int] = set()
    for event in events:
        if event["type"] == "content_block_start" and (
            event["content_block"]["type"] == "server_tool_use"
        ):
            server_blocks.add(event["index"])
            pending[event["index"]] = []
        if event["type"] == "content_block_delta" and event["index"] in server_blocks:
            pending[event["index"]].append(event["delta"]["partial_json"])
            continue
        if event["type"] == "content_block_stop" and event["index"] in server_blocks:
            raw = "".join(pending[event["index"]])
            points = sorted({c % (len(raw) + 1) for c in cuts} | {0, len(raw)})
            for a, b in itertools.pairwise(points):
                delta = {"type": "input_json_delta", "partial_json": raw[a:b]}
                out.append({"type": "content_block_delta", "index": event["index"], "delta": delta})
        out.append(event)
    return out


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(SEARCH_FIXTURES),
    cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=40),
)
def test_prefix_property_holds_however_the_json_is_chunked(name: str, cuts: list[int]) -> None:
    _, events = assemble(_rechunk(fixture_events(name), cuts))
    finals = final_queries(events)
    updates = updates_by_search(events)
    for tool_use_id, final in finals.items():
        assert_growing_prefixes(updates[tool_use_id], final)


def test_escaped_query_streams_decoded() -> None:
    query = 'say "hi" — ok\\n'
    raw = json.dumps({"query": query})
    events = _search_stream([])
    chunks = [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": ch},
        }
        for ch in raw
    ]
    _, out = assemble(events[:2] + chunks + events[3:])
    updates = [e.query for e in out if isinstance(e, SearchQueryUpdate)]
    assert_growing_prefixes(updates, query)
