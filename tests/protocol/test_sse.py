"""iter_sse: the small `text/event-stream` reader used for offline scripts and fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sse_server import FIXTURES, sse_fixture

from agent_tui.protocol.sse import iter_sse

ALL_FIXTURES = sorted(p.name for p in FIXTURES.glob("*.sse"))


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_every_fixture_parses_to_the_data_lines(name: str) -> None:
    text = sse_fixture(name)
    expected = [
        json.loads(line[len("data:") :]) for line in text.splitlines() if line.startswith("data:")
    ]
    events = list(iter_sse(text))
    assert events == expected
    assert all(isinstance(e, dict) and "type" in e for e in events)
    assert events[0]["type"] == "message_start"


def test_fixture_set_is_complete() -> None:
    # The issue asks for every shared fixture; keep the copy honest.
    assert {
        "text_only.sse",
        "client_tool_bash.sse",
        "parallel_tools.sse",
        "web_search.sse",
        "web_search_two_queries.sse",
        "web_search_error.sse",
        "pause_turn.sse",
        "overloaded_midstream.sse",
    } <= set(ALL_FIXTURES)


def test_event_names_and_comments_are_ignored() -> None:
    text = ': a comment\nevent: ping\ndata: {"type": "ping"}\n\nevent: lonely\n\nid: 7\nretry: 10\n'
    assert list(iter_sse(text)) == [{"type": "ping"}]


def test_data_without_space_and_crlf_line_endings() -> None:
    text = 'data:{"type":"a"}\r\n\r\ndata: {"type":"b"}\r\n\r\n'
    assert list(iter_sse(text)) == [{"type": "a"}, {"type": "b"}]


def test_multi_line_data_is_joined_with_newlines() -> None:
    text = 'data: {"type":\ndata: "multi"}\n\n'
    assert list(iter_sse(text)) == [{"type": "multi"}]


def test_last_event_without_trailing_blank_line() -> None:
    assert list(iter_sse('data: {"type": "x"}')) == [{"type": "x"}]
    assert list(iter_sse("")) == []
    assert list(iter_sse("\n\n\n")) == []


def test_invalid_json_raises_value_error_naming_the_line() -> None:
    text = 'data: {"type": "ok"}\n\ndata: {"type": \n\n'
    events = iter_sse(text)
    assert next(events) == {"type": "ok"}
    with pytest.raises(ValueError, match="line 4"):
        next(events)


@pytest.mark.parametrize("data", ["[1, 2]", '"text"', "3", "null"])
def test_non_object_data_raises_value_error(data: str) -> None:
    with pytest.raises(ValueError, match="not a JSON object"):
        list(iter_sse(f"data: {data}\n\n"))


def test_unicode_is_kept(tmp_path: Path) -> None:
    text = 'data: {"type": "text", "t": "héllo \\u2603 🐍"}\n\n'
    assert list(iter_sse(text)) == [{"type": "text", "t": "héllo ☃ 🐍"}]
