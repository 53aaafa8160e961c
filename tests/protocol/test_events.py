"""Domain events: `to_dict()` / `event_from_dict()` round trips, `Usage` arithmetic and parsing."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from agent_tui.protocol import events as ev
from agent_tui.protocol.events import EVENT_TYPES, Event, Usage, event_from_dict

USAGE = Usage(10, 20, 3, 4, 1)

SAMPLES: list[Event] = [
    ev.MessageStarted("msg_1", "claude-sonnet-4-5"),
    ev.TextDelta(0, "hello"),
    ev.ThinkingDelta(0, "hmm"),
    ev.ToolCallStarted(1, "toolu_1", "Bash"),
    ev.ToolCallStarted(1, "srvtoolu_1", "web_search", server=True),
    ev.ToolInputDelta(1, "toolu_1", '{"comm'),
    ev.ToolCallReady(1, "toolu_1", "Bash", {"command": "ls"}),
    ev.ToolCallReady(1, "toolu_2", "Bash", {}, input_error="tool input is not valid JSON"),
    ev.SearchQueryUpdate("srvtoolu_1", "python", search_index=1),
    ev.SearchResultsReceived("srvtoolu_1", "python", 1, [{"title": "T", "url": "https://x"}]),
    ev.SearchResultsReceived("srvtoolu_1", "q", 0, [], error_code="max_uses_exceeded"),
    ev.BlockFinished(0, {"type": "text", "text": "hi", "citations": [{"url": "u"}]}),
    ev.MessageFinished("end_turn", USAGE, [{"type": "text", "text": "hi"}]),
    ev.StreamFailed("Overloaded", retryable=True, partial_text="Here is"),
    ev.TurnStarted("hi"),
    ev.RequestStarted(2),
    ev.ToolProgress("toolu_1", "Bash", status="running", output="line\n"),
    ev.ToolFinished("toolu_1", "Bash", False, "exit 0", 0.25, content="out"),
    ev.ApprovalRequested("toolu_1", "Bash", "rm -rf x", "no rule allows `rm`"),
    ev.ApprovalDecided(
        "toolu_1",
        "Bash",
        "ls",
        "allow",
        "user",
        None,
        ["Bash(ls:*)"],
        message="ok",
        answer="always",
        mode="default",
    ),
    ev.ContextCompacted("client", "the summary", 170_000, 12),
    ev.ChangeStarted(
        3, 7, "fix the tests", "toolu_1", "Write", "/p/a.py", "/p/a.py", "ab12", "100644"
    ),
    ev.ChangeRecorded(
        3,
        "toolu_2",
        "Bash",
        [{"path": "/p/a.py", "before": "ab12", "after": None, "by": "Bash"}],
        "t2",
    ),
    ev.FilesChanged(
        3,
        7,
        "fix the tests",
        [{"path": "/p/a.py", "before": "ab12", "after": None, "by": "Bash"}],
        ["t1", "t2"],
        ["make clean"],
        [{"tool": "Bash", "subject": "make", "path": "", "tree": "t2"}],
    ),
    ev.FilesRestored(3, ["/p/a.py"], ["/p/b.py"]),
    ev.Notice("warning", "max_tokens"),
    ev.UsageCounted(USAGE, 0.0042),
    ev.TurnFinished("end_turn", USAGE, 0.0123, 2, cancelled=False, failed=True),
]


def test_samples_cover_every_event_type() -> None:
    assert {type(e) for e in SAMPLES} == set(EVENT_TYPES.values())


def test_kinds_are_unique_and_registered() -> None:
    kinds = [cls.kind for cls in EVENT_TYPES.values()]
    assert len(kinds) == len(set(kinds))
    for kind, cls in EVENT_TYPES.items():
        assert cls.kind == kind


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_round_trip_through_json(event: Event) -> None:
    data = event.to_dict()
    assert data["type"] == event.kind
    wire = json.loads(json.dumps(data))  # JSON-ready: nothing that json cannot carry
    back = event_from_dict(wire)
    assert back == event
    assert type(back) is type(event)


def test_usage_is_a_nested_dict_in_to_dict() -> None:
    data = ev.TurnFinished("end_turn", USAGE, 0.5, 1).to_dict()
    assert data["usage"] == {
        "input_tokens": 10,
        "output_tokens": 20,
        "cache_creation_input_tokens": 3,
        "cache_read_input_tokens": 4,
        "web_search_requests": 1,
    }


def test_event_from_dict_ignores_unknown_keys_and_uses_defaults() -> None:
    back = event_from_dict({"type": "text", "index": 0, "text": "x", "extra": 1})
    assert back == ev.TextDelta(0, "x")
    assert event_from_dict({"type": "search_query", "tool_use_id": "s", "query": "q"}) == (
        ev.SearchQueryUpdate("s", "q", 0)
    )


def test_event_from_dict_unknown_type_raises_key_error() -> None:
    with pytest.raises(KeyError):
        event_from_dict({"type": "no_such_event"})


def test_events_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        ev.TextDelta(0, "x").text = "y"  # type: ignore[misc]


def test_usage_addition_sums_every_field() -> None:
    total = Usage(1, 2, 3, 4, 5) + Usage(10, 20, 30, 40, 50)
    assert total == Usage(11, 22, 33, 44, 55)
    assert Usage() + Usage() == Usage()
    assert total.total_tokens == 11 + 22 + 33 + 44  # searches are not tokens


def test_usage_sum_over_many() -> None:
    parts = [Usage(i, 2 * i, 0, 1, i % 2) for i in range(10)]
    total = Usage()
    for part in parts:
        total += part
    assert total == Usage(45, 90, 0, 10, 5)


@pytest.mark.parametrize(
    ("api", "expected"),
    [
        (None, Usage()),
        ({}, Usage()),
        ({"input_tokens": 5, "output_tokens": 7}, Usage(5, 7)),
        (
            {
                "input_tokens": 1,
                "output_tokens": 2,
                "cache_creation_input_tokens": None,
                "cache_read_input_tokens": 9,
                "server_tool_use": {"web_search_requests": 3},
            },
            Usage(1, 2, 0, 9, 3),
        ),
        ({"input_tokens": None, "server_tool_use": None}, Usage()),
        ({"output_tokens": 4, "server_tool_use": {"web_fetch_requests": 2}}, Usage(0, 4)),
    ],
)
def test_usage_from_api(api: dict[str, Any] | None, expected: Usage) -> None:
    assert Usage.from_api(api) == expected


@pytest.mark.parametrize(
    "api",
    [
        {"input_tokens": "12", "output_tokens": 3.5},
        {"input_tokens": [1], "server_tool_use": "many"},
        {"server_tool_use": {"web_search_requests": "2"}},
        {"output_tokens": True},
        {"input_tokens": float("inf"), "output_tokens": float("nan")},
    ],
)
def test_usage_from_api_tolerates_garbage(api: dict[str, Any]) -> None:
    usage = Usage.from_api(api)
    for f in dataclasses.fields(usage):
        value = getattr(usage, f.name)
        assert isinstance(value, int) and not isinstance(value, bool)
    assert (usage + usage).total_tokens == 2 * usage.total_tokens


# --- one vocabulary -------------------------------------------------------------------------------


def test_kind_is_the_snake_case_of_the_class() -> None:
    import re

    for cls in EVENT_TYPES.values():
        assert cls.kind == re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()


def test_every_tool_event_names_its_call_and_tool() -> None:
    for event in SAMPLES:
        fields = {f.name for f in dataclasses.fields(event)}
        if fields & {"tool_use_id", "tool"} or "Tool" in type(event).__name__:
            assert {"tool_use_id"} <= fields, type(event).__name__
            if not isinstance(event, ev.ToolInputDelta):
                assert "tool" in fields, type(event).__name__


def test_sessions_recorded_with_the_earlier_names_still_load() -> None:
    old = [
        {"type": "tool_call", "index": 0, "id": "t1", "name": "Bash", "input": {}, "server": False},
        {
            "type": "tool_result",
            "tool_use_id": "t1",
            "name": "Bash",
            "is_error": False,
            "summary": "ok",
            "duration_s": 0.1,
        },
        {
            "type": "permission",
            "tool_use_id": "t1",
            "tool": "Bash",
            "subject": "ls",
            "decision": "allow",
            "by": "rule",
        },
        {"type": "text", "index": 0, "text": "hi"},
        {
            "type": "turn_end",
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1},
            "cost_usd": 0.0,
            "requests": 1,
        },
    ]
    events = [event_from_dict(d) for d in old]
    assert [type(e) for e in events] == [
        ev.ToolCallReady,
        ev.ToolFinished,
        ev.ApprovalDecided,
        ev.TextDelta,
        ev.TurnFinished,
    ]
    assert events[0].tool_use_id == "t1" and events[0].tool == "Bash"  # type: ignore[attr-defined]
    assert events[1].tool == "Bash"  # type: ignore[attr-defined]


def test_stream_json_keeps_the_documented_names() -> None:
    from agent_tui.protocol.events import stream_json

    documented = {
        ev.TextDelta: "text",
        ev.ToolCallReady: "tool_call",
        ev.SearchQueryUpdate: "search_query",
        ev.SearchResultsReceived: "search_results",
        ev.ApprovalDecided: "permission",
        ev.ToolFinished: "tool_result",
        ev.TurnFinished: "turn_end",
        ev.StreamFailed: "error",
    }
    for event in SAMPLES:
        if type(event) in documented:
            assert stream_json(event)["type"] == documented[type(event)]
    call = next(e for e in SAMPLES if isinstance(e, ev.ToolCallReady))
    data = stream_json(call)
    assert data["id"] == data["tool_use_id"] and data["name"] == data["tool"]
